package io.lgc4j.cli.tables;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * PNG charts for the tables and figures, drawn with XChart headless: every axis is titled with its unit by the
 * caller, every chart has a legend.
 */
public final class Charts {

    private static final int WIDTH = 900;
    private static final int HEIGHT = 540;

    static {
        System.setProperty("java.awt.headless", "true");
    }

    private Charts() {
    }

    /**
     * A line of a line chart.
     *
     * @param name   the legend entry
     * @param x      x values
     * @param y      y values (NaN points are dropped)
     * @param dashed drawn dashed (the paper's dotted entropy lines) instead of solid
     * @param group  lines of one group share a colour (a layer's MI and entropy); -1 lets the chart choose
     */
    public record Line(String name, double[] x, double[] y, boolean dashed, int group) {
        /** A line coloured by the chart. */
        public Line(String name, double[] x, double[] y, boolean dashed) {
            this(name, x, y, dashed, -1);
        }
    }

    /** Distinct colours for line groups (Tableau 10). */
    private static final java.awt.Color[] PALETTE = {new java.awt.Color(0x4E79A7), new java.awt.Color(0xF28E2B),
        new java.awt.Color(0xE15759), new java.awt.Color(0x76B7B2), new java.awt.Color(0x59A14F),
        new java.awt.Color(0xEDC948), new java.awt.Color(0xB07AA1), new java.awt.Color(0xFF9DA7),
        new java.awt.Color(0x9C755F), new java.awt.Color(0xBAB0AC)};

    /** Writes a line chart to {@code png}; {@code logY} puts the y axis on a log scale. */
    public static void lines(String title, String xTitle, String yTitle, List<Line> lines, boolean logY, Path png)
            throws IOException {
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(xTitle)
                .yAxisTitle(yTitle).build();
        var styler = chart.getStyler();
        // a row under the chart holds a few entries; more go in a column at its right, where none is cut off
        boolean many = lines.size() > 5;
        styler.setLegendPosition(many ? Styler.LegendPosition.OutsideE : Styler.LegendPosition.OutsideS);
        styler.setLegendLayout(many ? Styler.LegendLayout.Vertical : Styler.LegendLayout.Horizontal);
        styler.setYAxisLogarithmic(logY);
        styler.setMarkerSize(0);
        styler.setChartBackgroundColor(java.awt.Color.WHITE);
        for (Line line : lines) {
            List<Double> xs = new ArrayList<>();
            List<Double> ys = new ArrayList<>();
            for (int i = 0; i < line.x().length; i++) {
                if (Double.isFinite(line.y()[i]) && (!logY || line.y()[i] > 0)) {
                    xs.add(line.x()[i]);
                    ys.add(line.y()[i]);
                }
            }
            if (xs.isEmpty()) {
                continue;
            }
            // a method run once per seed draws one line per seed: the legend numbers the repeats
            String name = line.name();
            for (int n = 2; chart.getSeriesMap().containsKey(name); n++) {
                name = line.name() + " (" + n + ")";
            }
            XYSeries s = chart.addSeries(name, xs, ys);
            s.setMarker(SeriesMarkers.NONE);
            s.setLineStyle(line.dashed() ? SeriesLines.DASH_DASH : SeriesLines.SOLID);
            if (line.group() >= 0) {
                s.setLineColor(PALETTE[line.group() % PALETTE.length]);
            }
        }
        BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
    }

    /**
     * Writes a grouped bar chart to {@code png}: one group per category, one bar per series.
     *
     * @param series legend entry → one value per category (NaN bars are drawn as 0 on linear axes, left out on log)
     */
    public static void bars(String title, String xTitle, String yTitle, List<String> categories,
                            Map<String, double[]> series, boolean logY, Path png) throws IOException {
        boolean positive = series.values().stream().flatMapToDouble(Arrays::stream)
                .allMatch(v -> Double.isFinite(v) && v > 0);
        if (logY && !positive) {
            // XChart cannot draw a missing or non-positive bar on a log axis: fall back to a linear one, say so
            logY = false;
            yTitle = yTitle.replace(" (log scale)", "") + " (linear: some bars are missing or 0)";
        }
        CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(xTitle)
                .yAxisTitle(yTitle).build();
        var styler = chart.getStyler();
        styler.setLegendPosition(Styler.LegendPosition.OutsideS);
        styler.setLegendLayout(Styler.LegendLayout.Horizontal);
        styler.setYAxisLogarithmic(logY);
        styler.setXAxisLabelRotation(categories.size() > 6 ? 30 : 0);
        if (logY) {
            // bars grow from the axis minimum, which must be > 0 on a log axis: a power of ten under the smallest bar
            double min = series.values().stream().flatMapToDouble(Arrays::stream).min().orElse(1);
            styler.setYAxisMin(Math.pow(10, Math.floor(Math.log10(min))));
        }
        styler.setChartBackgroundColor(java.awt.Color.WHITE);
        for (Map.Entry<String, double[]> e : series.entrySet()) {
            List<Double> ys = new ArrayList<>();
            for (double v : e.getValue()) {
                ys.add(Double.isFinite(v) ? v : 0.0);
            }
            chart.addSeries(e.getKey(), new ArrayList<>(categories), ys);
        }
        BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
    }

    /** The moving average of {@code y} over a centred window of {@code width} points (NaN points skipped). */
    public static double[] smooth(double[] y, int width) {
        double[] out = new double[y.length];
        int half = Math.max(0, width / 2);
        for (int i = 0; i < y.length; i++) {
            double sum = 0;
            int n = 0;
            for (int j = Math.max(0, i - half); j <= Math.min(y.length - 1, i + half); j++) {
                if (!Double.isNaN(y[j])) {
                    sum += y[j];
                    n++;
                }
            }
            out[i] = n == 0 ? Double.NaN : sum / n;
        }
        return out;
    }

    /** 0, 1, ..., n − 1 as doubles. */
    public static double[] range(int n) {
        double[] x = new double[n];
        Arrays.setAll(x, i -> i);
        return x;
    }
}

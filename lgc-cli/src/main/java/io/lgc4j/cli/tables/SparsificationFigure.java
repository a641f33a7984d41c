package io.lgc4j.cli.tables;

import io.lgc4j.runner.config.ExperimentConfig;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code lgc figure sparsification}: the analog of seeds/003 Fig. 13, the training loss of the same model under
 * three sparsification schedules: fixed (sparse from the first step), exponential (DGC's warm-up, the density
 * falling exponentially to its final value) and warm-up (dense first, then the final sparsity; the paper's choice). The PNG
 * shows the loss (the mean of the K ranks' mini-batch losses) smoothed over a window; {@code series.csv} holds every
 * step's raw loss; the table the mean loss per quarter of the run and the final test accuracy.
 */
public final class SparsificationFigure {

    private SparsificationFigure() {
    }

    /** Builds the figure, the series, the table and the report from finished runs and writes them into {@code out}. */
    public static void write(Suite suite, Suite.Profile profile, String commandLine, List<SuiteRuns.Finished> runs,
                             Path out) throws IOException {
        Table table = new Table(List.of(Table.column("model", "model"), Table.column("method", "method"),
                Table.column("dense_steps", "dense steps"), Table.column("warmup_steps", "exp. warm-up steps"),
                Table.column("steps", "steps"), Table.column("loss_q1", "loss, 1st quarter"),
                Table.column("loss_q2", "2nd quarter"), Table.column("loss_q3", "3rd quarter"),
                Table.column("loss_q4", "4th quarter"), Table.column("top1_pct", "top-1 (%)")));
        StringBuilder series = new StringBuilder("model,method,step,stage,loss\n");
        List<String> findings = new ArrayList<>();
        Map<String, String> figures = new LinkedHashMap<>();
        for (String model : suite.models()) {
            List<Charts.Line> lines = new ArrayList<>();
            double bestLast = Double.POSITIVE_INFINITY;
            String best = null;
            for (SuiteRuns.Finished run : runs) {
                if (!run.planned().model().equals(model)) {
                    continue;
                }
                MetricsTable m = run.metrics();
                double[] loss = m.numbers("loss");
                String[] stage = m.text("stage");
                for (int i = 0; i < loss.length; i++) {
                    series.append(model).append(',').append(run.planned().methodId()).append(',').append(i)
                            .append(',').append(stage[i]).append(',').append(loss[i]).append('\n');
                }
                double[] q = quarters(loss);
                ExperimentConfig c = run.planned().config();
                table.add(model, run.planned().label(), String.valueOf(c.stages().fullIterations()),
                        String.valueOf(c.compressor().warmupSteps()), String.valueOf(loss.length),
                        Table.number(q[0], 4), Table.number(q[1], 4), Table.number(q[2], 4), Table.number(q[3], 4),
                        Table.number(100 * run.summary().finalTestAccuracy(), 2));
                lines.add(new Charts.Line(run.planned().label(), Charts.range(loss.length),
                        Charts.smooth(loss, Math.max(1, loss.length / 40)), false));
                if (q[3] < bestLast) {
                    bestLast = q[3];
                    best = run.planned().label();
                }
            }
            String png = "sparsification-" + model + ".png";
            Charts.lines("Training loss under three sparsification schedules (" + model + ")", "iteration",
                    "training loss (cross-entropy, nats; moving average)", lines, false, out.resolve(png));
            figures.put(png, "Training loss by iteration, " + model);
            if (best != null) {
                findings.add(String.format(Locale.ROOT, "On %s the lowest loss over the last quarter is %s's"
                        + " (%.4f).", model, best, bestLast));
            }
        }
        Files.createDirectories(out);
        Files.writeString(out.resolve("series.csv"), series, StandardCharsets.UTF_8);
        List<String> intro = List.of("Every run: " + CompressionTable.describe(runs) + ". The three schedules use"
                + " the same compressor and model updater and differ only in when the final sparsity applies:"
                + " **fixed** from the first step, **exponential** falling from 25% density over the warm-up"
                + " steps in four phases as DGC does, **warm-up** after dense steps. Losses are the mean of the K ranks' mini-batch losses; `series.csv` has"
                + " every step.");
        new Report(suite, profile, commandLine, intro, table, figures, findings).write(out, runs, Map.of());
    }

    /** The mean of each quarter of {@code y} (NaN for an empty quarter). */
    static double[] quarters(double[] y) {
        double[] q = new double[4];
        for (int k = 0; k < 4; k++) {
            int from = k * y.length / 4;
            int to = (k + 1) * y.length / 4;
            double sum = 0;
            for (int i = from; i < to; i++) {
                sum += y[i];
            }
            q[k] = to > from ? sum / (to - from) : Double.NaN;
        }
        return q;
    }
}

package io.lgc4j.cli.tables;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.lgc4j.analysis.GradientInformationProbe;
import io.lgc4j.analysis.Quantizer;
import io.lgc4j.core.train.ReplicaModel;
import io.lgc4j.runner.config.DataConfig;
import io.lgc4j.runner.config.ExperimentConfig;
import io.lgc4j.data.FashionMnist;
import io.lgc4j.data.LabeledImages;
import io.lgc4j.data.PixelPreprocessing;
import io.lgc4j.runner.ExperimentRunner;
import io.lgc4j.runner.Provenance;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code lgc figure mutual-information}: the analog of seeds/003 Figs. 3–4. For every model of the suite, dense
 * data-parallel training (K ranks, the suite's base config) through {@link GradientInformationProbe}: at sampled
 * iterations, per layer, the marginal entropy H(g_b) of rank b's gradient and the mutual information I(g_a; g_b)
 * with rank a's gradient of the same layer and iteration, estimated with histograms under each quantizer of the
 * suite, each beside a shuffled control (the same estimate with rank b's entries permuted: what the estimator reports
 * for independent pairs with these marginals, its bias).
 *
 * <p>Writes per model {@code runs/mi-<model>/series.csv} (every sampled step, layer and quantizer), and over all of
 * them {@code table.csv} (per layer and quantizer, the means over the iterations: H, I, I/H and the shuffled
 * control), {@code mi-<model>.png} (Fig. 3: MI solid and entropy dashed over the iterations, per layer, first
 * quantizer), {@code mi-layers-<model>.png} (Fig. 4: mean entropy, mean MI and the control per layer) and
 * {@code mi-share-<model>.png} (I/H per layer under every quantizer).
 */
public final class MutualInformationFigure {

    private static final String SERIES_HEADER = "model,step,layer,layer_name,elements,quantizer,entropy_x_bits,"
            + "entropy_y_bits,joint_entropy_bits,mi_bits,mi_share,shuffled_mi_bits";

    private MutualInformationFigure() {
    }

    /** Runs (or reuses) the analysis of every model and writes the output into {@code out}. */
    public static void write(Suite suite, Suite.Profile profile, String commandLine, Path out, PrintStream log)
            throws IOException {
        MutualInformationSettings settings = suite.analysis(profile);
        List<Quantizer> quantizers = settings.bins().stream().map(b -> b == MutualInformationSettings.FLOAT32
                ? Quantizer.FLOAT32_BITS : Quantizer.uniform(b)).toList();
        Table table = new Table(List.of(Table.column("model", "model"), Table.column("layer", "layer"),
                Table.column("elements", "elements"), Table.column("quantizer", "quantizer"),
                Table.column("samples", "iterations sampled"), Table.column("entropy_bits", "mean H(g_b) (bits)"),
                Table.column("mi_bits", "mean I(g_a; g_b) (bits)"), Table.column("mi_share", "mean I / H"),
                Table.column("shuffled_mi_bits", "shuffled control I (bits)"),
                Table.column("excess_share", "(I − control) / H")));
        Map<String, String> figures = new LinkedHashMap<>();
        List<String> findings = new ArrayList<>();
        List<Map<String, Object>> analyses = new ArrayList<>();
        int i = 0;
        for (String model : suite.models()) {
            i++;
            ExperimentConfig config = suite.analysisConfig(profile, model);
            Path dir = out.resolve("runs").resolve("mi-" + model);
            String prefix = String.format(Locale.ROOT, "[%d/%d] mutual information on %s", i, suite.models().size(),
                    model);
            String identity = config.toYaml() + "# analysis: " + settings + "\n";
            boolean reused = SuiteRuns.isFinished(dir, identity);
            if (reused) {
                log.println(prefix + ": finished before, reused (" + dir + ")");
            } else {
                log.println(prefix + ": " + settings.steps() + " steps, a sample every " + settings.every());
                analyse(config, settings, quantizers, model, dir, identity, log, prefix);
            }
            analyses.add(Map.of("model", model, "directory", out.relativize(dir).toString(), "reused", reused));
            MetricsTable series = MetricsTable.read(dir.resolve("series.csv"));
            Map<String, List<LayerMeans>> means = means(series, quantizers);
            summarize(model, means, table, findings);
            plot(model, series, means, out, figures);
        }
        List<String> intro = List.of(String.format(Locale.ROOT, "Dense data-parallel training on Fashion-MNIST, K ="
                        + " %d workers × batch %d, %d steps; at step 0 and every %d steps the gradients of ranks %d"
                        + " (g_a) and %d (g_b) are compared layer by layer (a layer's weights and biases together)."
                        + " Entropies and mutual information are plug-in histogram estimates in bits: a uniform"
                        + " quantizer with B levels over the pair's common range, or *float32*, the paper's literal"
                        + " 2^32-level quantizer (every distinct float its own symbol). The **shuffled control** is"
                        + " the same estimate after permuting g_b's entries: the MI the estimator reports for"
                        + " independent pairs with the same marginals, i.e. its bias. *(I − control) / H* is the share"
                        + " left after removing it. Seeds/003 reports I/H ≈ 80%% (ResNet50 and PSPNet, Section III).",
                suite.analysisConfig(profile, suite.models().get(0)).training().workers(),
                suite.analysisConfig(profile, suite.models().get(0)).training().batchSizePerWorker(),
                settings.steps(), settings.every(), settings.rankA(), settings.rankB()));
        new Report(suite, profile, commandLine, intro, table, figures, findings).write(out, List.of(),
                Map.of("analyses", analyses, "seed", suite.analysisConfig(profile, suite.models().get(0)).run()
                        .seed()));
    }

    private static void analyse(ExperimentConfig config, MutualInformationSettings settings,
                                List<Quantizer> quantizers, String model, Path dir, String identity,
                                PrintStream log, String prefix) throws IOException {
        DataConfig data = config.data();
        PixelPreprocessing pixels = data.preprocessing();
        LabeledImages train = FashionMnist.load(Path.of(data.path()), FashionMnist.Split.TRAIN,
                data.trainLimit() == 0 ? FashionMnist.ALL : data.trainLimit(), pixels);
        ReplicaModel replica = ReplicaModel.wrap(ExperimentRunner.buildModel(config.model(), config.run().seed()))
                .copy(config.model().compute().settings());
        GradientInformationProbe.Settings probe = new GradientInformationProbe.Settings(config.training().workers(),
                config.training().batchSizePerWorker(), settings.steps(), settings.every(), settings.rankA(),
                settings.rankB(), config.run().seed(), quantizers);
        var dataSet = train.toDataSet();
        // the data is read before the run's directory is made: a missing data set leaves nothing behind
        Files.createDirectories(dir);
        Files.deleteIfExists(dir.resolve(ExperimentRunner.SUMMARY));
        Files.writeString(dir.resolve("config.yaml"), identity, StandardCharsets.UTF_8);
        GradientInformationProbe.Summary summary;
        try (BufferedWriter csv = Files.newBufferedWriter(dir.resolve("series.csv"), StandardCharsets.UTF_8)) {
            csv.write(SERIES_HEADER);
            csv.newLine();
            int tenth = Math.max(1, settings.steps() / 10);
            summary = GradientInformationProbe.run(replica, dataSet.getFeatures(), dataSet.getLabels(), probe,
                    row -> {
                        var e = row.estimate();
                        csv.write(String.join(",", model, String.valueOf(row.step()), String.valueOf(row.layer()),
                                row.layerName(), String.valueOf(row.elements()), label(row.quantizer()),
                                String.valueOf(e.entropyX()), String.valueOf(e.entropyY()),
                                String.valueOf(e.jointEntropy()), String.valueOf(e.mutualInformation()),
                                String.valueOf(e.mutualInformationShare()),
                                String.valueOf(row.shuffled().mutualInformation())));
                        csv.newLine();
                    },
                    (done, total) -> {
                        if (done % tenth == 0 || done == total) {
                            log.printf(Locale.ROOT, "%s: step %d/%d%n", prefix, done, total);
                        }
                    });
        }
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("model", model);
        s.put("steps", settings.steps());
        s.put("sampledSteps", summary.sampledSteps());
        s.put("meanLoss", summary.meanLoss());
        s.put("wall_ms", summary.nanos() / 1e6);
        s.put("provenance", Provenance.collect("suite mi-" + model, config.run().seed()));
        Path partial = dir.resolve(ExperimentRunner.SUMMARY + ".partial");
        new ObjectMapper().writeValue(partial.toFile(), s);
        Files.move(partial, dir.resolve(ExperimentRunner.SUMMARY), StandardCopyOption.REPLACE_EXISTING,
                StandardCopyOption.ATOMIC_MOVE);
    }

    /** The name a quantizer has in the series and the table: {@code 256 bins} or {@code float32}. */
    static String label(Quantizer q) {
        return q instanceof Quantizer.Uniform u ? MutualInformationSettings.name(u.levels())
                : MutualInformationSettings.name(MutualInformationSettings.FLOAT32);
    }

    /**
     * Means over the sampled iterations of one layer under one quantizer.
     *
     * @param layer    the layer's name
     * @param elements its gradient's length
     * @param samples  iterations sampled
     * @param entropy  mean H(g_b), bits
     * @param mi       mean I(g_a; g_b), bits
     * @param share    mean of the per-iteration I / H
     * @param shuffled mean I of the shuffled control, bits
     */
    record LayerMeans(String layer, long elements, int samples, double entropy, double mi, double share,
                      double shuffled) {
        /** (I − control) / H, the share left once the estimator's bias is removed. */
        double excessShare() {
            return entropy == 0 ? 0 : (mi - shuffled) / entropy;
        }
    }

    /** Per quantizer (in the suite's order), the layers' means in layer order, read back from the series. */
    static Map<String, List<LayerMeans>> means(MetricsTable series, List<Quantizer> quantizers) {
        String[] layerNames = series.text("layer_name");
        double[] elements = series.numbers("elements");
        String[] quantizer = series.text("quantizer");
        double[] h = series.numbers("entropy_y_bits");
        double[] mi = series.numbers("mi_bits");
        double[] share = series.numbers("mi_share");
        double[] shuffled = series.numbers("shuffled_mi_bits");
        Map<String, List<LayerMeans>> means = new LinkedHashMap<>();
        for (Quantizer q : quantizers) {
            String name = label(q);
            Map<String, double[]> sums = new LinkedHashMap<>();   // layer → {n, elements, H, I, share, control}
            for (int r = 0; r < layerNames.length; r++) {
                if (quantizer[r].equals(name)) {
                    double[] s = sums.computeIfAbsent(layerNames[r], k -> new double[6]);
                    s[0]++;
                    s[1] = elements[r];
                    s[2] += h[r];
                    s[3] += mi[r];
                    s[4] += share[r];
                    s[5] += shuffled[r];
                }
            }
            List<LayerMeans> layers = new ArrayList<>();
            sums.forEach((layer, s) -> layers.add(new LayerMeans(layer, (long) s[1], (int) s[0], s[2] / s[0],
                    s[3] / s[0], s[4] / s[0], s[5] / s[0])));
            means.put(name, layers);
        }
        return means;
    }

    /** One table row per layer and quantizer, and the finding per quantizer. */
    private static void summarize(String model, Map<String, List<LayerMeans>> means, Table table,
                                  List<String> findings) {
        for (Map.Entry<String, List<LayerMeans>> q : means.entrySet()) {
            double allShare = 0;
            double allExcess = 0;
            for (LayerMeans l : q.getValue()) {
                table.add(model, l.layer(), String.valueOf(l.elements()), q.getKey(), String.valueOf(l.samples()),
                        Table.number(l.entropy(), 4), Table.number(l.mi(), 4), Table.number(l.share(), 4),
                        Table.number(l.shuffled(), 4), Table.number(l.excessShare(), 4));
                allShare += l.share();
                allExcess += l.excessShare();
            }
            int n = q.getValue().size();
            findings.add(String.format(Locale.ROOT, "%s, %s: I/H averaged over the %d layers is %.1f%%; after"
                    + " removing the shuffled control, %.1f%% (the paper: ≈ 80%%).", model, q.getKey(), n,
                    100 * allShare / n, 100 * allExcess / n));
        }
    }

    private static void plot(String model, MetricsTable series, Map<String, List<LayerMeans>> means, Path out,
                             Map<String, String> figures) throws IOException {
        String first = means.keySet().iterator().next();
        List<LayerMeans> firstMeans = means.get(first);
        List<String> layers = firstMeans.stream().map(LayerMeans::layer).toList();
        String[] quantizer = series.text("quantizer");
        String[] layerNames = series.text("layer_name");
        double[] step = series.numbers("step");
        double[] h = series.numbers("entropy_y_bits");
        double[] mi = series.numbers("mi_bits");
        List<Charts.Line> lines = new ArrayList<>();
        for (int l = 0; l < layers.size(); l++) {
            List<double[]> points = new ArrayList<>();
            for (int r = 0; r < step.length; r++) {
                if (layerNames[r].equals(layers.get(l)) && quantizer[r].equals(first)) {
                    points.add(new double[] {step[r], mi[r], h[r]});
                }
            }
            double[] x = points.stream().mapToDouble(p -> p[0]).toArray();
            lines.add(new Charts.Line("I, " + layers.get(l), x, points.stream().mapToDouble(p -> p[1]).toArray(),
                    false, l));
            lines.add(new Charts.Line("H, " + layers.get(l), x, points.stream().mapToDouble(p -> p[2]).toArray(),
                    true, l));
        }
        String fig3 = "mi-" + model + ".png";
        Charts.lines("Mutual information (solid) and entropy (dashed) per layer, " + model + ", " + first,
                "iteration", "bits", lines, false, out.resolve(fig3));
        figures.put(fig3, "Fig. 3 analog, " + model + ": I(g_a; g_b) and H(g_b) per layer over the iterations ("
                + first + ")");
        Map<String, double[]> bars = new LinkedHashMap<>();
        bars.put("mean entropy H(g_b)", firstMeans.stream().mapToDouble(LayerMeans::entropy).toArray());
        bars.put("mean MI I(g_a; g_b)", firstMeans.stream().mapToDouble(LayerMeans::mi).toArray());
        bars.put("shuffled control (estimator bias)", firstMeans.stream().mapToDouble(LayerMeans::shuffled)
                .toArray());
        String fig4 = "mi-layers-" + model + ".png";
        Charts.bars("Mean entropy and mutual information per layer, " + model + ", " + first, "layer", "bits",
                layers, bars, false, out.resolve(fig4));
        figures.put(fig4, "Fig. 4 analog, " + model + ": mean H, mean I and the shuffled control per layer ("
                + first + ")");
        Map<String, double[]> shares = new LinkedHashMap<>();
        means.forEach((q, layerMeans) -> shares.put(q, layerMeans.stream().mapToDouble(l -> 100 * l.share())
                .toArray()));
        String figShare = "mi-share-" + model + ".png";
        Charts.bars("MI as a share of entropy per layer, by quantizer, " + model, "layer",
                "mean I / H (%)", layers, shares, false, out.resolve(figShare));
        figures.put(figShare, "I/H per layer under each quantizer, " + model + " (the paper: ≈ 80%)");
    }
}

package io.lgc4j.cli.tables;

import io.lgc4j.core.metrics.StepNotes;
import io.lgc4j.lgc.AutoencoderSection;
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
 * {@code lgc figure ae-convergence}: the analog of seeds/003 Fig. 14, the reconstruction loss of the autoencoder over
 * its online training (the TOP_K stage of a real LGC run), with the similarity loss off (λ2 = 0) and on (λ2 = 0.5),
 * for LGC-PS and LGC-RAR. The loss is the one the trainer minimizes (normalized per-element mean, see the
 * autoencoders module); for the PS it covers all K decoders. When the suite lets the runs go on into COMPRESSED, the
 * table also shows what the loss does not: the relative error of the vectors the run then applied, as sampled by the
 * drift guard ({@code ae_drift}), and how many steps fell back to top-k.
 */
public final class AeConvergenceFigure {

    private AeConvergenceFigure() {
    }

    /** Builds the figure, the series, the table and the report from finished runs and writes them into {@code out}. */
    public static void write(Suite suite, Suite.Profile profile, String commandLine, List<SuiteRuns.Finished> runs,
                             Path out) throws IOException {
        Table table = new Table(List.of(Table.column("model", "model"), Table.column("method", "method"),
                Table.column("topology", "topology"), Table.column("lambda_sim", "λ2"),
                Table.column("ae_steps", "AE training steps"),
                Table.column("rec_loss_first", "L_rec, first tenth"), Table.column("rec_loss_last", "L_rec, last tenth"),
                Table.column("sim_loss_last", "L_sim, last tenth"),
                Table.column("applied_rel_error", "applied rel. error (guard samples)"),
                Table.column("fallback_steps", "fallback steps"), Table.column("top1_pct", "top-1 (%)")));
        StringBuilder series = new StringBuilder("model,method,step,ae_step,ae_rec_loss,ae_sim_loss\n");
        Map<String, String> figures = new LinkedHashMap<>();
        for (String model : suite.models()) {
            List<Charts.Line> lines = new ArrayList<>();
            for (SuiteRuns.Finished run : runs) {
                if (!run.planned().model().equals(model)) {
                    continue;
                }
                MetricsTable m = run.metrics();
                double[] rec = m.numbers(StepNotes.AE_RECONSTRUCTION);
                double[] sim = m.numbers(StepNotes.AE_SIMILARITY);
                double[] drift = m.numbers(StepNotes.AE_DRIFT);
                double[] fallback = m.numbers(StepNotes.LGC_FALLBACK);
                List<Double> recSteps = new ArrayList<>();
                List<Double> simSteps = new ArrayList<>();
                int aeStep = 0;
                for (int i = 0; i < rec.length; i++) {
                    if (Double.isNaN(rec[i])) {
                        continue;
                    }
                    series.append(model).append(',').append(run.planned().methodId()).append(',').append(i)
                            .append(',').append(aeStep++).append(',').append(rec[i]).append(',')
                            .append(Double.isNaN(sim[i]) ? "" : String.valueOf(sim[i])).append('\n');
                    recSteps.add(rec[i]);
                    simSteps.add(sim[i]);
                }
                double[] r = recSteps.stream().mapToDouble(Double::doubleValue).toArray();
                double[] sm = simSteps.stream().mapToDouble(Double::doubleValue).toArray();
                int tenth = Math.max(1, r.length / 10);
                ExperimentConfig c = run.planned().config();
                double lambdaSim = c.section("autoencoder", AutoencoderSection.class).lambdaSim();
                table.add(model, run.planned().label(), c.topology().type().toString(),
                        Table.number(lambdaSim, 2), String.valueOf(r.length),
                        Table.number(mean(r, 0, tenth), 4), Table.number(mean(r, r.length - tenth, r.length), 4),
                        Table.number(mean(sm, sm.length - tenth, sm.length), 4), Table.number(mean(drift, 0,
                                drift.length), 4), String.valueOf((long) sum(fallback)),
                        Table.number(100 * run.summary().finalTestAccuracy(), 2));
                lines.add(new Charts.Line(run.planned().label(), Charts.range(r.length),
                        Charts.smooth(r, Math.max(5, r.length / 20)), lambdaSim == 0));
            }
            String png = "ae-convergence-" + model + ".png";
            Charts.lines("Autoencoder reconstruction loss during online training (" + model + ")",
                    "autoencoder training step (TOP_K stage)", "reconstruction loss L_rec (normalized MSE, log"
                            + " scale; moving average)", lines, true, out.resolve(png));
            figures.put(png, "Reconstruction loss over the TOP_K stage, " + model);
        }
        Files.createDirectories(out);
        Files.writeString(out.resolve("series.csv"), series, StandardCharsets.UTF_8);
        List<String> intro = List.of("Every run: " + CompressionTable.describe(runs) + ". The autoencoders train"
                + " online on the compact vectors of the TOP_K stage (one set of K vectors per step); L_rec is the"
                + " normalized reconstruction loss they minimize (all K decoders for the PS), L_sim the similarity"
                + " loss weighted by λ2. A low L_rec is not enough: the *applied rel. error* column is what the"
                + " drift guard measured on the vectors the run actually applied in COMPRESSED (‖applied − true"
                + " mean‖ / ‖true mean‖ at sampled positions), empty when the run stopped before COMPRESSED.");
        List<String> findings = new ArrayList<>();
        new Report(suite, profile, commandLine, intro, table, figures, findings).write(out, runs, Map.of());
    }

    /** The mean of the finite values of {@code y[from, to)}; NaN if none. */
    static double mean(double[] y, int from, int to) {
        double s = 0;
        int n = 0;
        for (int i = Math.max(0, from); i < to; i++) {
            if (Double.isFinite(y[i])) {
                s += y[i];
                n++;
            }
        }
        return n == 0 ? Double.NaN : s / n;
    }

    private static double sum(double[] y) {
        double s = 0;
        for (double v : y) {
            if (Double.isFinite(v)) {
                s += v;
            }
        }
        return s;
    }
}

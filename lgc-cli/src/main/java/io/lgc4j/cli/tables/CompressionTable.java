package io.lgc4j.cli.tables;

import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.metrics.StepNotes;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.runner.config.ExperimentConfig;
import io.lgc4j.runner.RunSummary;
import io.lgc4j.runner.RunSummary.SentBytes;
import io.lgc4j.runner.RunSummary.StageSummary;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * {@code lgc table compression}: the analog of seeds/003 Table VI (with Table IV's run totals). For every model and
 * method: top-1 test accuracy; the information a node sends per step in the method's steady stage (COMPRESSED for
 * LGC, the sparse stage for the sparsifiers, dense for the baseline), with LGC-PS split into the rank sending the
 * latent (the leader) and the other ranks; the compression ratio against the baseline; the bytes all workers sent over
 * the whole run, dense warm-up, setup and weight shipments included; and the wall time.
 *
 * <p>The per-step information counts every byte a node put on the wire in that stage (values, indices, latent,
 * innovation, control and frame headers) but the one-off weight shipments, which are in the run totals. The finding
 * under the table checks the paper's ordering (LGC-PS &lt; LGC-RAR &lt; DGC ≈ Sparse GD &lt; ScaleCom &lt; Baseline)
 * relation by relation, with LGC-PS's mean rank standing for LGC-PS.
 */
public final class CompressionTable {

    /** Relative difference under which two byte counts count as "≈". */
    static final double ABOUT_EQUAL = 0.10;

    private CompressionTable() {
    }

    /**
     * The role a method plays in the paper's ordering. This table names methods on purpose: it checks the paper's
     * relations between its methods (LGC-PS &lt; LGC-RAR &lt; DGC ≈ Sparse GD &lt; ScaleCom &lt; Baseline), so it
     * maps the compressor and topology types that stand for them to the paper's names. A method the paper does not
     * have (a newly registered compressor) plays no role: it gets its rows and its bar, not a place in the ordering.
     */
    enum Role {
        BASELINE("Baseline", "none", null), SPARSE_GD("Sparse GD", "topk", null), DGC("DGC", "dgc", null),
        SCALECOM("ScaleCom", "scalecom", null), S2("S2", "s2", null), LGC_RAR("LGC-RAR", "lgc", "ring"),
        LGC_PS("LGC-PS", "lgc", "ps");

        final String paperName;
        /** The compressor type that stands for this method. */
        private final String compressor;
        /** The topology type, when the paper names the method per topology (LGC); null for any. */
        private final String topology;

        Role(String paperName, String compressor, String topology) {
            this.paperName = paperName;
            this.compressor = compressor;
            this.topology = topology;
        }

        /** The role of a run's method, or empty when the paper has no such method. */
        static Optional<Role> of(ExperimentConfig c) {
            String compressorType = c.compressor().type().toString();
            String topologyType = c.topology().type().toString();
            for (Role role : values()) {
                if (role.compressor.equals(compressorType)
                        && (role.topology == null || role.topology.equals(topologyType))) {
                    return Optional.of(role);
                }
            }
            return Optional.empty();
        }
    }

    /** Builds the table, the PNGs and the report from finished runs and writes them into {@code out}. */
    public static void write(Suite suite, Suite.Profile profile, String commandLine, List<SuiteRuns.Finished> runs,
                             Path out) throws IOException {
        boolean diagnosed = runs.stream().anyMatch(r -> !r.summary().bytesByStage()
                .get(r.summary().steadyStage()).diagnostics().isEmpty());
        Table table = new Table(columns(diagnosed));
        List<String> findings = new ArrayList<>();
        Map<String, double[]> bytesByModel = new LinkedHashMap<>();
        List<String> categories = new ArrayList<>();
        for (String model : suite.models()) {
            Map<String, List<SuiteRuns.Finished>> pairs = pairsOf(model, runs);
            Baseline baseline = Baseline.of(pairs.values());
            Map<Role, Double> byRole = new LinkedHashMap<>();
            List<Double> modelBytes = new ArrayList<>();
            for (List<SuiteRuns.Finished> pair : pairs.values()) {
                Role role = Role.of(pair.get(0).planned().config()).orElse(null);
                Stage stage = pair.get(0).summary().steadyStage();
                if (role != null) {
                    // the ordering's figure: every worker's mean, which stands for LGC-PS's two kinds of rank
                    byRole.putIfAbsent(role, mean(pair, s -> Summaries.sent(s, stage, Summaries.EVERY_WORKER)
                            .information()));
                }
                for (MethodRow row : methodRows(model, pair, baseline, diagnosed)) {
                    table.add(row.cells());
                    if (!categories.contains(row.label())) {
                        categories.add(row.label());
                    }
                    modelBytes.add(row.info());
                }
            }
            bytesByModel.put(model, modelBytes.stream().mapToDouble(Double::doubleValue).toArray());
            findings.add(ordering(model, byRole));
        }
        Map<String, String> figures = new LinkedHashMap<>();
        bytesFigure(categories, bytesByModel, out, figures);
        if (diagnosed) {
            diagnosticFigures(runs, out, figures);
        }
        new Report(suite, profile, commandLine, intro(runs, diagnosed), table, figures, findings)
                .write(out, runs, Map.of());
    }

    /** The table's columns; with {@code diagnosed}, the diagnostic mode's four after the others. */
    private static List<Table.Column> columns(boolean diagnosed) {
        List<Table.Column> columns = new ArrayList<>(List.of(
                Table.column("model", "model"), Table.column("method", "method"),
                Table.column("topology", "topology"), Table.column("rank", "rank"),
                Table.column("stage", "stage"), Table.column("seeds", "seeds"),
                Table.column("top1_pct", "top-1 (%)"), Table.column("top1_sd", "± sd"),
                Table.column("vs_baseline_pp", "vs baseline (pp)"),
                Table.column("info_bytes_per_step", "info size (B / node / step)"),
                Table.column("index_bytes_per_step", "of which indices (B)"),
                Table.column("ratio", "ratio vs baseline (×)"),
                Table.column("run_total_mb", "run total, all workers (MB)"),
                Table.column("run_total_ratio", "run total ratio (×)"),
                Table.column("steps", "steps"), Table.timing("wall_s", "wall (s)")));
        if (diagnosed) {
            // the diagnostic mode's fidelity of the applied LEARNED update in the steady stage (seeds' mean)
            columns.add(Table.column("applied_rel_err", "applied rel. error (support)"));
            columns.add(Table.column("applied_cos", "applied cos (support)"));
            columns.add(Table.column("applied_cos_all", "applied cos (all LEARNED)"));
            columns.add(Table.column("offer_share", "support's share of the offer"));
        }
        return columns;
    }

    /** The runs of {@code model} by method (its seeds together), in the order the runs came. */
    private static Map<String, List<SuiteRuns.Finished>> pairsOf(String model, List<SuiteRuns.Finished> runs) {
        Map<String, List<SuiteRuns.Finished>> pairs = new LinkedHashMap<>();
        for (SuiteRuns.Finished r : runs) {
            if (r.planned().model().equals(model)) {
                pairs.computeIfAbsent(r.planned().pair(), k -> new ArrayList<>()).add(r);
            }
        }
        return pairs;
    }

    /**
     * What a model's methods are compared with: the baseline's runs, their information per step and run total (means
     * over the seeds) and their accuracy; no runs, NaN and null when the suite has no baseline for the model.
     */
    private record Baseline(List<SuiteRuns.Finished> runs, double info, double total, SeedStats accuracy) {

        /** The baseline among a model's methods: the first whose role is {@link Role#BASELINE}. */
        static Baseline of(Collection<List<SuiteRuns.Finished>> pairs) {
            List<SuiteRuns.Finished> baseline = pairs.stream()
                    .filter(p -> Role.of(p.get(0).planned().config()).orElse(null) == Role.BASELINE).findFirst()
                    .orElse(null);
            if (baseline == null) {
                return new Baseline(null, Double.NaN, Double.NaN, null);
            }
            return new Baseline(baseline, mean(baseline, s -> Summaries.sent(s, s.steadyStage(),
                    Summaries.EVERY_WORKER).information()), mean(baseline, s -> s.sentTotal(0, s.workers())),
                    CompressionTable.accuracy(baseline));
        }

        /** The "vs baseline" cell of a method's runs: the difference of mean accuracies, or "–" for the baseline. */
        String versus(List<SuiteRuns.Finished> pair, SeedStats accuracy) {
            if (this.accuracy == null || pair == runs) {
                return "–";
            }
            return String.format(Locale.ROOT, "%+.2f", accuracy.mean() - this.accuracy.mean())
                    + (accuracy.ties(this.accuracy) ? " (tie)" : "");
        }
    }

    /**
     * One row of the table.
     *
     * @param label the method's label, with the rank it stands for when the method has several rows (the bar's name)
     * @param info  the information a node of those ranks sent per step in the steady stage (the bar's height)
     * @param cells the row's cells, one per column
     */
    private record MethodRow(String label, double info, String[] cells) {
    }

    /**
     * The rows of one method on one model (its seeds' means): one for every rank, or for LGC-PS in its COMPRESSED
     * stage one for the leader and one for the other ranks.
     */
    private static List<MethodRow> methodRows(String model, List<SuiteRuns.Finished> pair, Baseline baseline,
                                              boolean diagnosed) {
        SuiteRuns.Finished first = pair.get(0);
        ExperimentConfig c = first.planned().config();
        Role role = Role.of(c).orElse(null);
        Stage stage = first.summary().steadyStage();
        double total = mean(pair, s -> s.sentTotal(0, s.workers()));
        SeedStats accuracy = accuracy(pair);
        String versus = baseline.versus(pair, accuracy);
        Map<String, Function<StageSummary, SentBytes>> ranks = new LinkedHashMap<>();
        if (role == Role.LGC_PS && stage == Stage.COMPRESSED) {
            ranks.put("leader", Summaries.LATENT_SENDER);
            ranks.put("others", Summaries.OTHER_WORKERS);
        } else {
            ranks.put("every", Summaries.EVERY_WORKER);
        }
        List<MethodRow> rows = new ArrayList<>();
        for (Map.Entry<String, Function<StageSummary, SentBytes>> rank : ranks.entrySet()) {
            double info = mean(pair, s -> Summaries.sent(s, stage, rank.getValue()).information());
            double indices = mean(pair, s -> Summaries.sent(s, stage, rank.getValue())
                    .bytes(TrafficKind.INDICES));
            String label = first.planned().label() + (ranks.size() > 1 ? " (" + rank.getKey() + ")" : "");
            List<String> cells = new ArrayList<>(List.of(model, first.planned().label(),
                    c.topology().type().toString(), rank.getKey(),
                    stage.name(), String.valueOf(accuracy.n()), Table.number(accuracy.mean(), 2),
                    accuracy.n() > 1 ? Table.number(accuracy.sd(), 2) : "", versus,
                    Table.number(info, 1), Table.number(indices, 1),
                    Table.number(baseline.info() / info, 1), Table.number(total / 1e6, 3),
                    Table.number(baseline.total() / total, 2), String.valueOf(first.summary().steps()),
                    Table.number(mean(pair, s -> s.wallMs() / 1000), 1)));
            if (diagnosed) {
                cells.addAll(diagnosticCells(pair, stage));
            }
            rows.add(new MethodRow(label, info, cells.toArray(new String[0])));
        }
        return rows;
    }

    /** The diagnostic notes of a method's steady stage, each the mean over its seeds that trained in that mode. */
    private static List<String> diagnosticCells(List<SuiteRuns.Finished> pair, Stage stage) {
        List<String> cells = new ArrayList<>();
        for (String note : StepNotes.DIAGNOSTICS) {
            // over the seeds that trained in the diagnostic mode (a suite's diagnosticSeeds)
            double v = pair.stream().map(r -> r.summary().bytesByStage().get(stage).diagnostics())
                    .filter(d -> d.containsKey(note)).mapToDouble(d -> d.get(note)).average()
                    .orElse(Double.NaN);
            cells.add(Double.isNaN(v) ? "–" : Table.number(v, 3));
        }
        return cells;
    }

    /**
     * The bar chart of the information per step, a bar per method and model, when every model ran the same methods
     * (a grouped chart needs the same categories for all); else none.
     */
    private static void bytesFigure(List<String> categories, Map<String, double[]> bytesByModel, Path out,
                                    Map<String, String> figures) throws IOException {
        if (bytesByModel.isEmpty()
                || bytesByModel.values().stream().anyMatch(bytes -> bytes.length != categories.size())) {
            return;
        }
        Charts.bars("Information sent per node per step (steady stage)", "method", "bytes per node per step"
                + " (log scale)", categories, bytesByModel, true, out.resolve("compression.png"));
        figures.put("compression.png", "Bytes per node per step, by method and model (log scale)");
    }

    /** The paragraph before the table: how every run was made and what each column means. */
    private static List<String> intro(List<SuiteRuns.Finished> runs, boolean diagnosed) {
        return List.of(
                "Every run: " + describe(runs) + ". **info size** is what one node sends per step in the method's"
                        + " steady stage (the last stage it reached: COMPRESSED for LGC, TOP_K for the sparsifiers,"
                        + " FULL for the baseline), every byte on the wire (values, indices, latent, innovation,"
                        + " control, frame headers) but one-off weight shipments. LGC-PS is split like the paper's"
                        + " table: the rank that sends the latent (the step's leader) and the other ranks. **ratio**"
                        + " is the baseline's info size over the method's; the **run total** is every byte all"
                        + " workers sent over the whole run (dense warm-up, top-k stage, setup and weight shipments"
                        + " included), as in Table IV. With several **seeds** every figure is the mean over them;"
                        + " **± sd** is the accuracy's sample standard deviation, and **vs baseline** the difference of"
                        + " mean accuracies, marked *(tie)* when it is smaller than two standard errors of the"
                        + " difference."
                        + (diagnosed ? " The last four columns come from the diagnostic mode ("
                        + diagnosedSeeds(runs) + "), averaged over the steady stage's steps: the update applied to"
                        + " the LEARNED blocks (a) against the mean of"
                        + " what the ranks offered there (m, their error-compensated gradients): ‖a − m‖ / ‖m‖ and"
                        + " cos(a, m) on the step's support, cos(a, m) over every LEARNED position, and ‖m_S‖ / ‖m‖,"
                        + " the share of the offer the support covers." : ""));
    }

    /**
     * The diagnostic notes step by step, one line per method and model named by their ids (the run of the method's
     * first seed in the diagnostic mode, moving average over 9 steps): the cosine of the applied LEARNED update with
     * the ranks' mean offer over every LEARNED position, and the relative error on the support.
     */
    private static void diagnosticFigures(List<SuiteRuns.Finished> runs, Path out, Map<String, String> figures)
            throws IOException {
        Map<String, SuiteRuns.Finished> firstSeed = new LinkedHashMap<>();
        for (SuiteRuns.Finished r : runs) {
            if (r.planned().config().training().diagnostics()) {
                firstSeed.putIfAbsent(r.planned().pair(), r); // the method's id: labels are too long for a legend
            }
        }
        for (String[] figure : List.of(
                new String[] {StepNotes.APPLIED_COS_ALL, "diagnostics-cos.png",
                    "cos(applied LEARNED update, ranks' mean offer), every LEARNED position"},
                new String[] {StepNotes.APPLIED_REL_ERR, "diagnostics-error.png",
                    "‖applied − mean offer‖ / ‖mean offer‖ on the step's support"})) {
            List<Charts.Line> lines = new ArrayList<>();
            for (Map.Entry<String, SuiteRuns.Finished> e : firstSeed.entrySet()) {
                MetricsTable m = e.getValue().metrics();
                double[] y = m.numbers(figure[0]);
                int i = lines.size(); // ten colours, then the same ten dashed
                lines.add(new Charts.Line(e.getKey(), Charts.range(y.length), Charts.smooth(y, 9), i >= 10, i % 10));
            }
            Charts.lines(figure[2], "step", figure[0] + " (moving average, 9 steps)", lines, false,
                    out.resolve(figure[1]));
            figures.put(figure[1], figure[2] + ", per step (the first seed of each method that trained in the"
                    + " diagnostic mode; moving average over 9 steps)");
        }
    }

    /** Which runs trained in the diagnostic mode: "every run", or "seeds 1, 2" / "seed 1" of a suite's seeds. */
    static String diagnosedSeeds(List<SuiteRuns.Finished> runs) {
        List<Long> seeds = runs.stream().filter(r -> r.planned().config().training().diagnostics())
                .map(SuiteRuns.Finished::planned).map(Suite.PlannedRun::seed).distinct().sorted().toList();
        boolean all = runs.stream().allMatch(r -> r.planned().config().training().diagnostics());
        if (all || runs.stream().noneMatch(r -> r.planned().seeded())) {
            return "every run";
        }
        return (seeds.size() == 1 ? "seed " : "seeds ") + String.join(", ", seeds.stream().map(String::valueOf)
                .toList()) + " of each method";
    }

    /** Top-1 test accuracy in percent over the runs of one method (its seeds). */
    static SeedStats accuracy(List<SuiteRuns.Finished> runs) {
        return SeedStats.of(runs.stream().mapToDouble(r -> 100 * r.summary().finalTestAccuracy()).toArray());
    }

    private static double mean(List<SuiteRuns.Finished> runs, ToDoubleFunction<RunSummary> f) {
        return runs.stream().map(SuiteRuns.Finished::summary).mapToDouble(f).average().orElse(Double.NaN);
    }

    /** The paper's ordering relation by relation, measured on one model. */
    static String ordering(String model, Map<Role, Double> bytes) {
        List<String> checks = new ArrayList<>();
        relation(checks, bytes, Role.LGC_PS, Role.LGC_RAR, false);
        relation(checks, bytes, Role.LGC_RAR, Role.DGC, false);
        relation(checks, bytes, Role.DGC, Role.SPARSE_GD, true);
        relation(checks, bytes, Role.SPARSE_GD, Role.SCALECOM, false);
        relation(checks, bytes, Role.SCALECOM, Role.BASELINE, false);
        List<Map.Entry<Role, Double>> sorted = new ArrayList<>(bytes.entrySet());
        sorted.removeIf(e -> Double.isNaN(e.getValue()));
        sorted.sort(Map.Entry.comparingByValue());
        StringBuilder order = new StringBuilder();
        for (Map.Entry<Role, Double> e : sorted) {
            order.append(order.length() == 0 ? "" : " < ").append(e.getKey().paperName).append(" (")
                    .append(String.format(Locale.ROOT, "%,.0f", e.getValue())).append(")");
        }
        return "**Ordering on " + model + "** (bytes per node per step, LGC-PS as its mean rank): " + order
                + ". Against the paper's LGC-PS < LGC-RAR < DGC ≈ Sparse GD < ScaleCom < Baseline: "
                + (checks.isEmpty() ? "no pair of the paper's methods ran." : String.join("; ", checks) + ".");
    }

    private static void relation(List<String> checks, Map<Role, Double> bytes, Role a, Role b, boolean about) {
        Double x = bytes.get(a);
        Double y = bytes.get(b);
        if (x == null || y == null || x.isNaN() || y.isNaN()) {
            return;
        }
        boolean holds = about ? Math.abs(x - y) <= ABOUT_EQUAL * Math.max(x, y) : x < y;
        checks.add(String.format(Locale.ROOT, "%s %s %s %s (%,.0f vs %,.0f B, %.2f×)", a.paperName,
                about ? "≈" : "<", b.paperName, holds ? "holds" : "**does not hold**", x, y, x / y));
    }

    /** "seed 42" or "seeds 42, 43, 44": the seeds the runs used, in order. */
    static String seeds(List<SuiteRuns.Finished> runs) {
        List<Long> seeds = runs.stream().map(r -> r.planned().seed()).distinct().toList();
        return (seeds.size() == 1 ? "seed " : "seeds ")
                + String.join(", ", seeds.stream().map(String::valueOf).toList());
    }

    /** The common settings of the runs, from the first run's config. */
    static String describe(List<SuiteRuns.Finished> runs) {
        if (runs.isEmpty()) {
            return "none";
        }
        ExperimentConfig c = runs.get(0).planned().config();
        return String.format(Locale.ROOT, "Fashion-MNIST (%s training images, %s test images), K = %d workers ×"
                        + " batch %d, %s, compressors at ratio %s%s, %s",
                c.data().trainLimit() == 0 ? "all 60,000" : "the first " + c.data().trainLimit(),
                c.data().testLimit() == 0 ? "all 10,000" : "the first " + c.data().testLimit(),
                c.training().workers(), c.training().batchSizePerWorker(),
                c.training().maxSteps() > 0 ? "at most " + c.training().maxSteps() + " steps"
                        : c.training().epochs() + " epoch(s)",
                c.compressor().ratio(), runs.stream().anyMatch(r -> r.planned().config().compressor().type().toString()
                        .equals("powersgd")) ? " (PowerSGD sends the factors of the rank its label names instead)" : "",
                seeds(runs));
    }
}

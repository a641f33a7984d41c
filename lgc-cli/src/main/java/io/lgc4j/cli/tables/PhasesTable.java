package io.lgc4j.cli.tables;

import io.lgc4j.core.metrics.Phase;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.runner.RunSummary;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code lgc table phases}: the analog of seeds/003 Table V, the duration of one iteration in each stage (FULL, TOP_K
 * while the autoencoder trains, COMPRESSED) for every method of the suite (LGC-PS and LGC-RAR), with the time split
 * into the trainer's phases: compute (forward and backward), select (top-k), encode, communicate, decode, apply, and
 * the wait for the CPU (in the in-process cluster the K ranks take turns on the cores).
 */
public final class PhasesTable {

    private static final Stage[] STAGES = {Stage.FULL, Stage.TOP_K, Stage.COMPRESSED};
    private static final Phase[] PHASES = {Phase.COMPUTE, Phase.SELECT, Phase.ENCODE, Phase.COMMUNICATE,
        Phase.DECODE, Phase.APPLY, Phase.CPU_WAIT};

    private PhasesTable() {
    }

    /** Builds the table, the PNG and the report from finished runs and writes them into {@code out}. */
    public static void write(Suite suite, Suite.Profile profile, String commandLine, List<SuiteRuns.Finished> runs,
                             Path out) throws IOException {
        List<Table.Column> columns = new ArrayList<>(List.of(Table.column("model", "model"),
                Table.column("method", "method"), Table.column("stage", "stage"), Table.column("steps", "steps"),
                Table.column("sent_bytes_per_step", "sent (B / worker / step)"),
                Table.timing("iteration_s", "iteration (s)")));
        for (Phase phase : PHASES) {
            String p = phase.name().toLowerCase(Locale.ROOT);
            columns.add(Table.timing(p + "_s", p.replace('_', ' ') + " (s)"));
        }
        Table table = new Table(columns);
        Map<String, double[]> wall = new LinkedHashMap<>();
        List<String> findings = new ArrayList<>();
        for (SuiteRuns.Finished run : runs) {
            RunSummary s = run.summary();
            double[] perStage = new double[STAGES.length];
            StringBuilder speed = new StringBuilder();
            for (int i = 0; i < STAGES.length; i++) {
                Stage stage = STAGES[i];
                long steps = Summaries.steps(s, stage);
                perStage[i] = Double.NaN;
                if (steps == 0) {
                    continue;
                }
                List<String> row = new ArrayList<>(List.of(run.planned().model(), run.planned().label(),
                        stage.name(), String.valueOf(steps),
                        Table.number(Summaries.sent(s, stage, Summaries.EVERY_WORKER).information(), 1),
                        Table.number(Summaries.wallSeconds(s, stage), 3)));
                for (Phase p : PHASES) {
                    row.add(Table.number(Summaries.seconds(s, stage, p), 3));
                }
                table.add(row.toArray(String[]::new));
                perStage[i] = Summaries.wallSeconds(s, stage);
            }
            if (!Double.isNaN(perStage[0]) && !Double.isNaN(perStage[2])) {
                speed.append(String.format(Locale.ROOT, "%s on %s: a TOP_K iteration takes %.2f× a FULL one and"
                                + " a COMPRESSED one %.2f× (the paper, ResNet50 on ImageNet with 8 nodes: PS 1.6× and"
                                + " 0.6×, ring 0.9× and 0.4×).", run.planned().label(), run.planned().model(),
                        perStage[1] / perStage[0], perStage[2] / perStage[0]));
                findings.add(speed.toString());
            }
            wall.put(run.planned().label() + " (" + run.planned().model() + ")", perStage);
        }
        Charts.bars("Time per iteration by stage", "stage", "seconds per iteration",
                Arrays.stream(STAGES).map(Stage::name).toList(), wall, false, out.resolve("phases.png"));
        List<String> intro = List.of("Every run: " + CompressionTable.describe(runs) + ". Times are means over the"
                + " stage's steps of the trainer's per-phase clocks, in seconds. The cluster is in-process on this"
                + " machine's cores: the K ranks' forward and backward passes take turns on the CPU (a step's"
                + " compute is K passes, the wait shows as cpu wait) and communication is a memory copy of the"
                + " encoded frames, so the iteration time is dominated by compute and the stages differ by what"
                + " they add to it: the top-k selection and the autoencoder's training (TOP_K), its encoding and"
                + " decoding (COMPRESSED). Compare within a table; the timing columns vary with the machine's load.");
        findings.add("Sent bytes are the same per-step information as in `lgc table compression` (weights"
                + " shipments excluded).");
        new Report(suite, profile, commandLine, intro, table,
                Map.of("phases.png", "Seconds per iteration in each stage, by method"), findings)
                .write(out, runs, Map.of());
    }
}

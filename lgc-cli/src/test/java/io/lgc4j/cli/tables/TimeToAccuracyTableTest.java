package io.lgc4j.cli.tables;

import io.lgc4j.cli.netem.LinkProbe;
import io.lgc4j.cli.netem.LinkShape;
import io.lgc4j.runner.RunSummary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The time-to-accuracy table from hand-made runs whose figures are known: time to the target without rank 0's
 * evaluations, the time at the PyTorch peer's compute, the per-stage split without the steps that waited for an
 * evaluation, and the crossover against dense ring (not merely the first method).
 */
class TimeToAccuracyTableTest {

    private static final String SUITE = """
            suite: time-to-accuracy
            title: test
            models: [small-cnn]
            base:
              training: {workers: 2, epochs: 1, evalEverySteps: 2}
            methods:
              - {id: lgc, label: LGC, config: {compressor: {type: topk}}}
              - {id: dense-ring, label: Dense ring, config: {compressor: {type: none}}}
            network: {rates: [unshaped, 10mbit], cpuPerProcess: 0.5, targetAccuracy: 0.8}
            peers: [{id: ddp-dense, method: dense}]
            """;

    /**
     * A run of 4 steps with 2 workers, evaluated after steps 2 and 4 (accuracy 0.7, then 0.85), each step taking
     * {@code wallMs} of rank 0's clock besides its evaluation, {@code computeMs} of it compute; stages as given. Rank
     * 0's evaluation takes 200 ms: {@code evaluate_ms}, a mean over the 2 workers, says 100, and in the step after it
     * the other rank waits 200 ms in its exchange, 100 ms more communicate on average (as a network run records it).
     */
    private static SuiteRuns.Finished run(Path dir, Suite.PlannedRun planned, double wallMs, double computeMs,
                                          String... stages) throws IOException {
        StringBuilder csv = new StringBuilder("step,epoch,stage,loss,test_accuracy,compute_ms,select_ms,encode_ms,"
                + "communicate_ms,decode_ms,apply_ms,evaluate_ms,wall_ms,bytes_sent_w0,bytes_sent_w1\n");
        for (int i = 0; i < 4; i++) {
            boolean eval = i % 2 == 1;
            boolean afterEval = i == 2;
            csv.append(String.format(java.util.Locale.ROOT, "%d,0,%s,1.0,%s,%s,1,2,%s,3,4,%s,%s,1000,3000%n", i,
                    stages[i], eval ? (i == 1 ? "0.7" : "0.85") : "", computeMs,
                    wallMs - computeMs - 10 + (afterEval ? 100 : 0), eval ? "100" : "0", wallMs + (eval ? 200 : 0)));
        }
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("metrics.csv"), csv);
        RunSummary summary = new RunSummary(planned.key(), "ring", 2, 4, 0.85, 1.0, List.of(4000L, 12000L),
                List.of(4000L, 1_000_000L), 1000, "none", Map.of(), null, 4 * wallMs + 400, 10, null, null, null, null);
        return new SuiteRuns.Finished(planned, dir, summary, false);
    }

    /** The peer: 4 steps, 80% after step 4 at {@code trainS}, 20 ms compute per step. */
    private static PeerRun peer(Path dir, TimeToAccuracySettings.Peer p, double trainS) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("evals.jsonl"), String.format(java.util.Locale.ROOT, """
                {"step": 0, "train_s": 0.0, "test_accuracy": 0.1}
                {"step": 2, "train_s": %s, "test_accuracy": 0.6}
                {"step": 4, "train_s": %s, "test_accuracy": 0.81}
                """, trainS / 2, trainS));
        Files.writeString(dir.resolve("summary.json"), String.format(java.util.Locale.ROOT, """
                {"steps": 4, "final_test_accuracy": 0.81, "train_s": %s, "wall_s": %s, "bytes_per_rank_total": 8000,
                 "compute_s_mean": 0.02, "comm_s_mean": 0.01, "step_s_mean": 0.05}
                """, trainS, trainS + 1));
        return new PeerRun(p, dir, false);
    }

    @Test
    void shouldTakeOutEvaluationsPutComputeOnEqualTermsSplitTheStagesAndCrossAgainstDenseRing(@TempDir Path tmp)
            throws IOException {
        Path file = tmp.resolve("suite.yaml");
        Files.writeString(file, SUITE);
        Suite suite = SuiteLoader.load(file, SuiteKind.TIME_TO_ACCURACY);
        List<Suite.PlannedRun> plan = suite.plan(Suite.Profile.FULL);
        assertEquals(List.of("lgc", "dense-ring"), plan.stream().map(Suite.PlannedRun::methodId).toList());
        TimeToAccuracySettings.Peer ddp = suite.timeToAccuracy().peers().get(0);
        List<TimeToAccuracyTable.RateResult> rates = new ArrayList<>();
        // unshaped: both 100 ms a step; 10mbit: LGC 200 ms, dense ring 500 ms. Compute 60 ms (LGC), 40 ms (dense).
        double[][] wall = {{100, 100}, {200, 500}};
        for (int r = 0; r < 2; r++) {
            LinkShape shape = suite.timeToAccuracy().rates(Suite.Profile.FULL).get(r);
            Path at = tmp.resolve("out").resolve(shape.label());
            rates.add(new TimeToAccuracyTable.RateResult(shape, new LinkProbe.Result(r == 0 ? 1_000_000_000L
                    : 10_000_000L, 1.0), Map.of(), List.of(
                    run(at.resolve("lgc"), plan.get(0), wall[r][0], 60, "FULL", "FULL", "COMPRESSED", "COMPRESSED"),
                    run(at.resolve("dense"), plan.get(1), wall[r][1], 40, "FULL", "FULL", "FULL", "FULL")),
                    List.of(peer(at.resolve("ddp"), ddp, r == 0 ? 0.2 : 0.6)), null));
        }

        TimeToAccuracyTable.write(suite, Suite.Profile.FULL, "lgc table time-to-accuracy", rates,
                tmp.resolve("out"));

        List<String> csv = Files.readAllLines(tmp.resolve("out/table.csv"));
        assertTrue(csv.get(0).startsWith("link,measured_mbit_s,method,steps,time_to_target_s,"
                + "time_at_peer_compute_s,final_accuracy"), csv.get(0));
        // LGC at 10mbit: 80% at step 4, 4 × 200 ms = 0.8 s without the evaluations; at PyTorch's 20 ms:
        // 0.8 − 4 × 0.06 + 4 × 0.02 = 0.64 s; phase means over steps 1 and 3 (0 is the first, 2 waited for rank 0)
        // its floor: 4 × 60 ms + 8000 B (a worker's mean) × 8 / 80 Mbit/s = 0.2408 s, 0.8 / 0.2408 = 3.32× it;
        // the busiest link's: 1 MB (endpoint 1 received it) instead: 0.24 + 0.1 = 0.34 s, 2.35×
        assertTrue(csv.contains("10mbit,80.0,LGC,4,0.8,0.6,0.8500,,0.8,1.2,0.01,60.0,3.0,130.0,3.0,4.0,200.0,"
                + "0.2,3.32,0.3,2.35"), String.join("\n", csv));
        // dense ring at 10mbit: 2.0 − 4 × 0.04 + 4 × 0.02 = 1.92 s; the peer stays as measured
        assertTrue(csv.contains("10mbit,80.0,Dense ring,4,2.0,1.9,0.8500,,2.0,2.4,0.01,40.0,3.0,450.0,3.0,4.0,500.0,"
                + "0.2,12.44,0.3,7.69"), String.join("\n", csv));
        // the peer: 4 × 20 ms + 8000 B × 8 / 80 Mbit/s = 0.0808 s, 0.6 / 0.0808 = 7.43×; its bytes are per rank
        assertTrue(csv.stream().anyMatch(l -> l.startsWith("10mbit,80.0,ddp-dense,") && l.endsWith(
                ",0.1,7.43,0.1,7.43")), String.join("\n", csv));
        assertTrue(csv.stream().anyMatch(l -> l.startsWith("10mbit,80.0,ddp-dense,4,0.6,0.6,0.8100,")),
                String.join("\n", csv));

        assertEquals(List.of("link,method,stage,steps,train_s,compute_ms,encode_ms,communicate_ms,decode_ms,apply_ms,"
                        + "sent_kb_per_step",
                "unshaped,LGC,FULL,2,0.2,60.0,3.0,30.0,3.0,4.0,2.0",
                "unshaped,LGC,COMPRESSED,2,0.2,60.0,3.0,30.0,3.0,4.0,2.0",
                "unshaped,Dense ring,FULL,4,0.4,40.0,3.0,50.0,3.0,4.0,2.0",
                "10mbit,LGC,FULL,2,0.4,60.0,3.0,130.0,3.0,4.0,2.0",
                "10mbit,LGC,COMPRESSED,2,0.4,60.0,3.0,130.0,3.0,4.0,2.0",
                "10mbit,Dense ring,FULL,4,2.0,40.0,3.0,450.0,3.0,4.0,2.0"),
                Files.readAllLines(tmp.resolve("out/stages.csv")));

        String md = Files.readString(tmp.resolve("out/table.md"));
        // the baseline is dense ring although LGC comes first in the plan
        assertTrue(md.contains("(Dense ring for LGC4J, ddp-dense for PyTorch)"), md);
        assertTrue(md.contains("| Dense ring | 0.4 | 129.3 |"), md);
        assertTrue(md.contains("**Where the time went, per stage**"), md);
    }
}

package io.lgc4j.core.train;

import io.lgc4j.core.checkpoint.Checkpoint;
import io.lgc4j.core.checkpoint.CheckpointDirectory;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.checkpoint.Persistent.Regrouping;
import io.lgc4j.core.data.DataPlan;
import io.lgc4j.core.data.EpochCursor;
import io.lgc4j.core.metrics.StepMetrics;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Resume at another K, checked: a run at K saves checkpoints; from the one after step {@code after} (inside an epoch),
 * runs at each K' go on. Each must: refuse without {@code allowResize}, naming both K; keep the K run's steps before
 * the resume as they were; run the rest of that epoch at K' (every example not yet read, split by the fresh-run rule:
 * {@code ⌊(N − K·b·t) / (K'·b)⌋} steps), then whole epochs of {@code ⌊N / (K'·b)⌋}; keep its replicas identical; and be
 * resumable itself exactly — its own checkpoints (whose manifests carry the epoch cursor; the first and the last are
 * resumed) end where it ends. Returns each compressor memory's mean over the ranks before and after the regroup,
 * which the rule keeps.
 */
public final class ResizeCheck {

    private ResizeCheck() {
    }

    /**
     * One resize: the run at K' and what the regroup did to each memory section: {mean over the ranks of the element
     * sum before, after, and the mean of the absolute sums}.
     */
    public record Resized(int workers, TrainingResult result, Map<String, double[]> sums) {
    }

    /**
     * @param builder a fresh builder each call, with everything but K (the check sets K and the checkpoints)
     * @param workers K of the first run
     * @param every   a checkpoint every {@code every} steps
     * @param after   the checkpoint resumed at K' (a multiple of {@code every}, inside an epoch)
     * @param to      the K' to resume at
     */
    public static List<Resized> run(Supplier<DistributedTrainer.Builder> builder, int workers, int epochs, int every,
                                    Path dir, int after, int... to) throws IOException {
        Path full = dir.resolve("k" + workers);
        DistributedTrainer first = builder.get().workers(workers).checkpoints(full, every).build();
        TrainingResult expected = first.fit(epochs);
        Checkpoint from = CheckpointDirectory.in(full).load(after);
        int batch = first.spec().ranks().batchSize();
        long examples = first.spec().input().plan().examples();
        int perEpoch = first.stepsPerEpoch();
        assertTrue(after % perEpoch != 0, "the check resumes inside an epoch: step " + after + " of " + perEpoch);
        List<Resized> out = new ArrayList<>();
        for (int k : to) {
            String label = "K = " + workers + " → " + k + " after step " + after + ": ";
            CheckpointMismatchException refused = assertThrows(CheckpointMismatchException.class,
                    () -> builder.get().workers(k).resumeFrom(from).build());
            assertTrue(refused.getMessage().contains("the checkpoint was written by K = " + workers
                    + " workers, this run has K = " + k), refused.getMessage());
            assertTrue(refused.getMessage().contains("allowResize(true)"), refused.getMessage());

            Path mine = dir.resolve("k" + workers + "-to-" + k);
            DistributedTrainer resized = builder.get().workers(k).resumeFrom(from).allowResize(true)
                    .checkpoints(mine, every).build();
            TrainingResult result = resized.fit(epochs);

            int epoch = after / perEpoch;
            EpochCursor cursor = EpochCursor.start(epoch).after(workers, after % perEpoch);
            int rest = cursor.stepsLeft(examples, k, batch);
            int whole = DataPlan.of(examples, k, batch, 0).stepsPerEpoch();
            assertEquals(after + rest + (epochs - epoch - 1) * whole, result.steps().size(), label + "steps");
            for (int s = 0; s < after; s++) {
                assertEquals(expected.steps().get(s).loss(), result.steps().get(s).loss(), label + "step " + s);
            }
            for (int s = after; s < result.steps().size(); s++) {
                StepMetrics m = result.steps().get(s);
                int e = s < after + rest ? epoch : epoch + 1 + (s - after - rest) / whole;
                assertEquals(e, m.epoch(), label + "epoch of step " + s);
                assertEquals(k, m.workers(), label + "workers of step " + s);
                assertTrue(Double.isFinite(m.loss()), label + "loss of step " + s + ": " + m.loss());
            }
            assertEquals(k, result.replicaChecksums().size(), label + "replicas");
            assertEquals(1, result.replicaChecksums().stream().distinct().count(), label
                    + result.replicaChecksums());

            // the resized run's own checkpoints carry the cursor; two of them (the first, inside the epoch it resized
            // in, and the last before the end) resume exactly, at K' and without a resize
            CheckpointDirectory written = CheckpointDirectory.in(mine);
            List<Long> steps = written.steps().stream().filter(st -> st < result.steps().size()).toList();
            List<Long> resumedAgain = steps.isEmpty() ? List.of()
                    : List.of(steps.get(0), steps.get(steps.size() - 1)).stream().distinct().toList();
            for (long step : written.steps()) {
                Checkpoint c = written.load(step);
                assertNotNull(c.manifest().cursor(), label + "the cursor of " + c.directory());
                if (!resumedAgain.contains(step)) {
                    continue;
                }
                DistributedTrainer again = builder.get().workers(k).resumeFrom(c).checkpoints(
                        dir.resolve("again-" + k + "-" + step), every).build();
                ResumeCheck.assertSameRun(result, again.fit(epochs), label + "resumed again after step " + step
                        + ": ");
            }
            out.add(new Resized(k, result, memorySums(from, k)));
        }
        return out;
    }

    /**
     * A topology whose state cannot change size: a K run's checkpoint after step {@code after}, resumed at {@code to}
     * with {@code allowResize}, is refused before the first step with a message that starts {@code refusal}.
     */
    public static void assertRefused(Supplier<DistributedTrainer.Builder> builder, int workers, int every, Path dir,
                                     int after, int to, String refusal) throws IOException {
        Path full = dir.resolve("k" + workers);
        builder.get().workers(workers).checkpoints(full, every).maxSteps(after).build().fit(1);
        Checkpoint from = CheckpointDirectory.in(full).load(after);
        CheckpointMismatchException e = assertThrows(CheckpointMismatchException.class,
                () -> builder.get().workers(to).resumeFrom(from).allowResize(true).build());
        assertTrue(e.getMessage().startsWith(refusal), e.getMessage());
    }

    /**
     * Each error-feedback memory of {@code from}'s exchange sections (named {@code …/memory}, {@code …/residual},
     * DGC's {@code …/u} and {@code …/v}), as the regroup to {@code to} ranks leaves it: {mean over the K ranks before, mean over the K' ranks after}, per section.
     */
    static Map<String, double[]> memorySums(Checkpoint from, int to) throws IOException {
        int k = from.manifest().run().workers();
        CheckpointPart rank0 = from.rankPart(0);
        CheckpointPart rank1 = from.rankPart(k > 1 ? 1 : 0);
        Regrouping rules = Regrouping.NONE;
        List<String> memories = new ArrayList<>();
        for (String name : rank0.sectionNames()) {
            if (!name.startsWith(Checkpointing.EXCHANGE + "/")) {
                continue;
            }
            // an error-feedback memory by its name (ErrorFeedback's sections); what else differs between ranks is
            // rank 0's own beside a copy on the others (LGC-RAR's autoencoder), the same on ranks 1..K-1
            boolean memory = rank1.has(name) && name.matches(".*/(memory|residual|u|v)$");
            rules = rules.and(name, memory ? Regrouping.Rule.MEMORY : Regrouping.Rule.SHIPPED);
            if (memory) {
                memories.add(name);
            }
        }
        Regroup regroup = new Regroup(from, to, from.manifest().run().services());
        Map<String, double[]> sums = new LinkedHashMap<>();
        for (String name : memories) {
            double before = 0;
            double scale = 0;
            for (int r = 0; r < k; r++) {
                before += sum(from.rankPart(r), name, false);
                scale += sum(from.rankPart(r), name, true);
            }
            double after = 0;
            for (int r = 0; r < to; r++) {
                after += sum(regroup.rankPart(r, rules), name, false);
            }
            sums.put(name, new double[] {before / k, after / to, scale / k});
        }
        return sums;
    }

    private static double sum(CheckpointPart part, String name, boolean absolute) throws IOException {
        float[] v = part.floats(name, part.sectionLength(name) / Float.BYTES);
        double s = 0;
        for (float x : v) {
            s += absolute ? Math.abs(x) : x;
        }
        return s;
    }

    /**
     * Every memory's mean over the ranks is what it was, to the float32 rounding of each element (each section's
     * {mean before, mean after, mean of the absolute sums} from {@link #memorySums}); at least one memory checked.
     */
    public static void assertMeansKept(List<Resized> runs, String label) {
        for (Resized r : runs) {
            assertTrue(!r.sums().isEmpty(), label + ": a memory to regroup");
            r.sums().forEach((name, s) -> assertEquals(s[0], s[1], 1e-6 * s[2] + 1e-30,
                    label + " K' = " + r.workers() + ", " + name + ": the mean over the ranks (of |m|: " + s[2] + ")"));
        }
    }
}

package io.lgc4j.core.train;

import io.lgc4j.core.checkpoint.Checkpoint;
import io.lgc4j.core.checkpoint.CheckpointDirectory;
import io.lgc4j.core.metrics.StepMetrics;
import org.nd4j.linalg.dataset.DataSet;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Exact resume, checked: a run that saves checkpoints, then runs resumed from some of them, each of which must end
 * exactly where the uninterrupted run ends — every replica's parameters, every step's non-timing metrics (stage,
 * loss, accuracy, bytes per endpoint by kind, notes), the run's byte totals and the final accuracy.
 *
 * <pre>{@code
 * ResumeCheck.run(() -> builder(topology()), 1, tempDir, 6, 12);
 * }</pre>
 */
public final class ResumeCheck {

    private ResumeCheck() {
    }

    /**
     * Trains {@code builder.get()} for {@code epochs} with a checkpoint every {@code every} steps into
     * {@code dir/full}, then resumes a fresh {@code builder.get()} from each of {@code resumeAfter} (steps done
     * before the resume) and compares.
     *
     * @param builder a fresh trainer builder each call (model, data, topology and settings as for one run)
     * @return the uninterrupted run's result
     */
    public static TrainingResult run(Supplier<DistributedTrainer.Builder> builder, int epochs, int every, Path dir,
                                     int... resumeAfter) throws IOException {
        Path full = dir.resolve("full");
        CheckpointDirectory checkpoints = CheckpointDirectory.in(full);
        List<Integer> synced = new ArrayList<>();
        TrainingListener sync = new TrainingListener() {
            @Override
            public void onStep(StepMetrics metrics) {
            }

            @Override
            public void onCheckpoint(int step) {
                try {
                    assertTrue(checkpoints.latest().map(Checkpoint::nextStep).orElse(0L) <= step,
                            "listeners sync before the manifest of the checkpoint after step " + step);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
                synced.add(step);
            }
        };
        DistributedTrainer uninterrupted = builder.get().checkpoints(full, every).listener(sync).build();
        TrainingResult expected = uninterrupted.fit(epochs);
        List<Long> steps = checkpoints.steps();
        assertEquals(steps.stream().map(s -> (int) (s - 1)).toList(), synced, "a sync before every checkpoint");
        for (long step : steps) {
            Checkpoint c = checkpoints.load(step);
            assertTrue(holdsReplica(c.rankPart(0)), "rank 0's part holds the replica");
            for (int r = 1; r < c.manifest().run().workers(); r++) {
                assertFalse(holdsReplica(c.rankPart(r)), "one replica per checkpoint, not in rank " + r + "'s part");
            }
        }
        for (int after : resumeAfter) {
            assertTrue(steps.contains((long) after), "a checkpoint after step " + after + " among " + steps);
            Checkpoint from = checkpoints.load(after);
            DistributedTrainer resumed = builder.get().resumeFrom(from).checkpoints(dir.resolve("from-" + after),
                    every).build();
            TrainingResult actual = resumed.fit(epochs);
            String label = "resumed after step " + after + ": ";
            assertSameRun(expected, actual, label);
            List<ReplicaModel> a = uninterrupted.replicas();
            List<ReplicaModel> b = resumed.replicas();
            for (int r = 0; r < a.size(); r++) {
                assertArrayEquals(a.get(r).params().toFloatVector(), b.get(r).params().toFloatVector(),
                        label + "replica " + r);
            }
            // the resumed run's own last checkpoint is the uninterrupted run's, part for part but for timing
            long last = steps.get(steps.size() - 1);
            Checkpoint mine = CheckpointDirectory.in(dir.resolve("from-" + after)).load(last);
            assertEquals(checkpoints.load(last).manifest().run(), mine.manifest().run(), label + "signature");
        }
        return expected;
    }

    /**
     * A checkpoint is complete when its step ends, whatever the topology (services included): {@code builder} trained
     * at K = 3, batches of 8, seed 5, with a checkpoint every 3 steps, its rank 0 diverging in step 6 (its batch there
     * all NaN, so its gradient is not finite and the run fails before that step's exchange), leaves the checkpoint
     * after step 5, manifest included, for a restart: a restart loses at most E − 1 completed steps of E =
     * {@code checkpointEverySteps}.
     *
     * @param builder the model, the topology and its stages; this sets the data, K, the batch, the seed and the
     *                checkpoints
     */
    public static void assertCompleteWhenItsStepEnds(DistributedTrainer.Builder builder, Path dir)
            throws IOException {
        assertCompleteWhenItsStepEnds(builder, dir, 6);
    }

    /**
     * As {@link #assertCompleteWhenItsStepEnds(DistributedTrainer.Builder, Path)}, rank 0 diverging in step
     * {@code diverging}: the checkpoint after step 5 is the latest complete one for a step 6, 7 or 8.
     */
    public static void assertCompleteWhenItsStepEnds(DistributedTrainer.Builder builder, Path dir, int diverging)
            throws IOException {
        int workers = 3;
        int batch = 8;
        int seed = 5;
        DataSet data = TestModels.data(workers * batch * 12, 3);
        for (int row : new ShardPlan(data.numExamples(), workers, batch, seed).batch(0, diverging, 0)) {
            data.getFeatures().getRow(row).assign(Float.NaN);
        }
        DistributedTrainer trainer = builder.data(data).workers(workers).batchSizePerWorker(batch).seed(seed)
                .checkpoints(dir, 3).build();
        NonFiniteGradientException e = assertThrows(NonFiniteGradientException.class, () -> trainer.fit(1));
        assertTrue(e.getMessage().startsWith("rank 0 step " + diverging + ":"), e.getMessage());
        CheckpointDirectory checkpoints = CheckpointDirectory.in(dir);
        assertEquals(Optional.of((long) (diverging / 3 * 3)), checkpoints.latest().map(Checkpoint::nextStep),
                "the latest complete checkpoint, among " + checkpoints.steps());
    }

    private static boolean holdsReplica(io.lgc4j.core.checkpoint.CheckpointPart part) {
        return part.sectionNames().stream().anyMatch(n -> n.startsWith("replica/"));
    }

    /** The same run but for timing: steps, metrics, bytes, accuracy and replica checksums. */
    public static void assertSameRun(TrainingResult expected, TrainingResult actual, String label) {
        assertEquals(expected.steps().size(), actual.steps().size(), label + "steps");
        for (int i = 0; i < expected.steps().size(); i++) {
            StepMetrics e = expected.steps().get(i);
            StepMetrics a = actual.steps().get(i);
            String at = label + "step " + e.step() + " ";
            assertEquals(e.step(), a.step(), at + "number");
            assertEquals(e.epoch(), a.epoch(), at + "epoch");
            assertEquals(e.stage(), a.stage(), at + "stage");
            assertEquals(e.loss(), a.loss(), at + "loss");
            assertEquals(e.testAccuracy(), a.testAccuracy(), at + "accuracy");
            assertEquals(e.notes(), a.notes(), at + "notes");
            for (int p = 0; p < e.traffic().endpoints(); p++) {
                assertArrayEquals(e.traffic().row(p), a.traffic().row(p), at + "traffic of endpoint " + p);
            }
        }
        for (int p = 0; p < expected.traffic().endpoints(); p++) {
            assertArrayEquals(expected.traffic().row(p), actual.traffic().row(p), label + "total traffic of " + p);
        }
        assertEquals(expected.finalAccuracy(), actual.finalAccuracy(), label + "final accuracy");
        assertEquals(expected.replicaChecksums(), actual.replicaChecksums(), label + "replica checksums");
    }
}

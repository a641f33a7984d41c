package io.lgc4j.core.train;

import io.lgc4j.core.comm.Direction;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.compress.Compressor;
import io.lgc4j.core.compress.LowRankCompressor;
import io.lgc4j.core.compress.PowerSgdCompressor;
import io.lgc4j.core.compress.ScaleComCompressor;
import io.lgc4j.core.compress.TopKCompressor;
import io.lgc4j.core.metrics.StepMetrics;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.core.warmup.Warmup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.learning.config.Sgd;

import java.nio.file.Path;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The contract of a topology's compressed warm-up ({@link Warmup}, issue 41 item 3), which every topology that takes
 * one runs: its FULL steps through a compressor that sends everything train like its dense FULL steps; with a sparse
 * warm-up the replicas stay bit-identical, the FULL steps send the warm-up's payload (fewer value bytes than dense),
 * and the later stages run as before; the warm-up's residual, carried, changes the run from the switch on only; a
 * dense warm-up in fp16 or bf16 halves the FULL steps' value bytes; and a run
 * resumed inside the warm-up or after the switch ends exactly where the uninterrupted run ends (the warm-up's
 * memory is checkpointed, and absorbed by the main method's once).
 */
public abstract class WarmupContract {

    /** Steps of FULL in the runs of {@link #stages()}' default. */
    protected static final int FULL_STEPS = 8;

    /** The topology under test, its main method fixed, with {@code warmup} as its FULL stage. */
    protected abstract Topology topology(Warmup warmup);

    /** The schedule of the runs that cross the switch: {@link #FULL_STEPS} of FULL first. */
    protected StageSchedule stages() {
        return StageSchedule.denseWarmup(FULL_STEPS);
    }

    /**
     * Whether this topology runs the checks of the warm-up exchange itself (lossless payloads, the dense warm-up in
     * bf16, a sparse warm-up besides PowerSGD): a topology that builds its FULL stage from the generic parameter
     * server's or ring's (the LGC topologies) answers false, and runs the rest with PowerSGD (the switch into its own
     * stages, resume).
     */
    protected boolean ownsWarmupExchange() {
        return true;
    }

    static Stream<Arguments> lossless() {
        // one of each kind of payload: a gather-only sparse set, a shared support, low-rank factors
        return Stream.of(Arguments.of(new TopKCompressor(1.0)), Arguments.of(new ScaleComCompressor(1.0, 1.0)),
                Arguments.of(new PowerSgdCompressor(new PowerSgdCompressor.Settings(12, 0, true, true), 3)));
    }

    static Stream<Arguments> sparse() {
        return Stream.of(Arguments.of(new TopKCompressor(0.05)),
                Arguments.of(new PowerSgdCompressor(new PowerSgdCompressor.Settings(1), 3)));
    }

    /** A FULL stage that sends everything (any kind of payload) trains like the dense FULL stage. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("lossless")
    void shouldTrainLikeTheDenseWarmupWhenTheWarmupSendsEverything(Compressor compressor) {
        assumeTrue(ownsWarmupExchange(), "the FULL stage is the generic topology's, checked there");
        DataSet data = TestModels.data(3 * 8 * 6, 6);
        float[] dense = trainAllFull(topology(Warmup.NONE), data);
        float[] warm = trainAllFull(topology(new Warmup(compressor, null, true)), data);
        for (int i = 0; i < dense.length; i++) {
            assertEquals(dense[i], warm[i], 1e-5f * (1 + Math.abs(dense[i])), "parameter " + i);
        }
    }

    /**
     * A sparse warm-up: K = 4 replicas stay bit-identical through the warm-up and the stages after it; each FULL step
     * sends fewer value bytes than the dense warm-up's, and the first step after the switch is in the next stage.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("sparse")
    void shouldSendTheWarmupsPayloadInFullAndKeepReplicasBitIdentical(Compressor compressor) {
        assumeTrue(ownsWarmupExchange() || compressor instanceof LowRankCompressor, "a topology with the generic"
                + " FULL stage runs the suite's warm-up (PowerSGD) only");
        TrainingResult dense = run(topology(Warmup.NONE), 4);
        DistributedTrainer trainer = trainer(topology(new Warmup(compressor, null, true)), 4);
        TrainingResult warm = trainer.fit(1);
        float[] rank0 = trainer.replicas().get(0).params().toFloatVector();
        for (int r = 1; r < 4; r++) {
            assertArrayEquals(rank0, trainer.replicas().get(r).params().toFloatVector(), "replica " + r);
        }
        for (int s = 0; s < FULL_STEPS; s++) {
            assertEquals(Stage.FULL, warm.steps().get(s).stage(), "step " + s);
            long denseBytes = valuesSent(dense.steps().get(s));
            long warmBytes = valuesSent(warm.steps().get(s));
            assertTrue(warmBytes < denseBytes, "step " + s + ": " + warmBytes + " value bytes, dense " + denseBytes);
        }
        assertEquals(stages().stageAt(FULL_STEPS), warm.steps().get(FULL_STEPS).stage());
        assertTrue(Double.isFinite(warm.steps().get(warm.steps().size() - 1).loss()));
    }

    /**
     * {@code carryMemory} reaches the main method through the topology: with and without it a run is the same through
     * the warm-up (every loss up to the first step after the switch, whose update is the first to differ), and the
     * parameters differ after it, the main compressor having sent part of the warm-up's residual.
     */
    @Test
    void carryMemoryShouldChangeTheRunFromTheFirstStepAfterTheSwitchOnly() {
        Compressor powerSgd = new PowerSgdCompressor(new PowerSgdCompressor.Settings(1), 3);
        DistributedTrainer carried = trainer(topology(new Warmup(powerSgd, null, true)), 3, FULL_STEPS + 2);
        DistributedTrainer dropped = trainer(topology(new Warmup(powerSgd, null, false)), 3, FULL_STEPS + 2);
        TrainingResult a = carried.fit(1);
        TrainingResult b = dropped.fit(1);
        for (int s = 0; s <= FULL_STEPS; s++) {
            assertEquals(a.steps().get(s).loss(), b.steps().get(s).loss(), "loss of step " + s);
        }
        assertFalse(java.util.Arrays.equals(carried.replicas().get(0).params().toFloatVector(),
                dropped.replicas().get(0).params().toFloatVector()), "the carried residual changed nothing");
    }

    /** A dense warm-up in bf16 (the run's values fp32): each FULL step's value bytes are half the fp32 ones. */
    @Test
    void shouldHalveTheFullStepsValueBytesWithABf16Warmup() {
        assumeTrue(ownsWarmupExchange(), "the FULL stage is the generic topology's, checked there");
        TrainingResult fp32 = run(topology(Warmup.NONE), 3);
        TrainingResult bf16 = run(topology(new Warmup(null, ValueEncoding.BF16, true)), 3);
        for (int s = 0; s < FULL_STEPS; s++) {
            assertEquals(valuesSent(fp32.steps().get(s)) / 2, valuesSent(bf16.steps().get(s)), "step " + s);
        }
        assertEquals(valuesSent(fp32.steps().get(FULL_STEPS)), valuesSent(bf16.steps().get(FULL_STEPS)),
                "the first step after the switch is the run's own");
    }

    /**
     * Resumed inside the warm-up (after step 4: the resumed run crosses the switch) and after it (after step 10: the
     * residual was absorbed before the checkpoint, and is not again), a K = 3 run of 12 steps with a PowerSGD warm-up (its memory and warm-start Qs checkpointed under
     * {@code exchange/warmup}, its memory absorbed at the switch) ends exactly where it ends uninterrupted.
     */
    @Test
    void shouldResumeExactlyInsideTheWarmupAndAfterTheSwitch(@TempDir Path dir) throws Exception {
        Warmup warmup = new Warmup(new PowerSgdCompressor(new PowerSgdCompressor.Settings(1), 3), null, true);
        ResumeCheck.run(() -> DistributedTrainer.builder().model(TestModels.mlp(13, new Sgd(0.1)))
                .data(TestModels.data(3 * 8 * 12, 7)).workers(3).batchSizePerWorker(8).topology(topology(warmup))
                .seed(2).stages(stages()), 1, 2, dir, 4, 10);
    }

    private TrainingResult run(Topology topology, int workers) {
        return trainer(topology, workers).fit(1);
    }

    private DistributedTrainer trainer(Topology topology, int workers) {
        return trainer(topology, workers, 14);
    }

    private DistributedTrainer trainer(Topology topology, int workers, int steps) {
        return DistributedTrainer.builder().model(TestModels.mlp(13, new Sgd(0.1)))
                .data(TestModels.data(workers * 8 * steps, 7)).workers(workers).batchSizePerWorker(8)
                .topology(topology).seed(2).stages(stages()).build();
    }

    private static float[] trainAllFull(Topology topology, DataSet data) {
        DistributedTrainer trainer = DistributedTrainer.builder().model(TestModels.mlp(17, new Sgd(0.1))).data(data)
                .stages(StageSchedule.ALWAYS_FULL).workers(3).batchSizePerWorker(8).topology(topology).seed(4)
                .build();
        trainer.fit(1);
        return trainer.replicas().get(0).params().toFloatVector();
    }

    /** Value bytes the workers sent in a step (every kind of float payload: VALUES frames). */
    private static long valuesSent(StepMetrics m) {
        long bytes = 0;
        for (int w = 0; w < m.workers(); w++) {
            bytes += m.traffic().bytes(w, Direction.SENT, TrafficKind.VALUES);
        }
        return bytes;
    }
}

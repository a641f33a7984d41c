package io.lgc4j.lgc.ring;

import io.lgc4j.lgc.autoencoder.AeTraining;
import io.lgc4j.lgc.LgcAblation;
import io.lgc4j.lgc.LgcControl;
import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.comm.Direction;
import io.lgc4j.core.compress.ScaleComCompressor;
import io.lgc4j.core.metrics.StepNotes;
import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.core.train.DistributedTrainer;
import io.lgc4j.core.train.TestModels;
import io.lgc4j.core.train.Topology;
import io.lgc4j.core.train.TrainingResult;
import io.lgc4j.ring.topology.RingTopology;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.learning.config.Sgd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The diagnostic mode on the ring: LGC-RAR's run is the same with it, its TOP_K steps and ScaleCom's (values on one
 * support, summed exactly) measure as exact, its compressed steps as lossy, and a zero-latent control's as what
 * the decoders make of nothing. The small MLP of {@link LgcRingAblationTest}, K = 3: FULL 3, TOP_K 6, COMPRESSED 7.
 */
class RingDiagnosticModeTest {

    private static final int K = 3;
    private static final int FULL = 3;
    private static final int TOP_K = 6;
    private static final int STEPS = 16;
    private static final double RATIO = 0.05;
    private static final LgcControl PLAIN = new LgcControl(0, 2, 3, 4, false, true, 0.1);

    private static TrainingResult run(Topology topology, boolean diagnostics) {
        DistributedTrainer trainer = DistributedTrainer.builder().model(TestModels.mlp(5, new Sgd(0.1)))
                .data(TestModels.data(K * 8 * STEPS, 3)).workers(K).batchSizePerWorker(8).topology(topology)
                .seed(5).stages(new StageSchedule(FULL, TOP_K)).diagnostics(diagnostics).build();
        TrainingResult result = trainer.fit(1);
        assertEquals(STEPS, result.steps().size());
        return result;
    }

    private static LgcRingTopology lgcRar(LgcControl control) {
        return new LgcRingTopology(RATIO, IndexCodecs.defaultCodec(), LgcRingAblationTest.SMALL, AeTraining.DEFAULT,
                42, control);
    }

    @Test
    void lgcRarShouldRunTheSameAndMeasureItsStages() {
        TrainingResult plain = run(lgcRar(PLAIN), false);
        TrainingResult diagnosed = run(lgcRar(PLAIN), true);
        assertEquals(plain.replicaChecksums(), diagnosed.replicaChecksums());
        assertEquals(plain.traffic().bytes(0, Direction.SENT), diagnosed.traffic().bytes(0, Direction.SENT));
        for (int s = 0; s < STEPS; s++) {
            assertEquals(plain.steps().get(s).loss(), diagnosed.steps().get(s).loss(), "loss of step " + s);
            double err = diagnosed.steps().get(s).note(StepNotes.APPLIED_REL_ERR);
            if (s < FULL + TOP_K) {
                assertEquals(0.0, err, 1e-6, "exact values in step " + s);
            } else {
                assertTrue(err > 1e-3, "the autoencoder is lossy: step " + s + ": " + err);
            }
        }
    }

    @Test
    void aZeroLatentControlShouldMeasureAsTheDecodersOutputOfNothing() {
        TrainingResult control = run(lgcRar(PLAIN.withAblation(LgcAblation.ZERO_LATENT)), true);
        TrainingResult frozen = run(lgcRar(PLAIN.withAblation(LgcAblation.LEARNED_FROZEN)), true);
        for (int s = FULL + TOP_K; s < STEPS; s++) {
            assertTrue(control.steps().get(s).note(StepNotes.APPLIED_REL_ERR) > 1e-3, "step " + s);
            assertEquals(1.0, frozen.steps().get(s).note(StepNotes.APPLIED_REL_ERR), "step " + s);
            assertEquals(0.0, frozen.steps().get(s).note(StepNotes.APPLIED_COS_ALL), "step " + s);
        }
    }

    @Test
    void scaleComsSharedSupportShouldMeasureAsExact() {
        TrainingResult result = run(new RingTopology(new ScaleComCompressor(RATIO, 0.1)), true);
        for (int s = FULL; s < STEPS; s++) {
            assertEquals(0.0, result.steps().get(s).note(StepNotes.APPLIED_REL_ERR), 1e-6, "step " + s);
            assertEquals(1.0, result.steps().get(s).note(StepNotes.APPLIED_COS), 1e-9, "step " + s);
        }
    }
}

package io.lgc4j.lgc.ps;

import io.lgc4j.lgc.LgcAblation;
import io.lgc4j.lgc.LgcControl;
import io.lgc4j.lgc.support.CompactLayout;
import io.lgc4j.lgc.support.LgcSupportCompressor;
import io.lgc4j.core.compress.PowerSgdCompressor;
import io.lgc4j.core.compress.S2SketchCompressor;
import io.lgc4j.core.compress.TopKCompressor;
import io.lgc4j.core.comm.Direction;
import io.lgc4j.core.metrics.StepMetrics;
import io.lgc4j.core.metrics.StepNotes;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.core.train.DistributedTrainer;
import io.lgc4j.core.train.RecordingTopology;
import io.lgc4j.core.train.SupportReplay;
import io.lgc4j.core.train.TestModels;
import io.lgc4j.core.train.Topology;
import io.lgc4j.core.train.TrainingFailedException;
import io.lgc4j.core.train.TrainingResult;
import io.lgc4j.ps.topology.ParameterServerTopology;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Sgd;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The diagnostic mode ({@code DistributedTrainer.Builder#diagnostics}) on the parameter server: it changes nothing
 * the run computes or sends as training traffic; its notes say what is known by construction where values travel
 * exactly (dense steps, values on a shared support); and on LGC-PS's compressed steps its error is the one worked out again
 * from the recorded gradients ({@link SupportReplay}) and the applied update.
 *
 * <p>The small MLP of {@link LgcPsAblationTest} (layer 1 LEARNED) with K = 3: FULL for 3 steps, TOP_K for 6,
 * COMPRESSED for 7.
 */
class DiagnosticModeTest {

    private static final int K = 3;
    private static final int FULL = 3;
    private static final int TOP_K = 6;
    private static final int STEPS = 16;
    private static final double RATIO = 0.05;
    private static final long SEED = 42;
    /** The guard off and no feedback: the ranks' selection replays from their gradients alone. */
    private static final LgcControl PLAIN = new LgcControl(0, 2, 3, 4, false, true, 0.1);

    private record Run(RecordingTopology recorded, TrainingResult result, DistributedTrainer trainer) {
        double note(int step, String name) {
            return result.steps().get(step).note(name);
        }
    }

    private static Run run(Topology topology, IUpdater updater, boolean diagnostics) {
        RecordingTopology recorded = new RecordingTopology(topology);
        DistributedTrainer trainer = DistributedTrainer.builder().model(TestModels.mlp(5, updater))
                .data(TestModels.data(K * 8 * STEPS, 3)).workers(K).batchSizePerWorker(8).topology(recorded)
                .seed(5).stages(new StageSchedule(FULL, TOP_K)).diagnostics(diagnostics).build();
        TrainingResult result = trainer.fit(1);
        assertEquals(STEPS, result.steps().size());
        return new Run(recorded, result, trainer);
    }

    private static LgcPsTopology lgcPs(LgcControl control) {
        return LgcPsTopology.builder().ratio(RATIO).spec(LgcPsTopologyContractTest.SMALL).seed(SEED).control(control)
                .build();
    }

    @Test
    void shouldNotChangeTheRun() {
        Run plain = run(lgcPs(PLAIN), new Sgd(0.1), false);
        Run diagnosed = run(lgcPs(PLAIN), new Sgd(0.1), true);
        assertEquals(plain.result().replicaChecksums(), diagnosed.result().replicaChecksums());
        for (int s = 0; s < STEPS; s++) {
            StepMetrics a = plain.result().steps().get(s);
            StepMetrics b = diagnosed.result().steps().get(s);
            assertEquals(a.loss(), b.loss(), "loss of step " + s);
            for (int e = 0; e < K + 1; e++) {
                assertEquals(a.traffic().bytes(e, Direction.SENT), b.traffic().bytes(e, Direction.SENT),
                        "training bytes endpoint " + e + " sent in step " + s);
            }
            assertTrue(Double.isNaN(a.note(StepNotes.APPLIED_COS)), "no diagnostic note without the mode");
            assertTrue(b.note(StepNotes.APPLIED_COS) > -1, "a diagnostic note in every step: " + s);
        }
        assertEquals(plain.result().traffic().bytes(0, Direction.SENT),
                diagnosed.result().traffic().bytes(0, Direction.SENT), "the offers are not training traffic");
    }

    @Test
    void exactValuesShouldMeasureAsExactAndLgcAsWhatTheReplaySays() {
        Run run = run(lgcPs(PLAIN), new Sgd(0.0), true);
        for (int s = 0; s < FULL; s++) {
            assertEquals(1.0, run.note(s, StepNotes.OFFER_SHARE), 1e-12, "a dense step offers everything: " + s);
            assertEquals(1.0, run.note(s, StepNotes.APPLIED_COS_ALL), 1e-6, "dense step " + s);
            assertEquals(0.0, run.note(s, StepNotes.APPLIED_REL_ERR), 1e-6, "dense step " + s);
        }
        for (int s = FULL; s < FULL + TOP_K; s++) {
            assertEquals(0.0, run.note(s, StepNotes.APPLIED_REL_ERR), 1e-6, "top-k step " + s);
            assertEquals(1.0, run.note(s, StepNotes.APPLIED_COS), 1e-9, "top-k step " + s);
            double share = run.note(s, StepNotes.OFFER_SHARE);
            assertTrue(share > 0 && share < 1, "top-k covers part of the offer: " + share);
            assertEquals(share, run.note(s, StepNotes.APPLIED_COS_ALL), 1e-6, "exact values on S: cos = share");
        }
        CompactLayout compact = new CompactLayout(run.trainer().layout(), RATIO);
        List<SupportReplay.Step> replay = SupportReplay.of(new LgcSupportCompressor(RATIO, SEED, PLAIN.lowPass()),
                compact.blocks(), run.recorded(), K);
        for (int s = FULL + TOP_K; s < STEPS; s++) {
            assertEquals(Stage.COMPRESSED, run.result().steps().get(s).stage());
            SupportReplay.Step step = replay.get(s);
            float[] applied = compact.learnedPart(SupportReplay.valuesAt(run.recorded().exchanges(0).get(s).out(),
                    compact.blocks(), step.support()));
            double err = 0;
            double norm = 0;
            for (int i = 0; i < applied.length; i++) {
                double mean = 0;
                for (int r = 0; r < K; r++) {
                    mean += compact.learnedPart(step.values()[r])[i];
                }
                mean /= K;
                err += (applied[i] - mean) * (applied[i] - mean);
                norm += mean * mean;
            }
            assertEquals(Math.sqrt(err / norm), run.note(s, StepNotes.APPLIED_REL_ERR), 1e-5, "compressed step " + s);
            assertTrue(run.note(s, StepNotes.APPLIED_REL_ERR) > 1e-3, "the autoencoder is lossy: step " + s);
        }
    }

    @Test
    void aFrozenControlShouldMeasureAsApplyingNothing() {
        Run run = run(lgcPs(PLAIN.withAblation(LgcAblation.LEARNED_FROZEN)), new Sgd(0.1), true);
        for (int s = FULL + TOP_K; s < STEPS; s++) {
            assertEquals(1.0, run.note(s, StepNotes.APPLIED_REL_ERR), "step " + s);
            assertEquals(0.0, run.note(s, StepNotes.APPLIED_COS), "step " + s);
            assertEquals(0.0, run.note(s, StepNotes.APPLIED_COS_ALL), "step " + s);
        }
    }

    @Test
    void ownSupportsShouldCountWhatTheOtherRanksKeptOnTheUnion() {
        // Sparse GD: each rank its own top-k. At a position only some ranks took, the server's mean counts the
        // others as 0 while their offers hold a value: the union's error is real, not the codec's
        Run run = run(new ParameterServerTopology(new TopKCompressor(RATIO)), new Sgd(0.1), true);
        for (int s = FULL; s < STEPS; s++) {
            double err = run.note(s, StepNotes.APPLIED_REL_ERR);
            assertTrue(err > 1e-3 && err < 1, "step " + s + ": " + err);
            assertTrue(run.note(s, StepNotes.APPLIED_COS) > 0.5, "step " + s);
            assertTrue(run.note(s, StepNotes.OFFER_SHARE) < 1, "step " + s);
        }
    }

    /**
     * PowerSGD's update covers every element of a block: the offer is all of the compensated gradient (share 1); at
     * full rank the applied update is the ranks' mean (error at float level), at rank 1 it misses a real part of it.
     */
    @Test
    void lowRankFactorsShouldMeasureTheirProjectionError() {
        Run full = run(new ParameterServerTopology(new PowerSgdCompressor(
                new PowerSgdCompressor.Settings(12, 0, true, true), SEED)), new Sgd(0.1), true);
        Run one = run(new ParameterServerTopology(new PowerSgdCompressor(new PowerSgdCompressor.Settings(1), SEED)),
                new Sgd(0.1), true);
        for (int s = FULL; s < STEPS; s++) {
            assertEquals(1.0, full.note(s, StepNotes.OFFER_SHARE), 1e-12, "step " + s);
            assertEquals(0.0, full.note(s, StepNotes.APPLIED_REL_ERR), 1e-5, "full rank, step " + s);
            double err = one.note(s, StepNotes.APPLIED_REL_ERR);
            assertTrue(err > 0.05 && err < 1, "rank 1, step " + s + ": " + err);
            assertTrue(one.note(s, StepNotes.APPLIED_COS) > 0.3, "rank 1, step " + s);
        }
    }

    @Test
    void aSketchShouldBeRefusedWithTheReason() {
        Topology s2 = new ParameterServerTopology(new S2SketchCompressor(RATIO, 3, 2.0, 1));
        TrainingFailedException e = assertThrows(TrainingFailedException.class, () -> run(s2, new Sgd(0.1), true));
        assertTrue(e.getMessage().contains("the diagnostic mode does not support sketch compressors"),
                e.getMessage());
    }
}

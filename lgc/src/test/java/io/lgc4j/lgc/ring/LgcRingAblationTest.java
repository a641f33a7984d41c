package io.lgc4j.lgc.ring;

import io.lgc4j.lgc.autoencoder.AeTraining;
import io.lgc4j.lgc.autoencoder.AutoencoderSpec;
import io.lgc4j.lgc.LgcAblation;
import io.lgc4j.lgc.LgcControl;
import io.lgc4j.lgc.autoencoder.RingAutoencoder;
import io.lgc4j.lgc.autoencoder.Scale;
import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.lgc.support.CompactLayout;
import io.lgc4j.lgc.support.LgcSupportCompressor;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.settings.SettingsException;
import io.lgc4j.core.metrics.StepNotes;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.core.train.DistributedTrainer;
import io.lgc4j.core.train.RecordingTopology;
import io.lgc4j.core.train.SupportReplay;
import io.lgc4j.core.train.TestModels;
import io.lgc4j.core.train.TrainingResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Sgd;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * LGC-RAR's control runs ({@link LgcAblation}) against the method itself on the same gradients. The model does not
 * move (SGD at rate 0), so every run of one seed computes the same gradients and a difference between two runs is
 * the ablation's. A control sends what the method sends, frame for frame; its guard measures the same drift and
 * falls back at the same steps; every rank applies the same update; outside the LEARNED blocks of compressed steps
 * that update is the method's, and inside them it is zero (learned-frozen) or the decoded zero latent times the
 * leader's scale (zero-latent), the scale worked out again from the recorded gradients ({@link SupportReplay}).
 *
 * <p>The small MLP of {@link LgcRingTopologyTest} (layer 1 LEARNED, μ = 11) with a small autoencoder (a latent of
 * 2 × 3 floats), FULL for 3 steps, TOP_K for 6, COMPRESSED for 7.
 */
class LgcRingAblationTest {

    private static final int K = 3;
    private static final int FULL = 3;
    private static final int TOP_K = 6;
    private static final int STEPS = 16;
    private static final int FIRST_COMPRESSED = FULL + TOP_K;
    private static final double RATIO = 0.05;
    private static final long SEED = 42;
    static final AutoencoderSpec SMALL = new AutoencoderSpec(List.of(4, 4), 2, 3, 2, List.of(4, 4),
            List.of(2, 2), 0.01);
    /**
     * The guard on, checking every third compressed step and never tripping; no reconstruction feedback, so the
     * ranks' selection can be replayed from their gradients alone.
     */
    private static final LgcControl CHECKED = new LgcControl(1e9, 2, 3, 4, false, true, 0.1);
    /** A bound no reconstruction meets: the first check trips the guard, and it never recovers. */
    private static final LgcControl STRICT = new LgcControl(1e-12, 1, 1, 4, false, true, 0.1);

    /** The method's runs on the still model, by control: each made once. */
    private static final Map<LgcControl, Run> METHOD = new ConcurrentHashMap<>();

    private record Run(RecordingTopology recorded, TrainingResult result, GradientLayout layout) {

        /** What rank {@code rank} applied in step {@code step}. */
        float[] applied(int rank, int step) {
            return recorded.exchanges(rank).get(step).out();
        }

        /** Rank {@code rank}'s autoencoder after the run (the trainer's weights, shipped at the switch). */
        RingAutoencoder autoencoder(int rank) {
            return ((LgcRingExchange) recorded.worker(rank)).autoencoder();
        }
    }

    @ParameterizedTest
    @EnumSource(value = LgcAblation.class, names = {"LEARNED_FROZEN", "ZERO_LATENT"})
    void shouldSendWhatTheMethodSendsAndApplyTheAblationAtTheLearnedPositions(LgcAblation ablation) {
        Run method = method(CHECKED);
        Run control = run(CHECKED.withAblation(ablation), new Sgd(0.0));
        assertSameTrafficAndDrift(method, control);
        assertEveryRankAppliesTheSame(control);

        CompactLayout compact = new CompactLayout(control.layout(), RATIO);
        List<SupportReplay.Step> replay = SupportReplay.of(new LgcSupportCompressor(RATIO, SEED, CHECKED.lowPass()),
                compact.blocks(), control.recorded(), K);
        RingAutoencoder ae = control.autoencoder(0);
        for (int s = 0; s < STEPS; s++) {
            float[] methods = method.applied(0, s);
            float[] controls = control.applied(0, s);
            if (s < FIRST_COMPRESSED) {
                assertArrayEquals(methods, controls, ablation + ", step " + s + " is not compressed");
                continue;
            }
            String at = ablation + ", step " + s;
            assertOutsideLearnedBlocksEqual(control.layout(), methods, controls, at);
            SupportReplay.Step step = replay.get(s);
            float[] applied = compact.learnedPart(SupportReplay.valuesAt(controls, compact.blocks(), step.support()));
            float[] expected = ablation == LgcAblation.LEARNED_FROZEN ? new float[compact.mu()]
                    : ae.decode(new float[ae.latentSize()],
                            Scale.rms(compact.learnedPart(step.values()[step.leader()])));
            assertArrayEquals(expected, applied, at);
            if (ablation == LgcAblation.LEARNED_FROZEN) {
                assertLearnedBlocksZero(control.layout(), controls, at);
            } else {
                assertTrue(norm(applied) > 0, at + ": the trained decoder's output without information is not zero");
            }
            assertTrue(!Arrays.equals(compact.learnedPart(SupportReplay.valuesAt(methods, compact.blocks(),
                    step.support())), applied), at + ": applied what the method applies");
        }
    }

    /**
     * With a guard that trips at the first check, the method and its controls fall back together and for good:
     * after the first compressed step every step is a TOP_K step, applied as the method applies it.
     */
    @ParameterizedTest
    @EnumSource(value = LgcAblation.class, names = {"LEARNED_FROZEN", "ZERO_LATENT"})
    void shouldFallBackAtTheStepsTheMethodFallsBackAtAndApplyFallbackStepsAsIs(LgcAblation ablation) {
        Run method = method(STRICT);
        Run control = run(STRICT.withAblation(ablation), new Sgd(0.0));
        assertSameTrafficAndDrift(method, control);
        for (int s = 0; s < STEPS; s++) {
            double fallback = control.result().steps().get(s).note(StepNotes.LGC_FALLBACK);
            assertEquals(method.result().steps().get(s).note(StepNotes.LGC_FALLBACK), fallback, "step " + s);
            assertEquals(s > FIRST_COMPRESSED, fallback == 1.0, "fallback at step " + s);
            if (s != FIRST_COMPRESSED) {
                assertArrayEquals(method.applied(0, s), control.applied(0, s), ablation + ", step " + s);
            }
        }
        assertEveryRankAppliesTheSame(control);
    }

    /**
     * Training for real (SGD at 0.1, reconstruction feedback on): replicas stay bit-identical under every control;
     * under learned-frozen the LEARNED blocks get no update in any compressed step while the others do.
     */
    @ParameterizedTest
    @EnumSource(value = LgcAblation.class, names = {"LEARNED_FROZEN", "ZERO_LATENT"})
    void shouldKeepReplicasIdenticalWhileTraining(LgcAblation ablation) {
        Run run = run(new LgcControl(1e9, 2, 3, 4, true, true, 0.1, ablation), new Sgd(0.1));
        assertEveryRankAppliesTheSame(run);
        for (int s = 0; s < STEPS; s++) {
            assertTrue(Double.isFinite(run.result().steps().get(s).loss()), "loss at step " + s);
        }
        if (ablation == LgcAblation.LEARNED_FROZEN) {
            for (int s = FIRST_COMPRESSED; s < STEPS; s++) {
                float[] applied = run.applied(0, s);
                assertLearnedBlocksZero(run.layout(), applied, "step " + s);
                for (ParamBlock b : run.layout().blocks()) {
                    if (b.policy() != LayerPolicy.LEARNED) {
                        assertTrue(norm(Arrays.copyOfRange(applied, b.offset(), b.end())) > 0,
                                "step " + s + ": no update of " + b);
                    }
                }
            }
        }
    }

    @Test
    void shouldRejectAnAblationItDoesNotRunNamingTheOnesItRuns() {
        for (LgcAblation psOnly : List.of(LgcAblation.INNOVATION_ONLY, LgcAblation.LATENT_ONLY)) {
            SettingsException e = assertThrows(SettingsException.class,
                    () -> topology(LgcControl.DEFAULT.withAblation(psOnly)));
            assertEquals("ablation does not apply to topology.type ring (LGC-RAR), found " + psOnly + "; allowed with"
                    + " topology.type ring: [learned-frozen, none, zero-latent]", e.getMessage());
        }
        assertEquals(List.of(LgcAblation.LEARNED_FROZEN, LgcAblation.NONE, LgcAblation.ZERO_LATENT),
                LgcRingTopology.ABLATIONS);
    }

    @Test
    void shouldDescribeItsAblationSoAResultSaysWhichControlMadeIt() {
        Map<?, ?> settings = (Map<?, ?>) topology(LgcControl.DEFAULT.withAblation(LgcAblation.ZERO_LATENT)).describe()
                .toMap().get("compressorSettings");
        assertEquals("zero-latent", ((Map<?, ?>) settings.get("control")).get("ablation"));
    }

    /** Every step's bytes per endpoint, direction, stage and kind, and the drift and losses noted: the same. */
    private static void assertSameTrafficAndDrift(Run method, Run control) {
        for (int s = 0; s < STEPS; s++) {
            var m = method.result().steps().get(s);
            var c = control.result().steps().get(s);
            for (int e = 0; e < K; e++) {
                assertArrayEquals(m.traffic().row(e), c.traffic().row(e), "step " + s + ", rank " + e);
            }
            assertEquals(m.note(StepNotes.AE_DRIFT), c.note(StepNotes.AE_DRIFT), "drift at step " + s);
            assertEquals(m.note(StepNotes.AE_RECONSTRUCTION), c.note(StepNotes.AE_RECONSTRUCTION), "step " + s);
            for (int r = 0; r < K; r++) {
                assertArrayEquals(method.recorded().exchanges(r).get(s).in(), control.recorded().exchanges(r).get(s)
                        .in(), "the still model's gradient, rank " + r + ", step " + s);
            }
        }
    }

    private static void assertEveryRankAppliesTheSame(Run run) {
        for (int s = 0; s < STEPS; s++) {
            for (int r = 1; r < K; r++) {
                assertArrayEquals(run.applied(0, s), run.applied(r, s), "rank " + r + ", step " + s);
            }
        }
    }

    private static void assertOutsideLearnedBlocksEqual(GradientLayout layout, float[] expected, float[] actual,
                                                        String at) {
        for (ParamBlock b : layout.blocks()) {
            if (b.policy() != LayerPolicy.LEARNED) {
                assertArrayEquals(Arrays.copyOfRange(expected, b.offset(), b.end()),
                        Arrays.copyOfRange(actual, b.offset(), b.end()), at + ": " + b);
            }
        }
    }

    private static void assertLearnedBlocksZero(GradientLayout layout, float[] applied, String at) {
        boolean any = false;
        for (ParamBlock b : layout.blocks()) {
            if (b.policy() == LayerPolicy.LEARNED) {
                any = true;
                assertEquals(0.0, norm(Arrays.copyOfRange(applied, b.offset(), b.end())), at + ": " + b);
            }
        }
        assertTrue(any, "the layout has LEARNED blocks");
    }

    private static double norm(float[] v) {
        double sum = 0;
        for (float x : v) {
            sum += (double) x * x;
        }
        return sum;
    }

    private static Run method(LgcControl control) {
        return METHOD.computeIfAbsent(control, c -> run(c, new Sgd(0.0)));
    }

    private static Run run(LgcControl control, IUpdater updater) {
        RecordingTopology recorded = new RecordingTopology(topology(control));
        DistributedTrainer trainer = DistributedTrainer.builder().model(TestModels.mlp(5, updater))
                .data(TestModels.data(K * 8 * STEPS, 3)).workers(K).batchSizePerWorker(8).topology(recorded)
                .seed(5).stages(new StageSchedule(FULL, TOP_K)).build();
        TrainingResult result = trainer.fit(1);
        assertEquals(STEPS, result.steps().size());
        for (int s = 0; s < STEPS; s++) {
            Stage stage = s < FULL ? Stage.FULL : s < FIRST_COMPRESSED ? Stage.TOP_K : Stage.COMPRESSED;
            assertEquals(stage, result.steps().get(s).stage(), "stage of step " + s);
        }
        return new Run(recorded, result, trainer.layout());
    }

    private static LgcRingTopology topology(LgcControl control) {
        return new LgcRingTopology(RATIO, IndexCodecs.defaultCodec(), SMALL, AeTraining.DEFAULT, SEED, control);
    }
}

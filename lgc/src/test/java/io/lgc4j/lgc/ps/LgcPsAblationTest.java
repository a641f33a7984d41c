package io.lgc4j.lgc.ps;

import io.lgc4j.lgc.LgcAblation;
import io.lgc4j.lgc.LgcControl;
import io.lgc4j.lgc.autoencoder.PsAutoencoder;
import io.lgc4j.lgc.autoencoder.Scale;
import io.lgc4j.lgc.support.CompactLayout;
import io.lgc4j.lgc.support.LgcSupportCompressor;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.link.Averages;
import io.lgc4j.core.settings.SettingsException;
import io.lgc4j.core.metrics.StepNotes;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.core.train.DistributedTrainer;
import io.lgc4j.core.train.RecordingTopology;
import io.lgc4j.core.train.SupportReplay;
import io.lgc4j.core.train.TestModels;
import io.lgc4j.core.train.TrainingResult;
import io.lgc4j.lgc.ps.LgcPsTopology.SupportPolicy;
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
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * LGC-PS's control runs ({@link LgcAblation}) against the method itself on the same gradients. The model does not
 * move (SGD at rate 0), so every run of one seed computes the same gradients and a difference between two runs is the
 * ablation's. A control sends what the method sends, frame for frame; its guard measures the same drift and falls
 * back at the same steps; every rank applies the same update; outside the LEARNED blocks of compressed steps that
 * update is the method's, and inside them it is what the ablation says — worked out again from the recorded
 * gradients ({@link SupportReplay}) and the server's autoencoder.
 *
 * <p>The small MLP of {@link LgcPsTopologyTest} (layer 1 LEARNED, μ = 11, two innovation values) with the small
 * autoencoder of the contract test, FULL for 3 steps, TOP_K for 6, COMPRESSED for 7.
 */
class LgcPsAblationTest {

    private static final int K = 3;
    private static final int FULL = 3;
    private static final int TOP_K = 6;
    private static final int STEPS = 16;
    private static final int FIRST_COMPRESSED = FULL + TOP_K;
    private static final double RATIO = 0.05;
    private static final long SEED = 42;
    /**
     * The guard on, checking every third compressed step and never tripping; exact innovation; no reconstruction
     * feedback, so the ranks' selection can be replayed from their gradients alone.
     */
    private static final LgcControl CHECKED = new LgcControl(1e9, 2, 3, 4, false, true, 0.1);
    /** A bound no reconstruction meets: the first check trips the guard, and it never recovers. */
    private static final LgcControl STRICT = new LgcControl(1e-12, 1, 1, 4, false, true, 0.1);

    /** The method's runs on the still model, by control and policy: each made once. */
    private static final Map<String, Run> METHOD = new ConcurrentHashMap<>();

    private record Run(RecordingTopology recorded, LgcPsTopology topology, TrainingResult result,
                       GradientLayout layout) {

        /** What rank {@code rank} applied in step {@code step}. */
        float[] applied(int rank, int step) {
            return recorded.exchanges(rank).get(step).out();
        }
    }

    @ParameterizedTest
    @EnumSource(value = LgcAblation.class, names = {"INNOVATION_ONLY", "LATENT_ONLY", "LEARNED_FROZEN"})
    void shouldSendWhatTheMethodSendsAndApplyTheAblationAtTheLearnedPositions(LgcAblation ablation) {
        Run method = method(CHECKED, SupportPolicy.LEADER);
        Run control = run(CHECKED.withAblation(ablation), SupportPolicy.LEADER, new Sgd(0.0));
        assertSameTrafficAndDrift(method, control);
        assertEveryRankAppliesTheSame(control);

        CompactLayout compact = new CompactLayout(control.layout(), RATIO);
        List<SupportReplay.Step> replay = SupportReplay.of(new LgcSupportCompressor(RATIO, SEED, CHECKED.lowPass()),
                compact.blocks(), control.recorded(), K);
        PsAutoencoder ae = control.topology().serverAutoencoder();
        boolean differs = false;
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
            assertZeroOffTheSupport(control.layout(), compact.blocks(), step.support(), controls, at);
            float[] applied = compact.learnedPart(SupportReplay.valuesAt(controls, compact.blocks(), step.support()));
            float[][] compacts = new float[K][];
            for (int r = 0; r < K; r++) {
                compacts[r] = compact.learnedPart(step.values()[r]);
            }
            assertArrayEquals(expected(ablation, ae, compacts, step.leader()), applied, at);
            if (ablation == LgcAblation.INNOVATION_ONLY) {
                boolean[] innovation = new boolean[compact.mu()];
                for (float[] c : compacts) {
                    for (int i : ae.innovationPositions(c)) {
                        innovation[i] = true;
                    }
                }
                for (int i = 0; i < applied.length; i++) {
                    assertTrue(innovation[i] || applied[i] == 0, at + ": nonzero at " + i + ", not an innovation");
                }
            }
            differs |= !Arrays.equals(compact.learnedPart(SupportReplay.valuesAt(methods, compact.blocks(),
                    step.support())), applied);
        }
        assertTrue(differs, ablation + " applied what the method applies in every compressed step");
    }

    /**
     * With a guard that trips at the first check, the method and its controls fall back together and for good:
     * after the first compressed step every step is a TOP_K step, applied as the method applies it.
     */
    @ParameterizedTest
    @EnumSource(value = LgcAblation.class, names = {"INNOVATION_ONLY", "LATENT_ONLY", "LEARNED_FROZEN"})
    void shouldFallBackAtTheStepsTheMethodFallsBackAtAndApplyFallbackStepsAsIs(LgcAblation ablation) {
        Run method = method(STRICT, SupportPolicy.LEADER);
        Run control = run(STRICT.withAblation(ablation), SupportPolicy.LEADER, new Sgd(0.0));
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

    /** Under every rank's own support the mean is a sparse sum on the union: the same frames, the same union. */
    @ParameterizedTest
    @EnumSource(value = LgcAblation.class, names = {"INNOVATION_ONLY", "LATENT_ONLY", "LEARNED_FROZEN"})
    void shouldSendWhatTheMethodSendsUnderEveryRanksOwnSupport(LgcAblation ablation) {
        Run method = method(CHECKED, SupportPolicy.OWN);
        Run control = run(CHECKED.withAblation(ablation), SupportPolicy.OWN, new Sgd(0.0));
        assertSameTrafficAndDrift(method, control);
        assertEveryRankAppliesTheSame(control);
        for (int s = FIRST_COMPRESSED; s < STEPS; s++) {
            assertOutsideLearnedBlocksEqual(control.layout(), method.applied(0, s), control.applied(0, s),
                    ablation + ", step " + s);
            if (ablation == LgcAblation.LEARNED_FROZEN) {
                assertLearnedBlocksZero(control.layout(), control.applied(0, s), "step " + s);
            }
        }
    }

    /**
     * Training for real (SGD at 0.1, reconstruction feedback on): replicas stay bit-identical under every control;
     * under learned-frozen the LEARNED blocks get no update in any compressed step while the others do.
     */
    @ParameterizedTest
    @EnumSource(value = LgcAblation.class, names = {"INNOVATION_ONLY", "LATENT_ONLY", "LEARNED_FROZEN"})
    void shouldKeepReplicasIdenticalWhileTraining(LgcAblation ablation) {
        LgcControl feedback = new LgcControl(1e9, 2, 3, 4, true, true, 0.1, ablation);
        Run run = run(feedback, SupportPolicy.LEADER, new Sgd(0.1));
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
                        assertTrue(norm(applied, b) > 0, "step " + s + ": no update of " + b);
                    }
                }
            }
        }
    }

    @Test
    void shouldRejectAnAblationItDoesNotRunNamingTheOnesItRuns() {
        SettingsException e = assertThrows(SettingsException.class,
                () -> topology(LgcControl.DEFAULT.withAblation(LgcAblation.ZERO_LATENT), SupportPolicy.LEADER));
        assertEquals("ablation does not apply to topology.type ps (LGC-PS), found zero-latent; allowed with"
                + " topology.type ps: [innovation-only, latent-only, learned-frozen, none]", e.getMessage());
        assertEquals("ablation", e.key());
        assertEquals(List.of(LgcAblation.INNOVATION_ONLY, LgcAblation.LATENT_ONLY, LgcAblation.LEARNED_FROZEN,
                LgcAblation.NONE), LgcPsTopology.ABLATIONS);
    }

    @Test
    void shouldDescribeItsAblationSoAResultSaysWhichControlMadeIt() {
        LgcPsTopology t = topology(LgcControl.DEFAULT.withAblation(LgcAblation.INNOVATION_ONLY), SupportPolicy.LEADER);
        Map<?, ?> settings = (Map<?, ?>) t.describe().toMap().get("compressorSettings");
        assertEquals("innovation-only", ((Map<?, ?>) settings.get("control")).get("ablation"));
        Map<?, ?> method = (Map<?, ?>) topology(LgcControl.DEFAULT, SupportPolicy.LEADER).describe().toMap()
                .get("compressorSettings");
        assertEquals("none", ((Map<?, ?>) method.get("control")).get("ablation"));
    }

    private static float[] expected(LgcAblation ablation, PsAutoencoder ae, float[][] compacts, int leader) {
        float[][] perRank = new float[K][];
        float scale = Scale.rms(compacts[leader]);
        float[] latent = ae.encode(compacts[leader], scale);
        for (int r = 0; r < K; r++) {
            perRank[r] = switch (ablation) {
                case INNOVATION_ONLY -> ae.innovation(compacts[r]);
                case LATENT_ONLY -> ae.decode(r, latent, new float[compacts[r].length], scale);
                case LEARNED_FROZEN -> new float[compacts[r].length];
                case NONE, ZERO_LATENT -> throw new IllegalArgumentException(ablation.toString());
            };
        }
        return Averages.mean(perRank);
    }

    /** Every step's bytes per endpoint, direction, stage and kind, and the drift and losses noted: the same. */
    private static void assertSameTrafficAndDrift(Run method, Run control) {
        for (int s = 0; s < STEPS; s++) {
            var m = method.result().steps().get(s);
            var c = control.result().steps().get(s);
            for (int e = 0; e <= K; e++) {
                assertArrayEquals(m.traffic().row(e), c.traffic().row(e), "step " + s + ", endpoint " + e);
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

    private static void assertZeroOffTheSupport(GradientLayout layout, List<ParamBlock> compressible,
                                                int[][] support, float[] applied, String at) {
        float[] off = applied.clone();
        for (int b = 0; b < compressible.size(); b++) {
            for (int i : support[b]) {
                off[compressible.get(b).offset() + i] = 0;
            }
        }
        assertLearnedBlocksZero(layout, off, at + ", off the support");
    }

    private static void assertLearnedBlocksZero(GradientLayout layout, float[] applied, String at) {
        boolean any = false;
        for (ParamBlock b : layout.blocks()) {
            if (b.policy() == LayerPolicy.LEARNED) {
                any = true;
                assertEquals(0.0, norm(applied, b), at + ": " + b);
            }
        }
        assertTrue(any, "the layout has LEARNED blocks");
    }

    private static double norm(float[] v, ParamBlock b) {
        double sum = 0;
        for (int i = b.offset(); i < b.end(); i++) {
            sum += (double) v[i] * v[i];
        }
        return sum;
    }

    private static Run method(LgcControl control, SupportPolicy policy) {
        return METHOD.computeIfAbsent(control + "/" + policy, key -> run(control, policy, new Sgd(0.0)));
    }

    private static Run run(LgcControl control, SupportPolicy policy, IUpdater updater) {
        LgcPsTopology topology = topology(control, policy);
        RecordingTopology recorded = new RecordingTopology(topology);
        DistributedTrainer trainer = DistributedTrainer.builder().model(TestModels.mlp(5, updater))
                .data(TestModels.data(K * 8 * STEPS, 3)).workers(K).batchSizePerWorker(8).topology(recorded)
                .seed(5).stages(new StageSchedule(FULL, TOP_K)).build();
        TrainingResult result = trainer.fit(1);
        assertEquals(STEPS, result.steps().size());
        for (int s = 0; s < STEPS; s++) {
            Stage stage = s < FULL ? Stage.FULL : s < FIRST_COMPRESSED ? Stage.TOP_K : Stage.COMPRESSED;
            assertEquals(stage, result.steps().get(s).stage(), "stage of step " + s);
        }
        assertFalse(recorded.exchanges(0).isEmpty());
        return new Run(recorded, topology, result, trainer.layout());
    }

    private static LgcPsTopology topology(LgcControl control, SupportPolicy policy) {
        return LgcPsTopology.builder().ratio(RATIO).spec(LgcPsTopologyContractTest.SMALL).support(policy).seed(SEED)
                .control(control).build();
    }
}

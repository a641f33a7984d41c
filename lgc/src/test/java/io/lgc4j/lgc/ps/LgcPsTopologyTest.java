package io.lgc4j.lgc.ps;

import io.lgc4j.core.link.Shortcuts;
import io.lgc4j.core.settings.SettingsException;
import io.lgc4j.core.train.TopologyDescription;
import io.lgc4j.lgc.LgcAblation;
import io.lgc4j.lgc.LgcSettings;
import io.lgc4j.lgc.autoencoder.AeTraining;
import io.lgc4j.lgc.autoencoder.AutoencoderSpec;
import io.lgc4j.lgc.autoencoder.AeLosses;
import io.lgc4j.lgc.LgcControl;
import io.lgc4j.core.comm.Direction;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.TrafficMeter;
import io.lgc4j.core.compress.Compressor;
import io.lgc4j.lgc.support.LgcSupportCompressor;
import io.lgc4j.core.compress.TopKCompressor;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.metrics.StepMetrics;
import io.lgc4j.core.metrics.StepNotes;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.core.train.DistributedTrainer;
import io.lgc4j.core.train.TestModels;
import io.lgc4j.core.train.Topology;
import io.lgc4j.core.train.TrainingResult;
import io.lgc4j.lgc.ps.LgcPsTopology.SupportPolicy;
import io.lgc4j.ps.topology.ParameterServerTopology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.nd4j.linalg.learning.config.Sgd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * LGC-PS end to end on a small MLP (8 → 16 → 12 → 3: layer 0 DENSE, layer 1 LEARNED, the output layer TOP_K),
 * through FULL, TOP_K and COMPRESSED under both support policies: the stage of every step, replica identity, and
 * the byte ledger of every kind, step by step.
 */
class LgcPsTopologyTest {

    private static final int K = 3;
    private static final int SERVER = K;
    private static final int FULL = 3;
    private static final int TOP_K = 6;
    private static final int STEPS = 16;
    private static final int FIRST_COMPRESSED = FULL + TOP_K;
    private static final double RATIO = 0.05;
    private static final long TOPOLOGY_SEED = 42;
    /** Layer 0: W 8×16 + b 16, always dense. */
    private static final int DENSE = 8 * 16 + 16;
    /** Selected per step at ratio 0.05: layer 1 W 192 → 10, b 12 → 1 (LEARNED). */
    private static final int MU = 11;
    /** Selected per step at ratio 0.05: output W 36 → 2, b 3 → 1 (TOP_K, never through the autoencoder). */
    private static final int PLAIN = 3;
    /** Every parameter: layer 0, layer 1 (16×12 + 12) and the output layer (12×3 + 3). */
    private static final int PARAMS = DENSE + 16 * 12 + 12 + 12 * 3 + 3;

    @ParameterizedTest
    @EnumSource(SupportPolicy.class)
    void shouldPassThroughAllThreeStagesWithIdenticalReplicasAndEveryByteCounted(SupportPolicy policy) {
        LgcPsTopology topology = topology(policy);
        DistributedTrainer trainer = trainer(5, topology);
        TrainingResult result = trainer.fit(1);

        assertEquals(STEPS, result.steps().size());
        for (int s = 0; s < STEPS; s++) {
            assertEquals(stageOf(s), result.steps().get(s).stage(), "stage of step " + s);
        }
        float[] rank0 = trainer.replicas().get(0).params().toFloatVector();
        for (int r = 1; r < K; r++) {
            assertArrayEquals(rank0, trainer.replicas().get(r).params().toFloatVector(), "replica " + r);
        }
        assertTrue(result.steps().get(STEPS - 1).loss() < result.steps().get(0).loss(), "loss should fall");
        assertEquals(TOP_K, topology.autoencoderLosses().size(), "one autoencoder step per TOP_K step");
        for (AeLosses l : topology.autoencoderLosses()) {
            assertTrue(Double.isFinite(l.reconstruction()) && l.reconstruction() > 0, l.toString());
        }

        // The encoder's weight file for the paper's architecture (counted by hand in WeightCodecTest): 18 bytes of
        // header and CRC + 202 of tensor headers + 4 × 172,996 parameters = 692,204 bytes, whatever μ.
        long encoderBytes = 692_204;
        // The leader's code: μ = 11 pads to L = 16, the latent is 4 channels × L / 16 = 4 floats, plus the scale.
        long codeBytes = 4 * (4 + 1);
        // The innovation's values: ⌈0.1 × 11⌉ = 2 floats (their coded positions come on top).
        long innovationValueBytes = 4 * 2;
        LgcSupportCompressor leaders = new LgcSupportCompressor(RATIO, TOPOLOGY_SEED);
        for (int s = 0; s < STEPS; s++) {
            String at = policy + " step " + s + " (" + stageOf(s) + ")";
            TrafficMeter.Snapshot t = result.steps().get(s).traffic();
            int leader = leaders.leader(s, K);
            boolean full = stageOf(s) == Stage.FULL;
            boolean compressed = stageOf(s) == Stage.COMPRESSED;

            // the encoder: K copies from the server at the first COMPRESSED step, never otherwise
            assertEquals(s == FIRST_COMPRESSED ? K * encoderBytes : 0,
                    t.bytes(SERVER, Direction.SENT, TrafficKind.AE_WEIGHTS), at);
            for (int w = 0; w < K; w++) {
                assertEquals(s == FIRST_COMPRESSED ? encoderBytes : 0,
                        t.bytes(w, Direction.RECEIVED, TrafficKind.AE_WEIGHTS), at + ", worker " + w);
                assertEquals(0, t.bytes(w, Direction.SENT, TrafficKind.AE_WEIGHTS), at);
                assertEquals(0, t.bytes(w, Direction.SENT, TrafficKind.AE_SAMPLES), at);
            }
            long leaderIndices = t.bytes(leader, Direction.SENT, TrafficKind.INDICES);
            for (int w = 0; w < K; w++) {
                String who = at + ", worker " + w + (w == leader ? " (leader)" : "");
                // the latent and its scale: only the leader, only in COMPRESSED
                assertEquals(compressed && w == leader ? codeBytes : 0,
                        t.bytes(w, Direction.SENT, TrafficKind.LATENT), who);
                // the innovation: every worker in COMPRESSED, coded positions and values
                long innovation = t.bytes(w, Direction.SENT, TrafficKind.INNOVATION);
                assertEquals(compressed, innovation > innovationValueBytes, who + ": innovation " + innovation);
                // values: the whole gradient in FULL; then DENSE + the support's values, the LEARNED ones only in TOP_K
                long values = full ? PARAMS : compressed ? DENSE + PLAIN : DENSE + MU + PLAIN;
                assertEquals(4 * values, t.bytes(w, Direction.SENT, TrafficKind.VALUES), who);
                // indices up: OWN every worker, LEADER the leader alone; never in FULL
                boolean sendsIndices = !full && (policy == SupportPolicy.OWN || w == leader);
                assertEquals(sendsIndices, t.bytes(w, Direction.SENT, TrafficKind.INDICES) > 0, who);
            }
            assertEquals(0, t.bytes(SERVER, Direction.SENT, TrafficKind.LATENT), at);
            assertEquals(0, t.bytes(SERVER, Direction.SENT, TrafficKind.INNOVATION), at);
            if (full) {
                assertEquals(0, t.bytes(SERVER, Direction.SENT, TrafficKind.INDICES), at);
                assertEquals(K * 4L * PARAMS, t.bytes(SERVER, Direction.SENT, TrafficKind.VALUES), at);
            } else if (policy == SupportPolicy.LEADER) {
                // down: the leader's indices relayed to the K-1 others, then the aligned mean to all K
                assertEquals((K - 1) * leaderIndices, t.bytes(SERVER, Direction.SENT, TrafficKind.INDICES), at);
                assertEquals(K * 4L * (DENSE + MU + PLAIN), t.bytes(SERVER, Direction.SENT, TrafficKind.VALUES), at);
            } else {
                // down: the mean on the union of the K supports, its indices and values, to all K
                long mean = t.bytes(SERVER, Direction.SENT, TrafficKind.VALUES) - K * 4L * DENSE;
                assertTrue(mean >= K * 4L * (MU + PLAIN) && mean <= K * 4L * K * (MU + PLAIN), at + ": " + mean);
                assertTrue(t.bytes(SERVER, Direction.SENT, TrafficKind.INDICES) > 0, at);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(SupportPolicy.class)
    void sameSeedShouldGiveIdenticalParametersTwice(SupportPolicy policy) {
        DistributedTrainer a = trainer(9, topology(policy));
        a.fit(1);
        DistributedTrainer b = trainer(9, topology(policy));
        b.fit(1);
        assertArrayEquals(a.replicas().get(0).params().toFloatVector(), b.replicas().get(0).params().toFloatVector());
    }

    /**
     * Until the switch the autoencoder only watches: LGC-PS's updates are those of the compressed parameter server
     * with the same selection — the shared-support path with the same random leaders (LEADER), Sparse GD's own
     * top-k on the gather path (OWN) — bit for bit.
     */
    @ParameterizedTest
    @EnumSource(SupportPolicy.class)
    void shouldUpdateLikeTheCompressedParameterServerBeforeTheSwitch(SupportPolicy policy) {
        StageSchedule neverCompressed = new StageSchedule(FULL, STEPS);
        DistributedTrainer lgc = trainer(7, topology(policy), neverCompressed);
        lgc.fit(1);
        Compressor same = policy == SupportPolicy.LEADER ? new LgcSupportCompressor(RATIO, TOPOLOGY_SEED)
                : new TopKCompressor(RATIO);
        DistributedTrainer plain = trainer(7, new ParameterServerTopology(same), neverCompressed);
        plain.fit(1);
        assertArrayEquals(plain.replicas().get(0).params().toFloatVector(),
                lgc.replicas().get(0).params().toFloatVector());
    }

    /** With every compressible block LEARNED, nothing travels as values in COMPRESSED but the DENSE blocks. */
    @Test
    void shouldCarryEveryCompressibleBlockThroughTheAutoencoderWhenNoneIsTopK() {
        DistributedTrainer trainer = DistributedTrainer.builder().model(TestModels.mlp(3, new Sgd(0.1)))
                .data(TestModels.data(K * 8 * STEPS, 3)).workers(K).batchSizePerWorker(8)
                .topology(topology(SupportPolicy.OWN))
                .layerPolicy(b -> b.layerIndex() == 0 ? LayerPolicy.DENSE : LayerPolicy.LEARNED)
                .seed(3).stages(new StageSchedule(FULL, TOP_K)).build();
        TrainingResult result = trainer.fit(1);
        for (int r = 1; r < K; r++) {
            assertArrayEquals(trainer.replicas().get(0).params().toFloatVector(),
                    trainer.replicas().get(r).params().toFloatVector(), "replica " + r);
        }
        long compressedSteps = STEPS - FIRST_COMPRESSED;
        for (int w = 0; w < K; w++) {
            assertEquals((long) TOP_K * 4 * (DENSE + MU + PLAIN),
                    result.traffic().bytes(w, Direction.SENT, Stage.TOP_K, TrafficKind.VALUES), "worker " + w);
            assertEquals(compressedSteps * 4 * DENSE,
                    result.traffic().bytes(w, Direction.SENT, Stage.COMPRESSED, TrafficKind.VALUES), "worker " + w);
            assertTrue(result.traffic().bytes(w, Direction.SENT, Stage.COMPRESSED, TrafficKind.INNOVATION) > 0);
        }
    }

    /**
     * The default controls with a guard that never trips: every {@code checkEvery}-th compressed step each worker
     * sends its true values at the sampled positions and the server answers with a one-byte flag (both CONTROL,
     * counted); the drift is noted there; replicas stay identical with reconstruction feedback on.
     */
    @Test
    void driftChecksShouldCostOneSampleUpAndOneFlagDownPerWorkerEveryCheckEverySteps() {
        int checkEvery = 3;
        int sample = 4;
        LgcControl lenient = new LgcControl(1e9, 2, checkEvery, sample, true, true, 1.0);
        DistributedTrainer trainer = trainer(5, topology(SupportPolicy.LEADER, lenient));
        TrainingResult result = trainer.fit(1);
        for (int s = 0; s < STEPS; s++) {
            StepMetrics m = result.steps().get(s);
            boolean check = s >= FIRST_COMPRESSED && (s - FIRST_COMPRESSED) % checkEvery == 0;
            for (int w = 0; w < K; w++) {
                assertEquals(check ? 4L * sample : 0, m.traffic().bytes(w, Direction.SENT, TrafficKind.CONTROL),
                        "step " + s + ", worker " + w);
                assertEquals(check ? 1 : 0, m.traffic().bytes(w, Direction.RECEIVED, TrafficKind.CONTROL),
                        "step " + s + ", worker " + w);
            }
            double drift = m.note(StepNotes.AE_DRIFT);
            assertEquals(check, Double.isFinite(drift) && drift >= 0, "drift noted at step " + s + ": " + drift);
            assertTrue(Double.isNaN(m.note(StepNotes.LGC_FALLBACK)), "no fallback at step " + s);
        }
        assertReplicasIdentical(trainer);
    }

    /**
     * A bound no reconstruction meets: the first check trips the guard, every later step runs as a TOP_K step (the
     * values travel, no latent or innovation, the autoencoder trains again) with the server's flag after it, and
     * the replicas stay identical.
     */
    @ParameterizedTest
    @EnumSource(SupportPolicy.class)
    void driftGuardShouldFallBackToTopKStepsAndTrainAgain(SupportPolicy policy) {
        LgcControl strict = new LgcControl(1e-12, 1, 1, 4, true, true, 1.0);
        LgcPsTopology topology = topology(policy, strict);
        DistributedTrainer trainer = trainer(5, topology);
        TrainingResult result = trainer.fit(1);
        assertTrue(Double.isFinite(result.steps().get(FIRST_COMPRESSED).note(StepNotes.AE_DRIFT)));
        for (int s = FIRST_COMPRESSED + 1; s < STEPS; s++) {
            StepMetrics m = result.steps().get(s);
            assertEquals(Stage.COMPRESSED, m.stage());
            assertEquals(1.0, m.note(StepNotes.LGC_FALLBACK), "fallback at step " + s);
            assertTrue(m.note(StepNotes.AE_RECONSTRUCTION) > 0, "training again at step " + s);
            for (int w = 0; w < K; w++) {
                assertEquals(0, m.traffic().bytes(w, Direction.SENT, TrafficKind.LATENT), "step " + s);
                assertEquals(0, m.traffic().bytes(w, Direction.SENT, TrafficKind.INNOVATION), "step " + s);
                assertEquals(4L * (DENSE + MU + PLAIN), m.traffic().bytes(w, Direction.SENT, TrafficKind.VALUES),
                        "step " + s);
                assertEquals(1, m.traffic().bytes(w, Direction.RECEIVED, TrafficKind.CONTROL), "flag, step " + s);
            }
        }
        assertEquals(TOP_K + STEPS - FIRST_COMPRESSED - 1, topology.autoencoderLosses().size());
        assertReplicasIdentical(trainer);
    }

    @Test
    void shouldRefuseALayoutWithoutLearnedBlocks() {
        // at build(), with the same exception type as LGC-RAR (Topology.check; TopologyChecks)
        Exception e = assertThrows(IllegalArgumentException.class, () -> DistributedTrainer.builder()
                .model(TestModels.mlp(1, new Sgd(0.1))).data(TestModels.data(64, 1)).workers(2).batchSizePerWorker(8)
                .topology(topology(SupportPolicy.LEADER))
                .layerPolicy(b -> b.layerIndex() == 0 ? LayerPolicy.DENSE : LayerPolicy.TOP_K)
                .stages(new StageSchedule(1, 1)).build());
        assertTrue(messages(e).contains("LGC needs at least one LEARNED block"), messages(e));
        assertTrue(messages(e).contains("(TOP_K)"), messages(e));
    }

    @Test
    void shouldRefuseAnInnovationShareOutsideTheUnitInterval() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LgcPsTopology.builder()
                .ratio(RATIO).innovationShare(0).support(SupportPolicy.OWN).seed(1).build());
        assertEquals("innovationShare must be > 0, found 0.0", e.getMessage());
    }

    @Test
    void shouldBuildThePapersSettingsByDefaultAndNameABadOne() {
        TopologyDescription defaults = LgcPsTopology.builder().build().describe();
        assertEquals(new LgcPsTopology.Settings(SupportPolicy.LEADER, 0.1), defaults.topologySettings());
        assertEquals("lgc", defaults.compressor());
        assertEquals(LgcPsTopology.builder().ratio(0.01).seed(7).build().describe(), LgcPsTopology.builder()
                .settings(new LgcSettings(0.01, AutoencoderSpec.PAPER, AeTraining.DEFAULT, LgcControl.DEFAULT))
                .seed(7).build().describe());
        assertEquals("ratio must be <= 1.0, found 1.5", assertThrows(IllegalArgumentException.class,
                () -> LgcPsTopology.builder().ratio(1.5).build()).getMessage());
        assertEquals("codec", assertThrows(NullPointerException.class,
                () -> LgcPsTopology.builder().codec(null).build()).getMessage());
        assertEquals("linearLatent applies to topology.type ring (LGC-RAR) only, found 108 with topology.type ps;"
                + " 0 (the default) runs LGC-PS's autoencoder", assertThrows(IllegalArgumentException.class,
                () -> LgcPsTopology.builder().settings(new LgcSettings(0.01, AutoencoderSpec.PAPER,
                        AeTraining.DEFAULT, LgcControl.DEFAULT, 108))).getMessage());
        assertEquals("ablation does not apply to topology.type ps (LGC-PS), found zero-latent; allowed with"
                + " topology.type ps: [innovation-only, latent-only, learned-frozen, none]",
                assertThrows(IllegalArgumentException.class, () -> LgcPsTopology.builder()
                        .control(LgcControl.DEFAULT.withAblation(LgcAblation.ZERO_LATENT)).build()).getMessage());
    }

    private static Stage stageOf(int step) {
        return step < FULL ? Stage.FULL : step < FIRST_COMPRESSED ? Stage.TOP_K : Stage.COMPRESSED;
    }

    private static String messages(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            sb.append(c.getMessage()).append(" | ");
        }
        return sb.toString();
    }

    /**
     * The direct support path keeps LGC-PS's math through all three stages (with the drift guard's checks): the
     * parameters of the relayed run bit for bit; the server receives no INDICES; and {@code support: own}, which has
     * no leader's support, is refused naming the key.
     */
    @Test
    void aDirectSupportShouldGiveTheSameParametersWithoutTheServerSeeingIndices() {
        LgcControl guarded = new LgcControl(10, 2, 4, 4, true, true, 1.0);
        DistributedTrainer relayed = trainer(12, topology(SupportPolicy.LEADER, guarded));
        DistributedTrainer direct = trainer(12, LgcPsTopology.builder().ratio(RATIO).support(SupportPolicy.LEADER)
                .seed(TOPOLOGY_SEED).control(guarded)
                .shortcuts(new Shortcuts(Shortcuts.SupportPath.DIRECT, 0)).build());
        relayed.fit(1);
        TrainingResult result = direct.fit(1);
        for (int r = 0; r < K; r++) {
            assertArrayEquals(relayed.replicas().get(r).params().toFloatVector(),
                    direct.replicas().get(r).params().toFloatVector(), "replica " + r);
        }
        for (Direction d : Direction.values()) {
            assertEquals(0, result.traffic().bytes(SERVER, d, TrafficKind.INDICES), "server, " + d);
        }
        SettingsException e = assertThrows(SettingsException.class, () -> LgcPsTopology.builder()
                .support(SupportPolicy.OWN).shortcuts(new Shortcuts(Shortcuts.SupportPath.DIRECT, 0)).build());
        assertEquals("topology.supportPath direct applies to topology.support leader (the leader's indices sent"
                + " to every worker), found own: every rank sends its own support to the server; remove it or use"
                + " support: leader", e.getMessage());
    }

    private static void assertReplicasIdentical(DistributedTrainer trainer) {
        float[] rank0 = trainer.replicas().get(0).params().toFloatVector();
        for (int r = 1; r < K; r++) {
            assertArrayEquals(rank0, trainer.replicas().get(r).params().toFloatVector(), "replica " + r);
        }
    }

    /** The protocol as the paper has it: no guard traffic, no feedback; the ledger tests count every byte of it. */
    private static LgcPsTopology topology(SupportPolicy policy) {
        return topology(policy, LgcControl.PAPER);
    }

    private static LgcPsTopology topology(SupportPolicy policy, LgcControl control) {
        return LgcPsTopology.builder().ratio(RATIO).support(policy).seed(TOPOLOGY_SEED).control(control).build();
    }

    private static DistributedTrainer trainer(long seed, Topology topology) {
        return trainer(seed, topology, new StageSchedule(FULL, TOP_K));
    }

    private static DistributedTrainer trainer(long seed, Topology topology, StageSchedule stages) {
        return DistributedTrainer.builder().model(TestModels.mlp(seed, new Sgd(0.1)))
                .data(TestModels.data(K * 8 * STEPS, 3)).workers(K).batchSizePerWorker(8).topology(topology)
                .seed(seed).stages(stages).build();
    }
}

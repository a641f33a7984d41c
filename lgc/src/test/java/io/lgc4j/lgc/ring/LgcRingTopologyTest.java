package io.lgc4j.lgc.ring;

import io.lgc4j.lgc.autoencoder.AeTraining;
import io.lgc4j.lgc.autoencoder.AutoencoderSpec;
import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.comm.Direction;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.core.train.DistributedTrainer;
import io.lgc4j.core.train.TestModels;
import io.lgc4j.core.train.TrainingResult;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.learning.config.Sgd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * LGC-RAR end to end on a small MLP (8 → 16 → 12 → 3; layer 1 is LEARNED): through FULL, TOP_K and COMPRESSED,
 * with the stage switches, the byte ledger of every kind, and replica identity checked.
 */
class LgcRingTopologyTest {

    private static final int K = 3;
    private static final int FULL = 3;
    private static final int TOP_K = 6;
    private static final int STEPS = 16;
    /** Selected per step at ratio 0.05: layer1 W 192 → 10, b 12 → 1 (LEARNED); out W 36 → 2, b 3 → 1. */
    private static final int MU = 11;
    private static final int TOP_K_VALUES = 3;

    @Test
    void shouldPassThroughAllThreeStagesWithIdenticalReplicasAndEveryByteCounted() {
        DistributedTrainer trainer = trainer(5);
        TrainingResult result = trainer.fit(1);
        assertEquals(STEPS, result.steps().size());
        for (int s = 0; s < STEPS; s++) {
            Stage expected = s < FULL ? Stage.FULL : s < FULL + TOP_K ? Stage.TOP_K : Stage.COMPRESSED;
            assertEquals(expected, result.steps().get(s).stage(), "stage of step " + s);
        }
        float[] rank0 = trainer.replicas().get(0).params().toFloatVector();
        for (int r = 1; r < K; r++) {
            assertArrayEquals(rank0, trainer.replicas().get(r).params().toFloatVector(), "replica " + r);
        }

        var traffic = result.traffic();
        // TOP_K: every rank but the trainer sends its compact vector to the trainer, one frame per step
        assertEquals((long) TOP_K * 4 * MU, traffic.bytes(1, Direction.SENT, Stage.TOP_K, TrafficKind.AE_SAMPLES));
        assertEquals(0, traffic.bytes(0, Direction.SENT, TrafficKind.AE_SAMPLES));
        assertEquals((long) (K - 1) * TOP_K * 4 * MU,
                traffic.bytes(0, Direction.RECEIVED, Stage.TOP_K, TrafficKind.AE_SAMPLES));
        // the switch: the trainer ships encoder and decoder once to each other rank
        // The paper's architecture's weight files, counted by hand in WeightCodecTest (whatever μ): the encoder
        // 18 + 202 + 4 × 172,996 = 692,204 bytes, the ring decoder 18 + 256 + 4 × 43,733 = 175,206 bytes.
        long weights = 692_204 + 175_206;
        assertEquals((K - 1) * weights, traffic.bytes(0, Direction.SENT, Stage.COMPRESSED, TrafficKind.AE_WEIGHTS));
        assertEquals(weights, traffic.bytes(2, Direction.RECEIVED, Stage.COMPRESSED, TrafficKind.AE_WEIGHTS));
        assertEquals(0, traffic.bytes(0, Direction.SENT, Stage.TOP_K, TrafficKind.AE_WEIGHTS));
        // COMPRESSED: the latent (μ = 11 pads to 16: 4 floats) and the leader's scale ride the ring; the values
        // are only the TOP_K blocks'
        assertTrue(traffic.bytes(0, Direction.SENT, Stage.COMPRESSED, TrafficKind.LATENT) > 0);
        assertEquals(0, traffic.bytes(0, Direction.SENT, Stage.FULL, TrafficKind.LATENT));
        long compressedSteps = STEPS - FULL - TOP_K;
        long ringValueBytes = 0;
        for (int r = 0; r < K; r++) {
            ringValueBytes += traffic.bytes(r, Direction.SENT, Stage.COMPRESSED, TrafficKind.VALUES);
        }
        // all ranks together send 2(K-1)·n·4 per allreduce of n floats: the TOP_K values and the dense layer 0
        assertEquals(compressedSteps * 2 * (K - 1) * 4 * (TOP_K_VALUES + 8 * 16 + 16), ringValueBytes);
        assertTrue(traffic.bytes(1, Direction.SENT, Stage.COMPRESSED, TrafficKind.INDICES) > 0
                || traffic.bytes(0, Direction.SENT, Stage.COMPRESSED, TrafficKind.INDICES) > 0);
        assertTrue(result.steps().get(STEPS - 1).loss() < result.steps().get(0).loss(), "loss should fall");
        for (int s = 0; s < STEPS; s++) {
            double rec = result.steps().get(s).note(io.lgc4j.core.metrics.StepNotes.AE_RECONSTRUCTION);
            boolean training = s >= FULL && s < FULL + TOP_K;
            assertEquals(training, Double.isFinite(rec) && rec > 0, "autoencoder loss reported at step " + s);
        }
    }

    @Test
    void driftGuardShouldFallBackToTopKTogetherOnEveryRankAndCountItsBytes() {
        // a bound no reconstruction meets: the first check trips the guard and the training loss never recovers
        LgcRingTopology strict = new LgcRingTopology(0.05, IndexCodecs.defaultCodec(), AutoencoderSpec.PAPER,
                AeTraining.DEFAULT, 42, new io.lgc4j.lgc.LgcControl(1e-12, 1, 1, 4, true, true, 1.0));
        DistributedTrainer trainer = DistributedTrainer.builder().model(TestModels.mlp(5, new Sgd(0.1)))
                .data(TestModels.data(K * 8 * STEPS, 3)).workers(K).batchSizePerWorker(8).topology(strict)
                .seed(5).stages(new StageSchedule(FULL, TOP_K)).build();
        TrainingResult result = trainer.fit(1);
        int first = FULL + TOP_K;
        var notes = io.lgc4j.core.metrics.StepNotes.class;
        assertTrue(Double.isFinite(result.steps().get(first).note(io.lgc4j.core.metrics.StepNotes.AE_DRIFT)),
                "drift measured at the first compressed step " + notes.getSimpleName());
        for (int s = first + 1; s < STEPS; s++) {
            var m = result.steps().get(s);
            assertEquals(1.0, m.note(io.lgc4j.core.metrics.StepNotes.LGC_FALLBACK), "fallback at step " + s);
            assertTrue(m.note(io.lgc4j.core.metrics.StepNotes.AE_RECONSTRUCTION) > 0, "training again at " + s);
            assertEquals(0, m.traffic().bytes(0, Direction.SENT, Stage.COMPRESSED, TrafficKind.LATENT),
                    "no latent while falling back, step " + s);
            assertEquals(1, m.traffic().bytes(1, Direction.RECEIVED, Stage.COMPRESSED, TrafficKind.CONTROL),
                    "the one-byte recovery flag, step " + s);
        }
        float[] rank0 = trainer.replicas().get(0).params().toFloatVector();
        for (int r = 1; r < K; r++) {
            assertArrayEquals(rank0, trainer.replicas().get(r).params().toFloatVector(), "replica " + r);
        }
    }

    @Test
    void sameSeedShouldGiveIdenticalParametersTwice() {
        DistributedTrainer a = trainer(9);
        a.fit(1);
        DistributedTrainer b = trainer(9);
        b.fit(1);
        assertArrayEquals(a.replicas().get(0).params().toFloatVector(), b.replicas().get(0).params().toFloatVector());
    }

    /**
     * The shortcuts keep LGC-RAR's math through all three stages: the leader's support and scale sent to every rank
     * directly, and every allreduce of this small model in one leg, give the parameters of the plain ring bit for bit
     * (with the drift guard's check steps, so its sample's allreduce goes direct too); fewer frames travel.
     */
    @Test
    void shortcutsShouldGiveTheSameParametersWithFewerFrames() {
        io.lgc4j.lgc.LgcControl guarded = new io.lgc4j.lgc.LgcControl(10, 2, 4, 4, true, true, 1.0);
        DistributedTrainer plain = trainer(11, new LgcRingTopology(0.05, IndexCodecs.defaultCodec(),
                AutoencoderSpec.PAPER, AeTraining.DEFAULT, 42, guarded));
        DistributedTrainer routed = trainer(11, new LgcRingTopology(0.05, IndexCodecs.defaultCodec(),
                AutoencoderSpec.PAPER, AeTraining.DEFAULT, 42, guarded).withShortcuts(
                new io.lgc4j.core.link.Shortcuts(io.lgc4j.core.link.Shortcuts.SupportPath.DIRECT, 1 << 16)));
        TrainingResult a = plain.fit(1);
        TrainingResult b = routed.fit(1);
        for (int r = 0; r < K; r++) {
            assertArrayEquals(plain.replicas().get(r).params().toFloatVector(),
                    routed.replicas().get(r).params().toFloatVector(), "replica " + r);
        }
        long framesA = 0;
        long framesB = 0;
        for (int r = 0; r < K; r++) {
            framesA += a.traffic().bytes(r, Direction.SENT, TrafficKind.HEADER);
            framesB += b.traffic().bytes(r, Direction.SENT, TrafficKind.HEADER);
        }
        assertTrue(framesB < framesA, "header bytes " + framesB + " with the shortcuts, " + framesA + " without");
    }

    @Test
    void shouldRefuseALayoutWithoutLearnedBlocks() {
        // at build(), with the same exception type as LGC-PS (Topology.check; TopologyChecks)
        Exception e = assertThrows(IllegalArgumentException.class, () -> DistributedTrainer.builder()
                .model(TestModels.mlp(1, new Sgd(0.1))).data(TestModels.data(64, 1)).workers(2).batchSizePerWorker(8)
                .topology(topology()).layerPolicy(b -> b.layerIndex() == 0 ? io.lgc4j.core.layout.LayerPolicy.DENSE
                        : io.lgc4j.core.layout.LayerPolicy.TOP_K)
                .stages(new StageSchedule(1, 1)).build());
        assertTrue(messages(e).contains("LGC needs at least one LEARNED block"), messages(e));
    }

    private static String messages(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            sb.append(c.getMessage()).append(" | ");
        }
        return sb.toString();
    }

    private static LgcRingTopology topology() {
        return new LgcRingTopology(0.05, IndexCodecs.defaultCodec(), AutoencoderSpec.PAPER, AeTraining.DEFAULT, 42);
    }

    private static DistributedTrainer trainer(long seed) {
        return trainer(seed, topology());
    }

    private static DistributedTrainer trainer(long seed, LgcRingTopology topology) {
        return DistributedTrainer.builder().model(TestModels.mlp(seed, new Sgd(0.1)))
                .data(TestModels.data(K * 8 * STEPS, 3)).workers(K).batchSizePerWorker(8).topology(topology)
                .seed(seed).stages(new StageSchedule(FULL, TOP_K)).build();
    }
}

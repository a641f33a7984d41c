package io.lgc4j.lgc.ring;

import io.lgc4j.lgc.autoencoder.AeTraining;
import io.lgc4j.lgc.autoencoder.AutoencoderSpec;
import io.lgc4j.lgc.LgcControl;
import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.comm.Direction;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.TrafficMeter;
import io.lgc4j.core.compress.Compressor;
import io.lgc4j.core.compress.SeededSupportCompressor;
import io.lgc4j.core.compress.SharedSupportCompressor;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.metrics.StepMetrics;
import io.lgc4j.core.metrics.StepNotes;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.core.train.CompressedTopologyContract;
import io.lgc4j.core.comm.StepTag;
import io.lgc4j.core.train.Topology;
import io.lgc4j.core.train.TopologyContract;
import io.lgc4j.core.train.TrainingResult;
import io.lgc4j.ring.topology.RingTopology;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * LGC-RAR runs the topology contract: a FULL step is the dense ring's, bit for bit, so every rank holds the exact
 * dense mean; replicas of K = 1 to 4 ranks stay bit-identical through FULL, TOP_K and COMPRESSED (rank 0 trains the
 * autoencoder in TOP_K, every rank encodes and decodes in COMPRESSED on every one of those runs); and an all-FULL
 * run trains like one model. Before the switch it is the ring with a shared-support compressor, and runs the
 * compressed-topology contract as one ({@link AsCompressedTopology}).
 */
class LgcRingTopologyContractTest extends TopologyContract {


    /**
     * A small autoencoder, so the contract stays fast: two stride-2 convolutions of 4 filters, a latent of 2 channels.
     * The paper's architecture runs in {@link LgcRingTopologyTest}.
     */
    static final AutoencoderSpec SMALL = new AutoencoderSpec(List.of(4, 4), 2, 3, 2, List.of(4, 4),
            List.of(2, 2), 0.01);
    /**
     * The default controls (reconstruction feedback, low-pass 0.1) with a drift guard that checks every third
     * compressed step and never trips, so COMPRESSED steps are compressed steps.
     */
    static final LgcControl LENIENT = new LgcControl(1e9, 2, 3, 4, true, true, 0.1);
    /** FULL for steps 0-3, TOP_K for 4-11, COMPRESSED from 12 on (24- and 50-step runs cross all three). */
    private static final StageSchedule STAGES = new StageSchedule(4, 8);

    @Override
    protected Topology topology() {
        return new LgcRingTopology(0.05, IndexCodecs.defaultCodec(), SMALL, AeTraining.DEFAULT, 42, LENIENT);
    }

    /** {@code n} elements: a DENSE block of 300, a LEARNED block of 500 and a TOP_K block of the rest. */
    @Override
    protected GradientLayout meanLayout(int n) {
        return GradientLayout.ofBlocks(List.of(
                new ParamBlock(0, 0, "layer0", "W", 0, 300, new long[] {300}, LayerPolicy.DENSE),
                new ParamBlock(1, 1, "layer1", "W", 300, 500, new long[] {500}, LayerPolicy.LEARNED),
                new ParamBlock(2, 2, "layer2", "W", 800, n - 800, new long[] {n - 800}, LayerPolicy.TOP_K)));
    }

    @Override
    protected StageSchedule replicaStages() {
        return STAGES;
    }

    /**
     * Per step of a replica run: the autoencoder trains (its loss is noted) exactly in TOP_K, when every rank but
     * the trainer (rank 0) sends it its compact vector; in COMPRESSED every rank sends latent traffic (the latents'
     * allreduce) and the guard never falls back. With one rank nothing travels at all.
     */
    @Override
    protected void checkReplicaRun(TrainingResult result, int workers) {
        for (int s = 0; s < result.steps().size(); s++) {
            StepMetrics m = result.steps().get(s);
            Stage stage = STAGES.stageAt(s);
            String at = "K=" + workers + ", step " + s + " (" + stage + ")";
            assertEquals(stage, m.stage(), at);
            double rec = m.note(StepNotes.AE_RECONSTRUCTION);
            assertEquals(stage == Stage.TOP_K, Double.isFinite(rec) && rec > 0, at + ": autoencoder loss " + rec);
            assertTrue(Double.isNaN(m.note(StepNotes.LGC_FALLBACK)), at + ": no fallback");
            TrafficMeter.Snapshot t = m.traffic();
            for (int r = 0; r < workers; r++) {
                String who = at + ", rank " + r;
                assertEquals(stage == Stage.COMPRESSED && workers > 1,
                        t.bytes(r, Direction.SENT, TrafficKind.LATENT) > 0, who + ": latent");
                assertEquals(stage == Stage.TOP_K && r != 0, t.bytes(r, Direction.SENT, TrafficKind.AE_SAMPLES) > 0,
                        who + ": compact vector for the trainer");
            }
            if (workers == 1) {
                assertEquals(0, t.bytes(0, Direction.SENT), at + ": a ring of one sends nothing");
            }
        }
    }

    @Override
    protected StageSchedule unionStages() {
        return StageSchedule.ALWAYS_FULL;
    }

    @ParameterizedTest(name = "K={0}")
    @ValueSource(ints = {1, 2, 3, 4})
    void fullStepShouldBeTheDenseRingsBitForBit(int k) throws Exception {
        GradientLayout layout = meanLayout(1003);
        float[][] inputs = gaussianInputs(k, 1003);
        StepTag tag = new StepTag(0, Stage.FULL);
        float[][] expected = exchange(new RingTopology(), layout, inputs, tag);
        float[][] actual = exchange(topology(), layout, inputs, tag);
        for (int r = 0; r < k; r++) {
            assertArrayEquals(expected[r], actual[r], "rank " + r + " of " + k);
        }
    }

    /**
     * Until the switch, LGC-RAR is the ring with a shared-support compressor (random leaders, plain error feedback):
     * it stands in for the contract's shared-support compressors at their ratio. It carries no other kind.
     */
    @Nested
    class AsCompressedTopology extends CompressedTopologyContract {

        @Override
        protected Topology topology(Compressor compressor) {
            assumeTrue(compressor instanceof SharedSupportCompressor
                    && !(compressor instanceof SeededSupportCompressor), "LGC-RAR carries its own leader-chosen"
                    + " shared support, not " + compressor);
            return new LgcRingTopology(compressor.density(0, TOP_K_BLOCK), IndexCodecs.defaultCodec(), SMALL,
                    AeTraining.DEFAULT, 42, LgcControl.PAPER);
        }

        @Override
        protected Topology denseTopology() {
            return new RingTopology();
        }
    }
}

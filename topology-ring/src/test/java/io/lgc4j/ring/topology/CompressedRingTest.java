package io.lgc4j.ring.topology;

import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.comm.Direction;
import io.lgc4j.core.comm.FrameDescriptor;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.TrafficMeter;
import io.lgc4j.core.compress.Compressor;
import io.lgc4j.core.compress.DgcCompressor;
import io.lgc4j.core.compress.GatherCompressor;
import io.lgc4j.core.compress.RandomKCompressor;
import io.lgc4j.core.compress.ScaleComCompressor;
import io.lgc4j.core.link.Shortcuts;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.train.CompressedTopologyContract;
import io.lgc4j.core.train.Topology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The ring runs the compressed-topology contract, and refuses gather-only payloads when told to; random-k's bytes
 * are its values alone, and each block sends the count of its policy's ratio.
 */
class CompressedRingTest extends CompressedTopologyContract {
    /** Ranks of the hand-driven runs. */
    private static final int K = 3;
    /** Elements of the DENSE block of {@link #POLICIES}. */
    private static final int DENSE = 40;

    @Override
    protected Topology topology(Compressor compressor) {
        return new RingTopology(compressor);
    }

    @Override
    protected Topology denseTopology() {
        return new RingTopology();
    }

    /** Every allreduce of the test layout under 4 KiB goes direct; a leader's support goes direct too. */
    @Override
    protected Topology routedTopology(Compressor compressor) {
        return new RingTopology(compressor).withShortcuts(new Shortcuts(leaderChoosesSupport(compressor)
                ? Shortcuts.SupportPath.DIRECT : Shortcuts.SupportPath.RELAY, 4096));
    }

    @Test
    void shouldRefuseAGatherOnlyCompressorWhenAllGatherIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new RingTopology(
                new DgcCompressor(0.001, 0.9, 0, 0), IndexCodecs.defaultCodec(), RingTopology.GatherPolicy.REFUSE));
        assertEquals("the ring cannot carry compressor 'dgc': its payloads are not summable (each rank picks its own"
                + " support), and this ring refuses all-gather; use a summable compressor (scalecom),"
                + " GatherPolicy.ALL_GATHER, or the parameter server", e.getMessage());
        new RingTopology(new ScaleComCompressor(0.001, 1.0), IndexCodecs.defaultCodec(),
                RingTopology.GatherPolicy.REFUSE);
        new RingTopology(new RandomKCompressor(0.001, 1), IndexCodecs.defaultCodec(),
                RingTopology.GatherPolicy.REFUSE);
    }

    /**
     * Random-k at 5% (TOP_K) and 10% (LEARNED) on K = 3 ranks: per step two allreduces, of the 38 values on the seeded
     * support and of the 40 DENSE values, each element sent 2·(K−1) = 4 times over the ring: 4 × 4 × 78 = 1,248 bytes
     * of values in all, in 2 × 2·(K−1) = 8 frames per rank; no INDICES frame.
     */
    @Test
    void randomKShouldSendFourBytesPerValueAndNoIndexFrame() throws Exception {
        int steps = 2;
        Steps run = exchangeSteps(new RingTopology(new RandomKCompressor(new RandomKCompressor.Settings(0.05, 0.1),
                42)), POLICIES, gaussianSteps(steps, K, 477, 9));
        TrafficMeter.Snapshot t = run.traffic();
        long values = 0;
        for (int r = 0; r < K; r++) {
            values += t.bytes(r, Direction.SENT, Stage.TOP_K, TrafficKind.VALUES);
            for (Direction d : Direction.values()) {
                assertEquals(0, t.bytes(r, d, TrafficKind.INDICES), "rank " + r + " " + d);
                assertEquals(steps * 8L * FrameDescriptor.OVERHEAD, t.bytes(r, d, Stage.TOP_K, TrafficKind.HEADER),
                        "eight frames a step, rank " + r + " " + d);
            }
        }
        assertEquals(steps * 1_248L, values);
    }

    /**
     * The ranks' values are, per compressible block, the count of its policy's ratio: summed over the ring, a shared
     * support's values are allreduced (each sent 2·(K−1) times) and a gather-only set visits K−1 other ranks (each
     * of K sets sent K−1 times); the DENSE block is allreduced. The decoders of the all-gather and of the leader's
     * indices accept a LEARNED block sending more than {@code ratio} (their bounds are per block).
     */
    @ParameterizedTest(name = "{0}: {1} values")
    @MethodSource("learnedRatios")
    void ranksShouldSendTheCountOfEachBlocksPolicy(Compressor compressor, int values) throws Exception {
        int steps = 2;
        Steps run = exchangeSteps(topology(compressor), POLICIES, gaussianSteps(steps, K, 477, 10));
        long sent = 0;
        for (int r = 0; r < K; r++) {
            sent += run.traffic().bytes(r, Direction.SENT, Stage.TOP_K, TrafficKind.VALUES);
        }
        long perStep = compressor instanceof GatherCompressor
                ? 4L * (K * (K - 1) * values + 2 * (K - 1) * DENSE)
                : 4L * 2 * (K - 1) * (values + DENSE);
        assertEquals(steps * perStep, sent);
        for (int r = 1; r < K; r++) {
            assertArrayEquals(run.outputs()[steps - 1][0], run.outputs()[steps - 1][r], "rank " + r);
        }
    }
}

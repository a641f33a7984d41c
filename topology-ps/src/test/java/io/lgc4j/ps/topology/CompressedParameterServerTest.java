package io.lgc4j.ps.topology;

import io.lgc4j.core.compress.ScaleComCompressor;
import org.junit.jupiter.api.Assumptions;
import io.lgc4j.core.comm.Direction;
import io.lgc4j.core.comm.FrameDescriptor;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.TrafficMeter;
import io.lgc4j.core.compress.Compressor;
import io.lgc4j.core.compress.RandomKCompressor;
import io.lgc4j.core.link.Shortcuts;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.train.CompressedTopologyContract;
import io.lgc4j.core.train.Topology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The parameter server runs the compressed-topology contract; random-k's bytes are its values alone, and each block
 * sends the count of its policy's ratio.
 */
class CompressedParameterServerTest extends CompressedTopologyContract {
    /** Workers of the hand-driven runs; the server is endpoint K. */
    private static final int K = 3;
    /** Elements of the DENSE block of {@link #POLICIES}. */
    private static final int DENSE = 40;

    @Override
    protected Topology topology(Compressor compressor) {
        return new ParameterServerTopology(compressor);
    }

    /** A leader's support goes to the workers directly (the server relays nothing); other compressors: skipped. */
    @Override
    protected Topology routedTopology(Compressor compressor) {
        Assumptions.assumeTrue(leaderChoosesSupport(compressor),
                "only a leader's support has a shortcut on the parameter server");
        return ((ParameterServerTopology) topology(compressor))
                .withShortcuts(new Shortcuts(Shortcuts.SupportPath.DIRECT, 0));
    }

    @Override
    protected Topology denseTopology() {
        return new ParameterServerTopology();
    }

    /**
     * Random-k at 5% (TOP_K) and 10% (LEARNED): per step each worker sends two VALUES frames, its 40 DENSE values and
     * its 6 + 30 + 2 = 38 values on the seeded support, 4 × 78 = 312 bytes, and receives the same from the server;
     * no INDICES frame goes either way.
     */
    @Test
    void randomKShouldSendFourBytesPerValueAndNoIndexFrame() throws Exception {
        int steps = 2;
        Steps run = exchangeSteps(new ParameterServerTopology(new RandomKCompressor(
                new RandomKCompressor.Settings(0.05, 0.1), 42)), POLICIES, gaussianSteps(steps, K, 477, 9));
        TrafficMeter.Snapshot t = run.traffic();
        for (int w = 0; w < K; w++) {
            for (Direction d : Direction.values()) {
                assertEquals(steps * 312L, t.bytes(w, d, Stage.TOP_K, TrafficKind.VALUES), "worker " + w + " " + d);
                assertEquals(0, t.bytes(w, d, TrafficKind.INDICES), "worker " + w + " " + d);
                assertEquals(steps * 2L * FrameDescriptor.OVERHEAD, t.bytes(w, d, Stage.TOP_K, TrafficKind.HEADER),
                        "two frames a step, worker " + w + " " + d);
            }
        }
        assertEquals(K * steps * 312L, t.bytes(K, Direction.SENT, Stage.TOP_K, TrafficKind.VALUES));
        assertEquals(0, t.bytes(K, Direction.SENT, TrafficKind.INDICES));
    }

    /**
     * Each worker's values are its DENSE block and, per compressible block, the count of its policy's ratio; the
     * server's decoders accept a LEARNED block sending more than {@code ratio} (their bounds are per block).
     */
    @ParameterizedTest(name = "{0}: {1} values")
    @MethodSource("learnedRatios")
    void workersShouldSendTheCountOfEachBlocksPolicy(Compressor compressor, int values) throws Exception {
        int steps = 2;
        Steps run = exchangeSteps(topology(compressor), POLICIES, gaussianSteps(steps, K, 477, 10));
        for (int w = 0; w < K; w++) {
            assertEquals(steps * 4L * (DENSE + values), run.traffic().bytes(w, Direction.SENT, Stage.TOP_K,
                    TrafficKind.VALUES), "worker " + w);
        }
        for (int r = 1; r < K; r++) {
            assertArrayEquals(run.outputs()[steps - 1][0], run.outputs()[steps - 1][r], "rank " + r);
        }
    }

    /**
     * ScaleCom with the direct support path: the server receives and sends no INDICES frame; the step's leader sends
     * its support to each of the K − 1 other workers, who receive exactly the bytes the server would have relayed.
     */
    @Test
    void aDirectSupportShouldBypassTheServer() throws Exception {
        int steps = 3;
        ScaleComCompressor scalecom = new ScaleComCompressor(0.05, 1.0);
        float[][][] inputs = gaussianSteps(steps, K, 477, 12);
        Steps relayed = exchangeSteps(topology(scalecom), POLICIES, inputs);
        Steps direct = exchangeSteps(routedTopology(scalecom), POLICIES, inputs);
        TrafficMeter.Snapshot t = direct.traffic();
        for (Direction d : Direction.values()) {
            assertEquals(0, t.bytes(K, d, TrafficKind.INDICES), "server, " + d);
        }
        long sentByWorkers = 0;
        for (int w = 0; w < K; w++) {
            sentByWorkers += t.bytes(w, Direction.SENT, TrafficKind.INDICES);
            assertEquals(relayed.traffic().bytes(w, Direction.RECEIVED, TrafficKind.INDICES),
                    t.bytes(w, Direction.RECEIVED, TrafficKind.INDICES), "worker " + w);
        }
        assertEquals(relayed.traffic().bytes(K, Direction.SENT, TrafficKind.INDICES), sentByWorkers,
                "the leaders send what the server relayed");
        for (int w = 0; w < K; w++) {
            assertArrayEquals(relayed.outputs()[steps - 1][w], direct.outputs()[steps - 1][w], "worker " + w);
        }
    }
}

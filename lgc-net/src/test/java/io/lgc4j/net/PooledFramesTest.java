package io.lgc4j.net;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameBuffer;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.link.StepLink;
import io.lgc4j.core.protocol.FloatFrames;
import io.lgc4j.core.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Future;

import static io.lgc4j.core.comm.FrameDescriptor.OVERHEAD;
import static io.lgc4j.net.NetFixtures.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Frames in pooled direct memory: written by the socket from where they were encoded, read by the socket into the
 * memory they are decoded from, and the memory reused step after step.
 */
class PooledFramesTest {
    /**
     * Float counts: empty, tiny, a frame that just fills one read buffer, one just over it, and frames that span
     * many reads.
     */
    private static final int[] COUNTS = {0, 3, (FrameReadAllocator.READ_BUFFER - OVERHEAD) / 4,
            (FrameReadAllocator.READ_BUFFER - OVERHEAD) / 4 + 1, 75_000, 1_250_000, 10_000_000};
    private static final int ROUNDS = 8;

    @Test
    @Timeout(180)
    void shouldCarryPooledFramesBothWaysAndReuseTheirMemoryEveryRound() throws Exception {
        List<TcpCluster> clusters = joinAll(2, freeMaster(), new RecordingLog());
        try {
            long[] allocationsAfterRound = new long[ROUNDS];
            for (int round = 0; round < ROUNDS; round++) {
                int r = round;
                List<Future<Void>> sides = new ArrayList<>();
                for (TcpCluster c : clusters) {
                    sides.add(async(() -> {
                        step(c.transport(), r);
                        return null;
                    }));
                }
                for (Future<Void> side : sides) {
                    side.get();
                }
                allocationsAfterRound[round] = clusters.get(0).copies().poolAllocations()
                        + clusters.get(1).copies().poolAllocations();
            }
            // Reused, not allocated per frame: an endpoint holds at most two rounds of its sends (the last chunks of
            // round r may still be in flight when round r + 1 leases) and two of its receives (the peer may be a
            // round ahead) per size. Without reuse every round would allocate again (at least 2 x 10 per round).
            long bound = 2L * 4 * COUNTS.length;
            assertTrue(allocationsAfterRound[ROUNDS - 1] <= bound, "pool allocations after each round: "
                    + java.util.Arrays.toString(allocationsAfterRound) + ", expected at most " + bound);
            long frameBytes = 0;
            for (int count : COUNTS) {
                frameBytes += 4L * count + OVERHEAD;
            }
            for (TcpCluster c : clusters) {
                TcpCluster.Copies copies = c.copies();
                assertEquals(ROUNDS * frameBytes, copies.sentInPlace(), "every frame written from its pooled memory");
                assertEquals(0, copies.sentCopied());
                assertEquals(ROUNDS * frameBytes, copies.receivedInPlace() + copies.receivedCopied(),
                        "every frame byte counted once (the transport's own LINK frames not at all)");
                // only what arrived in the same read buffer as a frame's header is copied into the frame
                assertTrue(copies.receivedCopied() <= (long) ROUNDS * COUNTS.length * FrameReadAllocator.READ_BUFFER,
                        "copied " + copies.receivedCopied() + " of " + ROUNDS * frameBytes + " bytes");
                // a lease per frame sent, and one per frame received that did not arrive whole in one read buffer
                // (the three largest never can)
                assertTrue(copies.poolLeases() >= (long) ROUNDS * (COUNTS.length + 3)
                        && copies.poolLeases() <= 2L * ROUNDS * COUNTS.length, "leases " + copies.poolLeases());
            }
        } finally {
            closeAll(clusters);
        }
        TcpClusterTest.assertNoTransportThreads();
    }

    /** One round: every size to the peer, every size back, checked, then the receive buffers released. */
    private static void step(Transport t, int round) {
        int peer = 1 - t.endpoint();
        for (int i = 0; i < COUNTS.length; i++) {
            float[] values = values(COUNTS[i], seed(t.endpoint(), round, i));
            t.send(peer, FloatFrames.encode(t, values, 0, values.length, TrafficKind.VALUES, Stage.FULL, round));
        }
        for (int i = 0; i < COUNTS.length; i++) {
            Frame in = t.receive(peer, TrafficKind.VALUES);
            assertEquals(round, in.step());
            float[] got = FloatFrames.read(in, COUNTS[i]);
            assertArrayEquals(values(COUNTS[i], seed(peer, round, i)), got, "size " + COUNTS[i] + " round " + round);
        }
        t.releaseReceived();
    }

    @Test
    @Timeout(120)
    void shouldBroadcastOnePooledFrameAndReuseItOnlyWhenEveryLinkWroteIt() throws Exception {
        List<TcpCluster> clusters = joinAll(3, freeMaster(), new RecordingLog());
        try {
            Transport zero = clusters.get(0).transport();
            StepLink link = StepLink.ringRank(0, zero);
            long allocated = -1;
            for (int round = 0; round < ROUNDS; round++) {
                float[] values = values(2_000_000, round);
                FrameBuffer frame = FloatFrames.encode(zero, values, 0, values.length, TrafficKind.VALUES, Stage.FULL,
                        round);
                link.sendToAllBut(3, 0, frame);
                for (int e = 1; e < 3; e++) {
                    Transport t = clusters.get(e).transport();
                    assertArrayEquals(values, FloatFrames.read(t.receive(0, TrafficKind.VALUES), values.length));
                    t.releaseReceived();
                }
                if (round == 1) {
                    allocated = clusters.get(0).copies().poolAllocations();
                }
            }
            assertEquals(allocated, clusters.get(0).copies().poolAllocations(),
                    "the broadcast frame came back to the pool after both writes and was leased again");
        } finally {
            closeAll(clusters);
        }
    }

    @Test
    @Timeout(60)
    void shouldCountHeapFramesAsCopiedAndStillDeliverThem() throws Exception {
        List<TcpCluster> clusters = joinAll(2, freeMaster(), new RecordingLog());
        try {
            byte[] heap = frame(300_000, 7, 0);
            clusters.get(0).transport().send(1, heap);
            Frame in = clusters.get(1).transport().receive(0);
            assertTrue(hasPattern(in.payload(), 300_000, 7));
            assertEquals(heap.length, clusters.get(0).copies().sentCopied());
            assertEquals(0, clusters.get(0).copies().sentInPlace());
        } finally {
            closeAll(clusters);
        }
    }

    @Test
    @Timeout(60)
    void shouldRefuseAFrameSentAfterItsLastReference() throws Exception {
        List<TcpCluster> clusters = joinAll(2, freeMaster(), new RecordingLog());
        try {
            Transport zero = clusters.get(0).transport();
            FrameBuffer frame = FloatFrames.encode(zero, new float[10], 0, 10, TrafficKind.VALUES, Stage.FULL, 0);
            frame.release();
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> zero.send(1, frame));
            assertEquals("frame buffer used after its last release", e.getMessage());
            IllegalStateException unsealed = assertThrows(IllegalStateException.class,
                    () -> zero.send(1, zero.allocate(8)));
            assertEquals("the frame is not sealed: call seal(kind, stage, step) first", unsealed.getMessage());
        } finally {
            closeAll(clusters);
        }
    }

    private static int seed(int endpoint, int round, int i) {
        return endpoint * 1000 + round * 10 + i;
    }

    private static float[] values(int count, int seed) {
        Random random = new Random(seed);
        float[] v = new float[count];
        for (int i = 0; i < count; i++) {
            v[i] = random.nextFloat() - 0.5f;
        }
        return v;
    }
}

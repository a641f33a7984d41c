package io.lgc4j.net;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.comm.TransportClosedException;
import io.lgc4j.core.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.zip.CRC32C;

import static io.lgc4j.net.NetFixtures.*;
import static org.junit.jupiter.api.Assertions.*;

class TcpClusterTest {
    private static final int[] SIZES = {0, 1, 1000, 300_000, 5_000_000};

    @Test
    @Timeout(120)
    void shouldExchangeFramesOfEverySizeInOrderBetweenEveryOrderedPair() throws Exception {
        InetSocketAddress master = freeMaster();
        List<TcpCluster> clusters = joinAll(3, master, new RecordingLog());
        try {
            assertEquals(master.getPort(), clusters.get(0).boundPort());
            for (TcpCluster c : clusters) {
                assertEquals(3, c.endpointTable().size());
                assertEquals(master.getPort(), c.endpointTable().get(0).getPort());
                for (InetSocketAddress a : c.endpointTable()) {
                    assertEquals("127.0.0.1", a.getAddress().getHostAddress());
                }
                for (int e = 1; e < 3; e++) {
                    assertEquals(clusters.get(e).boundPort(), c.endpointTable().get(e).getPort());
                }
            }
            List<Future<Void>> runs = new ArrayList<>();
            for (TcpCluster c : clusters) {
                runs.add(async(() -> {
                    exchange(c.transport());
                    return null;
                }));
            }
            for (Future<Void> run : runs) {
                run.get();
            }
        } finally {
            closeAll(clusters);
        }
        assertNoTransportThreads();
    }

    @Test
    @Timeout(60)
    void shouldListenFirstOnAnyPortAndJoinOnceEndpointZerosAddressIsKnown() throws Exception {
        // what a Spark barrier task does: every endpoint binds, the engine exchanges the ports, then all join
        List<TcpCluster> listening = new ArrayList<>();
        List<TcpCluster> clusters = null;
        try {
            for (int e = 0; e < 3; e++) {
                listening.add(TcpCluster.listen(settings(e, 3, null), new RecordingLog()));
            }
            assertNotEquals(0, listening.get(0).boundPort());
            InetSocketAddress master = new InetSocketAddress("127.0.0.1", listening.get(0).boundPort());
            List<Future<TcpCluster>> joins = new ArrayList<>();
            for (int e = 2; e >= 0; e--) {
                TcpCluster c = listening.get(e);
                joins.add(async(() -> c.join(master)));
            }
            clusters = new ArrayList<>();
            for (Future<TcpCluster> join : joins) {
                clusters.add(0, join.get());
            }
            for (int e = 0; e < 3; e++) {
                assertSame(listening.get(e), clusters.get(e));
                assertEquals(listening.get(e).boundPort(), clusters.get(1).endpointTable().get(e).getPort());
            }
            List<Future<Void>> runs = new ArrayList<>();
            for (TcpCluster c : clusters) {
                runs.add(async(() -> {
                    exchange(c.transport());
                    return null;
                }));
            }
            for (Future<Void> run : runs) {
                run.get();
            }
            IllegalStateException twice = assertThrows(IllegalStateException.class,
                    () -> listening.get(1).join(master));
            assertEquals("endpoint 1 already joined its job", twice.getMessage());
        } finally {
            closeAll(listening);
        }
        assertNoTransportThreads();
    }

    private static void exchange(Transport t) {
        int self = t.endpoint();
        for (int peer = 0; peer < t.endpointCount(); peer++) {
            if (peer != self) {
                for (int i = 0; i < SIZES.length; i++) {
                    t.send(peer, frame(SIZES[i], seed(self, peer, i), i));
                }
            }
        }
        for (int peer = 0; peer < t.endpointCount(); peer++) {
            if (peer != self) {
                for (int i = 0; i < SIZES.length; i++) {
                    Frame f = t.receive(peer, TrafficKind.VALUES);
                    assertEquals(peer, f.sender());
                    assertEquals(JOB, f.job());
                    assertEquals(i, f.step());
                    assertEquals(Stage.TOP_K, f.stage());
                    assertTrue(hasPattern(f.payload(), SIZES[i], seed(peer, self, i)),
                            "payload " + i + " from " + peer + " to " + self);
                }
            }
        }
    }

    private static int seed(int from, int to, int i) {
        return from * 100 + to * 10 + i;
    }

    @Test
    @Timeout(180)
    void shouldCarryA256MegabyteFrameThereAndBack() throws Exception {
        int length = 256 << 20;
        List<TcpCluster> clusters = joinAll(2, freeMaster(), new RecordingLog());
        try {
            Transport zero = clusters.get(0).transport();
            Transport one = clusters.get(1).transport();
            Future<Void> echo = async(() -> {
                Frame in = one.receive(0);
                assertEquals(length, in.payloadLength());
                one.send(0, FrameCodec.encode(TrafficKind.MODEL_WEIGHTS, Stage.SETUP, -1, in.payload()));
                return null;
            });
            long crc;
            {
                ByteBuffer payload = FrameCodec.allocate(length);
                byte[] block = new byte[1 << 20];
                ThreadLocalRandom.current().nextBytes(block);
                for (int at = 0; at < length; at += block.length) {
                    payload.put(at, block);
                }
                crc = crc(payload);
                zero.send(1, FrameCodec.seal(payload, TrafficKind.MODEL_WEIGHTS, Stage.SETUP, -1));
            }
            Frame back = zero.receive(1, TrafficKind.MODEL_WEIGHTS);
            echo.get();
            assertEquals(length, back.payloadLength());
            assertEquals(1, back.sender());
            assertEquals(crc, crc(back.payload()));
        } finally {
            closeAll(clusters);
        }
    }

    @Test
    @Timeout(60)
    void shouldThrowTransportClosedAfterClose() throws Exception {
        List<TcpCluster> clusters = joinAll(2, freeMaster(), new RecordingLog());
        closeAll(clusters);
        Transport zero = clusters.get(0).transport();
        TransportClosedException receive = assertThrows(TransportClosedException.class, () -> zero.receive(1));
        assertEquals("endpoint 0 cannot receive from endpoint 1: the cluster is closed", receive.getMessage());
        TransportClosedException send = assertThrows(TransportClosedException.class,
                () -> zero.send(1, frame(4, 1, 0)));
        assertEquals("endpoint 0 cannot send to endpoint 1: the cluster is closed", send.getMessage());
        clusters.get(0).close(); // idempotent
    }

    @Test
    @Timeout(60)
    void shouldRefuseToSendALinkFrameOfTheCaller() throws Exception {
        List<TcpCluster> clusters = joinAll(2, freeMaster(), new RecordingLog());
        try {
            byte[] link = FrameCodec.encode(TrafficKind.LINK, Stage.SETUP, -1, ByteBuffer.wrap(new byte[]{3}));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> clusters.get(0).transport().send(1, link));
            assertEquals("endpoint 0 cannot send a LINK frame to endpoint 1: LINK frames are the transport's own",
                    e.getMessage());
        } finally {
            closeAll(clusters);
        }
    }

    @Test
    @Timeout(60)
    void shouldJoinAloneWithoutPeers() {
        InetSocketAddress master = freeMaster();
        try (TcpCluster alone = TcpCluster.join(settings(0, 1, master))) {
            assertEquals(1, alone.endpointTable().size());
            assertEquals(master.getPort(), alone.boundPort());
            assertFalse(alone.tls(), "no TLS settings: plain TCP");
        }
    }

    private static long crc(ByteBuffer payload) {
        CRC32C crc = new CRC32C();
        crc.update(payload.duplicate());
        return crc.getValue();
    }

    /** Every event-loop thread ends with close() (they are not daemons: none may be left behind). */
    static void assertNoTransportThreads() throws InterruptedException {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("lgc-net-")) {
                t.join(10_000);
                assertFalse(t.isAlive(), "thread " + t.getName() + " still runs after close()");
            }
        }
    }
}

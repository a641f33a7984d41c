package io.lgc4j.net;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameDescriptor;
import io.lgc4j.core.comm.PeerLostException;
import io.lgc4j.core.comm.Transport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

import static io.lgc4j.net.NetFixtures.*;
import static org.junit.jupiter.api.Assertions.*;

/** How a transport reports a peer that vanished, stalled, sent garbage, was reported lost, or left in order. */
class FailureTest {
    private static final int RAW_PORT = 4242;

    /** Endpoint 0 of two, joined with a raw peer as endpoint 1. */
    private static TcpCluster joinWithRawPeer(NetSettings zeroSettings, RawPeer[] raw) throws Exception {
        InetSocketAddress master = zeroSettings.addressing().master();
        Future<TcpCluster> zero = async(() -> TcpCluster.join(zeroSettings, new RecordingLog()));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (raw[0] == null) {
            try {
                raw[0] = RawPeer.join(master, 1, 2, RAW_PORT);
            } catch (java.net.ConnectException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20)); // connect retry
            }
        }
        return zero.get(30, TimeUnit.SECONDS);
    }

    private static String lostOne() {
        return "lost endpoint 1 (127.0.0.1:" + RAW_PORT + "): ";
    }

    @Test
    @Timeout(60)
    void shouldDeliverWhatCameThenNameAPeerThatClosedWithoutGoodbye() throws Exception {
        RawPeer[] raw = new RawPeer[1];
        try (TcpCluster zero = joinWithRawPeer(settings(0, 2, freeMaster()), raw)) {
            raw[0].sendFrame(frame(100, 1, 0), 1);
            raw[0].close();
            Transport t = zero.transport();
            assertTrue(hasPattern(t.receive(1).payload(), 100, 1));
            PeerLostException lost = assertThrows(PeerLostException.class, () -> t.receive(1));
            assertEquals(1, lost.peer());
            assertEquals(lostOne() + "connection closed without goodbye", lost.getMessage());
            // every later operation involving that peer says the same
            assertEquals(lost.getMessage(), assertThrows(PeerLostException.class, () -> t.receive(1)).getMessage());
            assertEquals(lost.getMessage(),
                    assertThrows(PeerLostException.class, () -> t.send(1, frame(10, 1, 1))).getMessage());
        }
    }

    @Test
    @Timeout(60)
    void shouldNameAPeerWhoseConnectionWasReset() throws Exception {
        RawPeer[] raw = new RawPeer[1];
        try (TcpCluster zero = joinWithRawPeer(settings(0, 2, freeMaster()), raw)) {
            Future<Frame> pending = async(() -> zero.transport().receive(1));
            raw[0].reset();
            Throwable lost = failure(pending);
            assertInstanceOf(PeerLostException.class, lost);
            // epoll: "connection broken: recvAddress(..) failed: Connection reset by peer"
            assertTrue(lost.getMessage().startsWith(lostOne() + "connection broken: "), lost.getMessage());
            assertTrue(lost.getMessage().endsWith("Connection reset by peer"), lost.getMessage());
        }
    }

    @Test
    @Timeout(60)
    void shouldLoseAStalledPeerAfterTheIdleTimeout() throws Exception {
        RawPeer[] raw = new RawPeer[1];
        NetSettings s = builder(0, 2, freeMaster()).idleTimeout(Duration.ofMillis(800)).build();
        try (TcpCluster zero = joinWithRawPeer(s, raw)) {
            long start = System.nanoTime();
            PeerLostException lost = assertThrows(PeerLostException.class, () -> zero.transport().receive(1));
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertEquals(lostOne() + "nothing received for 800 ms (stalled or stopped?)", lost.getMessage());
            assertTrue(ms < 5_000, "lost after " + ms + " ms");
        } finally {
            raw[0].close();
        }
    }

    @Test
    @Timeout(60)
    void shouldCloseTheLinkOnACorruptFrameNamingTheCrcMismatch() throws Exception {
        RawPeer[] raw = new RawPeer[1];
        try (TcpCluster zero = joinWithRawPeer(settings(0, 2, freeMaster()), raw)) {
            raw[0].sendFrame(frame(64, 1, 0), 1);
            byte[] bad = frame(64, 2, 1);
            io.lgc4j.core.comm.FrameCodec.stamp(bad, 1, JOB);
            bad[FrameDescriptor.HEADER_LENGTH + 10] ^= 0x01;
            CRC32C crc = new CRC32C();
            crc.update(bad, 0, bad.length - FrameDescriptor.TRAILER_LENGTH);
            int says = ByteBuffer.wrap(bad).order(ByteOrder.LITTLE_ENDIAN).getInt(bad.length - 4);
            raw[0].writeRaw(bad);

            Transport t = zero.transport();
            assertTrue(hasPattern(t.receive(1).payload(), 64, 1));
            PeerLostException lost = assertThrows(PeerLostException.class, () -> t.receive(1));
            assertEquals(lostOne() + String.format("corrupt frame: frame CRC32C mismatch: computed 0x%08X, frame says"
                    + " 0x%08X", (int) crc.getValue(), says), lost.getMessage());
            assertTrue(raw[0].awaitClosedByPeer(), "the link is closed");
        } finally {
            raw[0].close();
        }
    }

    @Test
    @Timeout(60)
    void shouldCloseTheLinkOnAFrameStampedByAnotherSender() throws Exception {
        RawPeer[] raw = new RawPeer[1];
        try (TcpCluster zero = joinWithRawPeer(settings(0, 2, freeMaster()), raw)) {
            raw[0].sendFrame(frame(8, 1, 0), 0);
            PeerLostException lost = assertThrows(PeerLostException.class, () -> zero.transport().receive(1));
            assertEquals(lostOne() + "frame stamped by endpoint 0 of job 9, expected endpoint 1 of job 9",
                    lost.getMessage());
        } finally {
            raw[0].close();
        }
    }

    @Test
    @Timeout(60)
    void shouldRefuseAnOversizedHeaderBeforeAllocating() throws Exception {
        RawPeer[] raw = new RawPeer[1];
        try (TcpCluster zero = joinWithRawPeer(settings(0, 2, freeMaster()), raw)) {
            byte[] header = frame(0, 0, 0);
            io.lgc4j.core.comm.FrameCodec.stamp(header, 1, JOB);
            ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN).putInt(FrameDescriptor.LENGTH_OFFSET, -2);
            raw[0].writeRaw(java.util.Arrays.copyOf(header, FrameDescriptor.HEADER_LENGTH));
            PeerLostException lost = assertThrows(PeerLostException.class, () -> zero.transport().receive(1));
            assertEquals(lostOne() + "corrupt frame: frame payload length out of range: expected 0.."
                    + FrameDescriptor.MAX_PAYLOAD_LENGTH + ", found 4294967294", lost.getMessage());
        } finally {
            raw[0].close();
        }
    }

    @Test
    @Timeout(60)
    void shouldBlockASenderWhosePeerReadsNothingThenLoseIt() throws Exception {
        RawPeer[] raw = new RawPeer[1];
        NetSettings s = builder(0, 2, freeMaster()).receiveTimeout(Duration.ofMillis(1500))
                .firstReceiveTimeout(Duration.ofMillis(1500)).idleTimeout(Duration.ofSeconds(20)).build();
        try (TcpCluster zero = joinWithRawPeer(s, raw)) {
            int frameBytes = 1 << 20;
            byte[] frame = frame(frameBytes, 1, 0);
            long sent = 0;
            PeerLostException lost = null;
            while (lost == null && sent < 1L << 30) {
                try {
                    zero.transport().send(1, frame);
                    sent += frameBytes;
                } catch (PeerLostException e) {
                    lost = e;
                }
            }
            assertNotNull(lost, "a peer that reads nothing took " + sent + " bytes");
            assertEquals(lostOne() + "could not send for 1500 ms: it reads nothing (stalled or stopped?)",
                    lost.getMessage());
            // bounded: the socket buffers and the high water mark, never a queue of everything sent
            assertTrue(sent < 64L << 20, "queued " + sent + " bytes before blocking");
        } finally {
            raw[0].close();
        }
    }

    @Test
    @Timeout(60)
    void shouldMakeEveryReceiveNameTheLostEndpointAfterAnAbort() throws Exception {
        List<TcpCluster> clusters = joinAll(3, freeMaster(), new RecordingLog());
        try {
            Future<Frame> pending = async(() -> clusters.get(0).transport().receive(2));
            clusters.get(1).abort(2, "x");
            Throwable lost = failure(pending);
            assertInstanceOf(PeerLostException.class, lost);
            assertEquals(2, ((PeerLostException) lost).peer());
            assertEquals("endpoint 1 reports: x", lost.getMessage());
            // and on every endpoint, from any peer, later too
            PeerLostException atTwo = assertThrows(PeerLostException.class, () -> clusters.get(2).transport().receive(0));
            assertEquals(2, atTwo.peer());
            assertEquals("endpoint 1 reports: x", atTwo.getMessage());
            PeerLostException again = assertThrows(PeerLostException.class, () -> clusters.get(0).transport().receive(2));
            assertEquals("endpoint 1 reports: x", again.getMessage());
        } finally {
            closeAll(clusters);
        }
    }

    @Test
    @Timeout(60)
    void shouldFailAReceiveFromALivePeerWithTheFirstLinkLostElsewhere() throws Exception {
        List<TcpCluster> clusters = joinAll(3, freeMaster(), new RecordingLog());
        try {
            Transport zero = clusters.get(0).transport();
            clusters.get(1).transport().send(0, frame(100, 1, 7));
            assertEquals(7, zero.receive(1).step());
            Future<Frame> pending = async(() -> zero.receive(1));   // endpoint 1 is alive and sends nothing
            clusters.get(2).shutdown(null);                        // endpoint 2 vanishes as a killed process does
            Throwable lost = failure(pending);
            assertInstanceOf(PeerLostException.class, lost);
            assertEquals(2, ((PeerLostException) lost).peer());
            assertEquals("lost endpoint 2 (127.0.0.1:" + clusters.get(2).boundPort() + "): connection closed without"
                    + " goodbye", lost.getMessage());
            // a frame endpoint 1 sent is still there to read; the next wait names the same first loss
            clusters.get(1).transport().send(0, frame(10, 2, 8));
            assertEquals(8, receiveWhenThere(zero, 1).step());
            assertEquals(lost.getMessage(), assertThrows(PeerLostException.class, () -> zero.receive(1)).getMessage());
        } finally {
            closeAll(clusters);
        }
    }

    /** The next frame from {@code peer}, once it has arrived (a receive that finds none fails after a loss). */
    private static Frame receiveWhenThere(Transport t, int peer) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                return t.receive(peer);
            } catch (PeerLostException notYet) {
                if (System.nanoTime() > deadline) {
                    throw notYet;
                }
                Thread.sleep(10);
            }
        }
    }

    @Test
    @Timeout(60)
    void shouldDeliverWhatCameBeforeAGoodbyeThenSayThePeerLeft() throws Exception {
        List<TcpCluster> clusters = joinAll(3, freeMaster(), new RecordingLog());
        try {
            Transport one = clusters.get(1).transport();
            for (int i = 0; i < 3; i++) {
                one.send(0, frame(1000 * i, i, i));
                one.send(2, frame(1000 * i, i, i));
            }
            clusters.get(1).close();
            for (int peer : new int[]{0, 2}) {
                Transport t = clusters.get(peer).transport();
                for (int i = 0; i < 3; i++) {
                    Frame f = t.receive(1);
                    assertEquals(i, f.step());
                    assertTrue(hasPattern(f.payload(), 1000 * i, i));
                }
                PeerLostException left = assertThrows(PeerLostException.class, () -> t.receive(1));
                assertEquals(1, left.peer());
                assertEquals("endpoint 1 (127.0.0.1:" + clusters.get(1).boundPort() + ") left: it said goodbye after"
                        + " its last frame", left.getMessage());
                assertEquals(left.getMessage(),
                        assertThrows(PeerLostException.class, () -> t.send(1, frame(1, 1, 1))).getMessage());
            }
            // the others' link is untouched
            clusters.get(2).transport().send(0, frame(10, 9, 5));
            assertEquals(5, clusters.get(0).transport().receive(2).step());
        } finally {
            closeAll(clusters);
        }
        TcpClusterTest.assertNoTransportThreads();
    }

    @Test
    @Timeout(60)
    void shouldThrowWhenALivePeerSendsNothingWithinTheReceiveDeadline() throws Exception {
        InetSocketAddress master = freeMaster();
        List<NetSettings> all = new ArrayList<>();
        for (int e = 0; e < 2; e++) {
            all.add(builder(e, 2, master).receiveTimeout(Duration.ofMillis(300))
                    .firstReceiveTimeout(Duration.ofMillis(900)).build());
        }
        List<TcpCluster> clusters = joinAll(all, new RecordingLog());
        try {
            Transport zero = clusters.get(0).transport();
            String one = "endpoint 1 (127.0.0.1:" + clusters.get(1).boundPort() + ")";
            long start = System.nanoTime();
            PeerLostException first = assertThrows(PeerLostException.class, () -> zero.receive(1));
            assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(900));
            assertEquals("lost " + one + ": no frame within the receive deadline of 900 ms", first.getMessage());

            clusters.get(1).transport().send(0, frame(1, 1, 0));
            assertEquals(0, zero.receive(1).step());
            PeerLostException later = assertThrows(PeerLostException.class, () -> zero.receive(1));
            assertEquals("lost " + one + ": no frame within the receive deadline of 300 ms", later.getMessage());
            // a missed deadline is the caller's to judge: the link still works
            clusters.get(1).transport().send(0, frame(1, 1, 1));
            assertEquals(1, zero.receive(1).step());

            // a peer that computes before it sends (a fit at the stage switch) gets the first receive's deadline once
            zero.extendNextReceive(1);
            PeerLostException extended = assertThrows(PeerLostException.class, () -> zero.receive(1));
            assertEquals("lost " + one + ": no frame within the receive deadline of 900 ms", extended.getMessage());
            PeerLostException after = assertThrows(PeerLostException.class, () -> zero.receive(1));
            assertEquals("lost " + one + ": no frame within the receive deadline of 300 ms", after.getMessage());
        } finally {
            closeAll(clusters);
        }
    }
}

package io.lgc4j.net;

import io.lgc4j.core.comm.Frame;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static io.lgc4j.net.NetFixtures.*;
import static org.junit.jupiter.api.Assertions.*;

class HandshakeTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "wrong token   | 9 | 0 | fedcba9876543210fedcba9876543210 | its proof of the job token does not match (wrong token?)",
            "wrong job id  | 7 | 0 | 0123456789abcdef0123456789abcdef | wrong job id 7 (this job is 9)",
            "wrong attempt | 9 | 1 | 0123456789abcdef0123456789abcdef | wrong attempt 1 (this is attempt 0)"})
    @Timeout(90)
    void shouldRefuseABadPeerWithOneLogLineAndStillJoinTheRightOne(String what, int job, int attempt, String token,
                                                                  String reason) throws Exception {
        InetSocketAddress master = freeMaster();
        RecordingLog log = new RecordingLog();
        Future<TcpCluster> zero = async(() -> TcpCluster.join(settings(0, 3, master), log));
        Future<TcpCluster> one = async(() -> TcpCluster.join(settings(1, 3, master), new RecordingLog()));
        List<TcpCluster> clusters = new ArrayList<>();
        try {
            NetSettings bad = settings(2, 3, master, job, attempt, token.getBytes(StandardCharsets.US_ASCII));
            RendezvousException refused = assertThrows(RendezvousException.class,
                    () -> TcpCluster.join(bad, new RecordingLog()));
            assertEquals("endpoint 2 could not join job " + job + ": endpoint 0 (127.0.0.1:" + master.getPort()
                    + ") refused endpoint 2: " + reason, refused.getMessage());
            String line = log.awaitWarning("refused a connection");
            assertTrue(line.matches("refused a connection from /127\\.0\\.0\\.1:\\d+ claiming endpoint 2: "
                    + java.util.regex.Pattern.quote(reason)), line);

            Future<TcpCluster> two = async(() -> TcpCluster.join(settings(2, 3, master), new RecordingLog()));
            clusters.add(zero.get(60, TimeUnit.SECONDS));
            clusters.add(one.get(60, TimeUnit.SECONDS));
            clusters.add(two.get(60, TimeUnit.SECONDS));
            clusters.get(2).transport().send(0, frame(10, 3, 0));
            Frame f = clusters.get(0).transport().receive(2);
            assertTrue(hasPattern(f.payload(), 10, 3));
        } finally {
            closeAll(clusters);
            cancel(zero, one);
        }
    }

    /**
     * A process whose run plan (the parameter server's fusion plan) differs is refused by its hash, with both plans
     * named; the process with the right plan then joins.
     */
    @Test
    @Timeout(90)
    void shouldRefuseAPeerWithAnotherPlanNamingBoth() throws Exception {
        InetSocketAddress master = freeMaster();
        NetSettings.Plan plan = new NetSettings.Plan(0x1234L, "fusion plan 0x0000000000001234: 10 elements");
        Future<TcpCluster> zero = async(() -> TcpCluster.join(builder(0, 3, master).plan(plan).build(),
                new RecordingLog()));
        Future<TcpCluster> one = async(() -> TcpCluster.join(builder(1, 3, master).plan(plan).build(),
                new RecordingLog()));
        List<TcpCluster> clusters = new ArrayList<>();
        try {
            NetSettings other = builder(2, 3, master).plan(new NetSettings.Plan(0xabcdL, "another")).build();
            RendezvousException refused = assertThrows(RendezvousException.class,
                    () -> TcpCluster.join(other, new RecordingLog()));
            assertEquals("endpoint 2 could not join job 9: endpoint 0 (127.0.0.1:" + master.getPort() + ") refused"
                    + " endpoint 2: endpoint 2 runs another plan (0x000000000000abcd) than endpoint 0, whose plan is"
                    + " fusion plan 0x0000000000001234: 10 elements (hash 0x0000000000001234): every process must"
                    + " run the same model, topology.servers and topology.fusionBufferBytes", refused.getMessage());
            Future<TcpCluster> two = async(() -> TcpCluster.join(builder(2, 3, master).plan(plan).build(),
                    new RecordingLog()));
            clusters.add(zero.get(60, TimeUnit.SECONDS));
            clusters.add(one.get(60, TimeUnit.SECONDS));
            clusters.add(two.get(60, TimeUnit.SECONDS));
        } finally {
            closeAll(clusters);
            cancel(zero, one);
        }
    }

    @Test
    @Timeout(60)
    void shouldDropAConnectionThatSaysNothingAfterTheHandshakeTimeout() throws Exception {
        InetSocketAddress master = freeMaster();
        RecordingLog log = new RecordingLog();
        Future<TcpCluster> zero = async(() -> TcpCluster.join(settings(0, 2, master), log));
        List<TcpCluster> clusters = new ArrayList<>();
        try (RawPeer silent = connectWhenListening(master)) {
            long start = System.nanoTime();
            assertTrue(silent.awaitClosedByPeer());
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(ms >= TcpCluster.HANDSHAKE_TIMEOUT_MS - 500 && ms < TcpCluster.HANDSHAKE_TIMEOUT_MS + 5_000,
                    "dropped after " + ms + " ms");
            String line = log.awaitWarning("refused a connection");
            assertTrue(line.matches("refused a connection from /127\\.0\\.0\\.1:\\d+: no handshake within "
                    + TcpCluster.HANDSHAKE_TIMEOUT_MS + " ms"), line);
            clusters.add(TcpCluster.join(settings(1, 2, master), new RecordingLog()));
            clusters.add(zero.get(60, TimeUnit.SECONDS));
        } finally {
            closeAll(clusters);
            cancel(zero);
        }
    }

    @Test
    @Timeout(90)
    void shouldRefuseASecondRegistrationOfTheSameEndpoint() throws Exception {
        InetSocketAddress master = freeMaster();
        RecordingLog log = new RecordingLog();
        Future<TcpCluster> zero = async(() -> TcpCluster.join(settings(0, 3, master), log));
        Future<TcpCluster> one = async(() -> TcpCluster.join(settings(1, 3, master), new RecordingLog()));
        List<TcpCluster> clusters = new ArrayList<>();
        try {
            RawPeer first = connectWhenListening(master);
            first.write(Handshake.hello(UnpooledByteBufAllocator.DEFAULT, JOB, 0, 2, first.nonce));
            Handshake.Hello hello = first.readHello();
            first.write(Handshake.proof(UnpooledByteBufAllocator.DEFAULT, Handshake.mac(TOKEN, Handshake.DIALER_LABEL,
                    2, hello.nonce(), first.nonce, JOB, 0)));
            assertEquals(Handshake.PROOF, first.read().type()); // authenticated: endpoint 2's slot is taken

            RendezvousException refused = assertThrows(RendezvousException.class,
                    () -> TcpCluster.join(settings(2, 3, master), new RecordingLog()));
            String reason = "endpoint 2 is already registered (from " + first.socket.getLocalSocketAddress() + ")";
            assertEquals("endpoint 2 could not join job 9: endpoint 0 (127.0.0.1:" + master.getPort()
                    + ") refused endpoint 2: " + reason, refused.getMessage());
            String line = log.awaitWarning("refused a connection");
            assertTrue(line.matches("refused a connection from /127\\.0\\.0\\.1:\\d+ claiming endpoint 2: "
                    + java.util.regex.Pattern.quote(reason)), line);

            first.close(); // its slot is free again: the real endpoint 2 joins
            TcpCluster two = joinRetrying(settings(2, 3, master));
            clusters.add(zero.get(60, TimeUnit.SECONDS));
            clusters.add(one.get(60, TimeUnit.SECONDS));
            clusters.add(two);
            clusters.get(1).transport().send(2, frame(5, 7, 0));
            assertTrue(hasPattern(two.transport().receive(1).payload(), 5, 7));
        } finally {
            closeAll(clusters);
            cancel(zero, one);
        }
    }

    /** Endpoint 0 frees the slot when it sees the first registrant's connection close, a moment after it closed. */
    private static TcpCluster joinRetrying(NetSettings s) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                return TcpCluster.join(s, new RecordingLog());
            } catch (RendezvousException e) {
                if (!e.getMessage().contains("already registered") || System.nanoTime() > deadline) {
                    throw e;
                }
            }
        }
    }

    static RawPeer connectWhenListening(InetSocketAddress master) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                return RawPeer.connect(master);
            } catch (java.net.ConnectException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20)); // connect retry
            }
        }
    }

    @SafeVarargs
    static void cancel(Future<TcpCluster>... joins) {
        for (Future<TcpCluster> join : joins) {
            if (!join.cancel(true)) {
                try {
                    join.get().close();
                } catch (Exception ignored) {
                    // failed join: nothing to close
                }
            }
        }
    }
}

package io.lgc4j.net;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

import static io.lgc4j.net.NetFixtures.async;
import static io.lgc4j.net.NetFixtures.builder;
import static io.lgc4j.net.NetFixtures.failure;
import static io.lgc4j.net.NetFixtures.freeMaster;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * When endpoint 0's rendezvous times out, the endpoints that did register learn why from it (a REFUSED on their
 * registration link), named by role as the trainer names them, instead of the closed port they would dial next.
 */
class RendezvousGiveUpTest {

    /** As ClusterRuntime names a run of 2 workers and one parameter server started as a process of its own. */
    private static final IntFunction<String> NAMES = e -> e < 2 ? "rank " + e
            : "the parameter server (endpoint 2, its own process)";

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void shouldTellRegisteredEndpointsWhyRankZeroGaveUpTheRendezvous() throws Exception {
        InetSocketAddress master = freeMaster();
        NetSettings rank0 = builder(0, 3, master).names(NAMES).rendezvousTimeout(Duration.ofMillis(1500)).build();
        NetSettings rank1 = builder(1, 3, master).names(NAMES).rendezvousTimeout(Duration.ofSeconds(20)).build();
        Future<TcpCluster> zero = async(() -> TcpCluster.join(rank0));
        long start = System.nanoTime();
        Future<TcpCluster> one = async(() -> TcpCluster.join(rank1));
        assertEquals("rank 0 could not join job 9 within 1500 ms: no registration from the parameter server"
                + " (endpoint 2, its own process)", failure(zero).getMessage());
        assertEquals("rank 1 could not join job 9: rank 0 gave up the rendezvous: no registration from the"
                + " parameter server (endpoint 2, its own process) within 1500 ms", failure(one).getMessage());
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
        assertTrue(seconds < 10, "rank 1 learned it at once, not at its own deadline: " + seconds + " s");
        TcpClusterTest.assertNoTransportThreads();
    }
}

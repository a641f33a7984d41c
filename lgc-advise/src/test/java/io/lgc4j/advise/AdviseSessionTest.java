package io.lgc4j.advise;

import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.InProcessCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.PrintStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The advise session's sequence on one in-process cluster, an endpoint per thread: every endpoint learns rank 0's
 * choice, the probes measure what the passes and the ring make them, and a disagreement or a failed decision fails
 * every endpoint with rank 0's message.
 */
@Timeout(60)
class AdviseSessionTest {

    private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());

    private static Advice choosing(String id) {
        return new Advice(List.of(), Optional.ofNullable(id), 40, 0.4, Link.IN_PROCESS, Optional.empty(), "given", 0.8,
                0);
    }

    /** Runs a session of {@code n} endpoints, {@code workers} of them workers; each endpoint's outcome or failure. */
    private static List<Object> session(int n, int workers, IntFunction<String> digest, IntFunction<Runnable> pass,
                                        AdviseSession.Decision decision) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try (InProcessCluster cluster = new InProcessCluster(n)) {
            List<Future<AdviseSession.Outcome>> futures = new ArrayList<>();
            for (int e = 0; e < n; e++) {
                int endpoint = e;
                futures.add(pool.submit(() -> AdviseSession.run(cluster.transport(endpoint), workers,
                        digest.apply(endpoint), endpoint == 1 ? "other-host" : "host", 4096,
                        endpoint < workers ? pass.apply(endpoint) : null, decision,
                        QUIET)));
            }
            List<Object> outcomes = new ArrayList<>();
            for (Future<AdviseSession.Outcome> f : futures) {
                try {
                    outcomes.add(f.get(30, TimeUnit.SECONDS));
                } catch (ExecutionException e) {
                    outcomes.add(e.getCause());
                }
            }
            return outcomes;
        } finally {
            pool.shutdownNow();
        }
    }

    private static Runnable sleeping(long ms) {
        return () -> {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
    }

    @Test
    void shouldTellEveryEndpointRankZerosChoiceAndMeasureTheStraggler() throws Exception {
        AtomicReference<AdviseSession.Probe> seen = new AtomicReference<>();
        // worker 2 computes 40 ms, the others 4: the slowest pass is 40, the mean 16, so the straggler is 24 ms
        List<Object> outcomes = session(4, 3, e -> "sha256:same", e -> sleeping(e == 2 ? 40 : 4), probe -> {
            seen.set(probe);
            return choosing("dense-fp16");
        });
        for (Object o : outcomes) {
            AdviseSession.Outcome outcome = assertInstanceOf(AdviseSession.Outcome.class, o);
            assertEquals("dense-fp16", outcome.chosen());
        }
        AdviseSession.Outcome rank0 = (AdviseSession.Outcome) outcomes.get(0);
        assertTrue(rank0.advice().isPresent() && rank0.probe().isPresent());
        assertFalse(((AdviseSession.Outcome) outcomes.get(3)).advice().isPresent(), "only rank 0 holds the advice");
        AdviseSession.Probe p = seen.get();
        assertEquals(4, p.endpoints());
        assertEquals(3, p.workers());
        assertEquals(2, p.hostWorkers(), "ranks 0 and 2 share a host, rank 1 has its own, the server is no worker");
        AdviseSession.Probe.Rates rates = p.rates();
        assertTrue(rates.ringMbit() > 0 && rates.serviceInMbit() > 0 && rates.serviceOutMbit() > 0, p.describe());
        assertTrue(p.times().idleRttMs() >= 0, p.describe());
        assertEquals(24, p.times().stragglerMs(), 8, p.describe());
        assertTrue(p.times().passMs() >= 4, p.describe());
        assertTrue(p.times().hopMs() < 20, "queues in memory: a hop is far below a pass, " + p.describe());
        Link link = p.link();
        assertEquals(p.rates().ringMbit(), link.rateMbit(), 1e-9);
        assertEquals(2 / (1 / rates.serviceInMbit() + 1 / rates.serviceOutMbit()), link.serviceRateMbit(), 1e-6);
    }

    @Test
    void shouldRunWithoutServerProcessesAndWithOneWorker() throws Exception {
        for (Object o : session(2, 2, e -> "d", e -> sleeping(1), probe -> choosing("dense-ring"))) {
            assertEquals("dense-ring", assertInstanceOf(AdviseSession.Outcome.class, o).chosen());
        }
        AtomicReference<AdviseSession.Probe> seen = new AtomicReference<>();
        List<Object> alone = session(1, 1, e -> "d", e -> sleeping(1), probe -> {
            seen.set(probe);
            return choosing("dense-ps");
        });
        assertEquals("dense-ps", assertInstanceOf(AdviseSession.Outcome.class, alone.get(0)).chosen());
        assertTrue(Double.isNaN(seen.get().rates().ringMbit()), "one worker has no ring");
        assertEquals(Link.IN_PROCESS.rateMbit(), seen.get().link().rateMbit(), 1e-9);
    }

    @Test
    void shouldRefuseEveryEndpointWhenOneAdvisesAmongOtherCandidates() throws Exception {
        List<Object> outcomes = session(3, 3, e -> e == 2 ? "sha256:9c07" : "sha256:3fa1", e -> sleeping(1),
                probe -> choosing("x"));
        for (Object o : outcomes) {
            IllegalStateException e = assertInstanceOf(IllegalStateException.class, o);
            assertEquals("rank 2 advises among other candidates than rank 0 (sha256:9c07 vs sha256:3fa1): every"
                    + " process must read the same config", e.getMessage());
        }
    }

    @Test
    void shouldFailEveryEndpointWithRankZerosReasonWhenNothingIsChosen() throws Exception {
        for (Object o : session(3, 2, e -> "d", e -> sleeping(1), probe -> choosing(null))) {
            assertEquals("nothing chosen: no candidate has a predicted time to the target",
                    assertInstanceOf(IllegalStateException.class, o).getMessage());
        }
        for (Object o : session(2, 2, e -> "d", e -> sleeping(1), probe -> {
            throw new java.io.IOException("cannot read data/train.csv");
        })) {
            assertEquals("rank 0 could not advise: cannot read data/train.csv",
                    assertInstanceOf(IllegalStateException.class, o).getMessage());
        }
    }

    @Test
    void shouldReadTheLoadedRoundsAsLegsAndStraggler() {
        // two workers, two rounds; 2 hops a round; a ring of 2 × 1 MB frames took 800 ms: 10 Mbit/s
        AdviseSession.Measured w0 = new AdviseSession.Measured(800, 100, 200,
                new double[] {100, 100}, new double[] {130, 140});
        AdviseSession.Measured w1 = new AdviseSession.Measured(800, Double.NaN, Double.NaN,
                new double[] {60, 120}, new double[] {130, 141});
        AdviseSession.Probe p = AdviseSession.probe(new AdviseSession.Measured[] {w0, w1}, 2, 1_000_000,
                new double[] {Double.NaN, 0.25}, 3.0);
        assertEquals(10.0, p.rates().ringMbit(), 1e-9);
        // the hub is rank 0 (no server process): rank 1 alone sends, 1 MB in 100 ms in and 200 ms out
        assertEquals(80.0, p.rates().serviceInMbit(), 1e-9);
        assertEquals(40.0, p.rates().serviceOutMbit(), 1e-9);
        // round 1: (130 - 100) / 2 hops - 1024 B at 10 Mbit/s; round 2: (141 - 120) / 2 - the same
        double small = 1024 * 8 / 10.0 / 1e3;
        assertEquals(((15 - small) + (10.5 - small)) / 2, p.times().hopMs(), 1e-9);
        assertEquals((20 + 10) / 2.0, p.times().stragglerMs(), 1e-9);
        assertEquals(0.25, p.times().idleRttMs(), 1e-9);
        assertEquals(95, p.times().passMs(), 1e-9);
    }

    @Test
    void shouldNameAMalformedMeasuredFrame() {
        FrameException e = assertThrows(FrameException.class, () -> AdviseSession.Measured.decode(
                ByteBuffer.allocate(10), 3));
        assertEquals("a measured frame from endpoint 3 holds 10 bytes, expected at least 26", e.getMessage());
        byte[] bytes = new AdviseSession.Measured(1, 2, 3, new double[] {1}, new double[] {2}).encode();
        e = assertThrows(FrameException.class, () -> AdviseSession.Measured.decode(
                ByteBuffer.wrap(bytes, 0, bytes.length - 8).slice(), 1));
        assertEquals("a measured frame from endpoint 1 says 1 loaded rounds but holds 8 bytes for them, expected 16",
                e.getMessage());
        AdviseSession.Measured m = AdviseSession.Measured.decode(ByteBuffer.wrap(bytes), 1);
        assertEquals(2.0, m.fanInMs(), 0);
        assertEquals(2.0, m.roundMs()[0], 0);
    }

    @Test
    void shouldSizeTheProbeAsTheDenseRingsChunk() {
        assertEquals(4 * 107_770, AdviseSession.probeBytes(431_080, 4));
        assertEquals(AdviseSession.WARM_BYTES, AdviseSession.probeBytes(1000, 4));
        assertEquals(AdviseSession.MAX_PROBE_BYTES, AdviseSession.probeBytes(25_000_000, 2));
    }
}

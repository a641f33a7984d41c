package io.lgc4j.cli.hosts;

import io.lgc4j.net.JobToken;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The store's rounds with agents whose "processes" are the test's own code, on loopback: a failed process restarts the
 * job on the same hosts, the culprit is the host whose process failed itself (not the host whose process lost it),
 * restarts run out, too few hosts, an agent with another token. What real processes do under it:
 * {@code MultiProcessRunTest#anElasticJobOnTwoHostsShouldGoOnWhenOneIsLostAndTakeItBack}.
 */
class StoreTest {
    private static final byte[] TOKEN = JobToken.generate();
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final ByteArrayOutputStream storeLog = new ByteArrayOutputStream();
    private final ExecutorService pool = Executors.newCachedThreadPool();

    private record Running(Store store, Thread thread, InetSocketAddress address) {
    }

    private Running store(int min, int max, int restarts, Path runDir) throws IOException {
        ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Store store = new Store(socket, TOKEN, "job", new Store.Settings(min, max, Duration.ofSeconds(3), TIMEOUT,
                restarts, 1, false, runDir, -1), new PrintStream(storeLog, true, StandardCharsets.UTF_8));
        Thread t = new Thread(store, "test-store");
        t.start();
        return new Running(store, t, new InetSocketAddress(InetAddress.getLoopbackAddress(), socket.getLocalPort()));
    }

    private Future<Integer> agent(Running store, String host, byte[] token, Agent.RoundRunner runner) {
        Agent agent = new Agent(token, "job", new Agent.Settings(store.address(), host, 2, null, TIMEOUT,
                Duration.ofSeconds(5)), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        AtomicInteger port = new AtomicInteger(30_000);
        return pool.submit(() -> agent.run(runner, port::incrementAndGet));
    }

    private String log() {
        return storeLog.toString(StandardCharsets.UTF_8);
    }

    /** Waits until the store has said {@code text} (the test's timeout bounds it). */
    private void awaitLog(String text) throws InterruptedException {
        while (!log().contains(text)) {
            Thread.sleep(20);
        }
    }

    @Test
    @Timeout(value = 1, unit = TimeUnit.MINUTES)
    void aFailedProcessShouldRestartTheJobOnTheSameHostsNamingTheHostWhereItFailedItself(@TempDir Path dir)
            throws Exception {
        Running store = store(2, 2, 1, dir);
        List<Message> rounds = new CopyOnWriteArrayList<>();
        // round 0: b's rank 3 fails itself, a's ranks lose it; round 1: every process finishes
        Future<Integer> a = agent(store, "a", TOKEN, (round, advertise, stop) -> {
            rounds.add(round);
            return round.round() == 0 ? new Agent.Result(4, false, "rank 0 failed first with exit status 4", false)
                    : new Agent.Result(0, true, "", false);
        });
        awaitLog("host a (127.0.0.1) joined"); // a joins first: it holds rank 0
        Future<Integer> b = agent(store, "b", TOKEN, (round, advertise, stop) -> {
            rounds.add(round);
            if (round.round() == 0) {
                Thread.sleep(300); // b says it later than a: arrival order does not decide
                return new Agent.Result(137, true, "rank 3 failed first with exit status 137 (signal 9)", false);
            }
            return new Agent.Result(0, true, "", false);
        });
        assertEquals(0, a.get(30, TimeUnit.SECONDS), log());
        assertEquals(0, b.get(30, TimeUnit.SECONDS), log());
        store.thread().join(5_000);
        assertEquals(0, store.store().status());
        assertTrue(log().contains("round 0 failed (host b (127.0.0.1): rank 3 failed first with exit status 137"
                + " (signal 9)); restart 1 of 1"), log());
        assertTrue(log().contains("round 1 at K = 4 on 2 hosts (a 2, b 2), from step 0"), log());
        assertTrue(log().contains("the job is over: every process of round 1 finished"), log());
        // each round: K = 4, a holds ranks 0..1 and the parameter server, b ranks 2..3, rank 0 at a's address
        for (Message r : rounds) {
            assertEquals(Files.readString(dir.resolve(Store.MARKER)), r.marker(), "the run directory's marker");
            assertEquals(null, Agent.notShared(dir, r.marker()));
            assertEquals(4, r.workers());
            boolean onA = r.first() == 0;
            assertEquals(onA, r.services(), "the server processes with rank 0");
            assertEquals(onA ? 0 : 2, r.first());
            assertEquals("127.0.0.1", r.advertise());
            assertEquals(-1L, r.resumeStep(), "no checkpoint in the run directory: every round from step 0");
            assertEquals(false, r.allowResize());
        }
        assertEquals(4, rounds.size());
    }

    @Test
    @Timeout(value = 1, unit = TimeUnit.MINUTES)
    void aJobShouldEndWithTheCulpritsStatusOnceItsRestartsRunOut(@TempDir Path dir) throws Exception {
        Running store = store(1, 1, 0, dir);
        Future<Integer> a = agent(store, "a", TOKEN, (round, advertise, stop) -> new Agent.Result(1, true,
                "rank 1 failed first with exit status 1", false));
        assertEquals(1, a.get(30, TimeUnit.SECONDS), log());
        store.thread().join(5_000);
        assertTrue(log().contains("the job is over (status 1): round 0 failed (host a (127.0.0.1): rank 1 failed"
                + " first with exit status 1), after 0 restarts of 0"), log());
    }

    @Test
    @Timeout(value = 1, unit = TimeUnit.MINUTES)
    void aStoreShouldEndWhenTooFewHostsJoinAndRefuseAnotherToken(@TempDir Path dir) throws Exception {
        Running store = store(2, 2, 0, dir);
        byte[] other = JobToken.generate();
        Future<Integer> stranger = agent(store, "x", other, (round, advertise, stop) -> new Agent.Result(0, true,
                "", false));
        Exception refused = assertThrows(Exception.class, () -> stranger.get(30, TimeUnit.SECONDS));
        assertTrue(refused.getCause() instanceof ControlLink.RefusedException, String.valueOf(refused.getCause()));
        assertEquals("the store at " + store.address() + " refused this host: wrong job token or job id (this"
                + " store's job is 'job')", refused.getCause().getMessage());
        Future<Integer> a = agent(store, "a", TOKEN, (round, advertise, stop) -> new Agent.Result(0, true, "", false));
        assertEquals(1, a.get(30, TimeUnit.SECONDS), log());
        assertTrue(log().contains("the job is over (status 1): fewer than 2 hosts joined within 3 s (1 did)"),
                log());
    }

    /**
     * A host that joins during a round waits for the next complete checkpoint (a manifest newer than the one when it
     * joined), then every process stops and the next round takes it in, not counted as a restart (none allowed here).
     */
    @Test
    @Timeout(value = 1, unit = TimeUnit.MINUTES)
    void aHostThatJoinsShouldBeTakenInAtTheNextCheckpoint(@TempDir Path dir) throws Exception {
        Running store = store(1, 2, 0, dir);
        CountDownLatch running = new CountDownLatch(1);
        Agent.RoundRunner untilStopped = (round, advertise, stop) -> {
            if (round.round() > 0) {
                return new Agent.Result(0, true, "", false); // the last round: every process finishes
            }
            running.countDown();
            while (!stop.getAsBoolean()) {
                Thread.sleep(50);
            }
            return new Agent.Result(0, true, "", true);
        };
        Future<Integer> a = agent(store, "a", TOKEN, untilStopped);
        running.await(); // round 0 runs on a alone (MIN 1, after the last call)
        Future<Integer> b = agent(store, "b", TOKEN, untilStopped);
        awaitLog("host b (127.0.0.1) joined with 2 slots; it takes part from the next complete checkpoint");
        Path manifest = dir.resolve("checkpoints").resolve("step-000008").resolve("manifest.lgcc");
        Files.createDirectories(manifest.getParent());
        Files.writeString(manifest, "a checkpoint completes");
        assertEquals(0, a.get(30, TimeUnit.SECONDS), log());
        assertEquals(0, b.get(30, TimeUnit.SECONDS), log());
        assertTrue(log().contains("round 0 at K = 2 on 1 host (a 2), from step 0"), log());
        assertTrue(log().contains("round 0 stopped: a host is back, every process stopped at a checkpoint"), log());
        assertTrue(log().contains("round 1 at K = 4 on 2 hosts (a 2, b 2)"), log());
        assertTrue(log().contains("the job is over: every process of round 1 finished"), log());
    }

    /** A run directory an agent cannot see, or one of that path that is not the store's, is named as such. */
    @Test
    void anAgentShouldRefuseARunDirectoryThatIsNotTheStores(@TempDir Path dir) throws IOException {
        String marker = Store.mark(dir);
        assertEquals(null, Agent.notShared(dir, marker));
        Path elsewhere = dir.resolve("other");
        Files.createDirectories(elsewhere);
        assertEquals("the run directory " + elsewhere + " that the store made is not on this host (a directory of"
                + " that path is, without the store's .lgc-store: another file system): run.outputDir must be a file"
                + " system every host shares, at the same path", Agent.notShared(elsewhere, marker));
        assertEquals("the run directory " + dir.resolve("none") + " that the store made is not on this host:"
                + " run.outputDir must be a file system every host shares, at the same path",
                Agent.notShared(dir.resolve("none"), marker));
        assertTrue(Agent.notShared(dir, "another store's").startsWith("the run directory " + dir + " that the store"
                + " made is not on this host (a directory"));
    }

    /**
     * Something that is not an agent — a connection that sends garbage after the store's nonce, one that closes at
     * once — is refused with a line naming what was wrong, and the store goes on: the next agent's job runs.
     */
    @Test
    @Timeout(value = 1, unit = TimeUnit.MINUTES)
    void aStoreShouldRefuseGarbageAndGoOn(@TempDir Path dir) throws Exception {
        Running store = store(1, 1, 0, dir);
        try (Socket garbage = new Socket(store.address().getAddress(), store.address().getPort())) {
            garbage.getOutputStream().write("{\"nonce\": \"not hex\", \"proof\": 7}\n".getBytes(StandardCharsets.UTF_8));
            garbage.getOutputStream().flush();
            awaitLog("a malformed handshake message: expected 64 hexadecimal characters, found not hex");
        }
        new Socket(store.address().getAddress(), store.address().getPort()).close();
        Future<Integer> a = agent(store, "a", TOKEN, (round, advertise, stop) -> new Agent.Result(0, true, "", false));
        assertEquals(0, a.get(30, TimeUnit.SECONDS), log());
        assertTrue(log().contains("round 0 at K = 2 on 1 host (a 2), from step 0"), log());
    }
}

package io.lgc4j.net;

import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.stage.Stage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Loopback clusters, settings with short deadlines, frames and a log tests can read. */
final class NetFixtures {
    static final byte[] TOKEN = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    static final int JOB = 9;

    private NetFixtures() {
    }

    /**
     * A port that was free a moment ago, below the kernel's ephemeral range (Linux: 32768–60999), so that the other
     * endpoints' binds to port 0 cannot take it before endpoint 0 binds it.
     */
    static InetSocketAddress freeMaster() {
        java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
        IOException last = null;
        for (int attempt = 0; attempt < 100; attempt++) {
            int port = random.nextInt(20_000, 32_000);
            try (ServerSocket socket = new ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress())) {
                return new InetSocketAddress("127.0.0.1", socket.getLocalPort());
            } catch (IOException e) {
                last = e;
            }
        }
        throw new UncheckedIOException("no free port in 20000..31999", last);
    }

    /** Loopback settings with deadlines of a few seconds, to change some of them. */
    static NetSettings.Builder builder(int endpoint, int endpoints, InetSocketAddress master) {
        return NetSettings.builder()
                .endpoint(endpoint).endpoints(endpoints).job(JOB).master(master).token(TOKEN)
                .bindHost("127.0.0.1").bindPort(0)
                .rendezvousTimeout(Duration.ofSeconds(20)).receiveTimeout(Duration.ofSeconds(20))
                .firstReceiveTimeout(Duration.ofSeconds(20)).heartbeatInterval(Duration.ofMillis(100))
                .idleTimeout(Duration.ofSeconds(5))
                .names(e -> "endpoint " + e);
    }

    /** Loopback settings with deadlines of a few seconds. */
    static NetSettings settings(int endpoint, int endpoints, InetSocketAddress master) {
        return builder(endpoint, endpoints, master).build();
    }

    /** Loopback settings of another job, attempt or token (a peer that must be refused). */
    static NetSettings settings(int endpoint, int endpoints, InetSocketAddress master, int job, int attempt,
                                byte[] token) {
        return builder(endpoint, endpoints, master).job(job).attempt(attempt).token(token).build();
    }

    /** Joins {@code endpoints} endpoints on loopback, each on its own thread. */
    static List<TcpCluster> joinAll(int endpoints, InetSocketAddress master, RecordingLog log) throws Exception {
        List<NetSettings> all = new ArrayList<>();
        for (int e = 0; e < endpoints; e++) {
            all.add(settings(e, endpoints, master));
        }
        return joinAll(all, log);
    }

    static List<TcpCluster> joinAll(List<NetSettings> all, RecordingLog log) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(all.size());
        try {
            List<Future<TcpCluster>> joins = new ArrayList<>();
            for (NetSettings s : all) {
                joins.add(pool.submit(() -> TcpCluster.join(s, log)));
            }
            List<TcpCluster> clusters = new ArrayList<>();
            for (Future<TcpCluster> join : joins) {
                clusters.add(join.get(60, TimeUnit.SECONDS));
            }
            return clusters;
        } finally {
            pool.shutdown();
        }
    }

    static void closeAll(List<TcpCluster> clusters) {
        if (clusters != null) {
            clusters.parallelStream().forEach(TcpCluster::close);
        }
    }

    /** A sealed frame whose payload is {@code length} bytes of a pattern from {@code seed}. */
    static byte[] frame(int length, int seed, int step) {
        ByteBuffer payload = FrameCodec.allocate(length);
        for (int i = 0; i < length; i++) {
            payload.put(i, (byte) (seed * 31 + i * 7));
        }
        return FrameCodec.seal(payload, TrafficKind.VALUES, Stage.TOP_K, step);
    }

    static boolean hasPattern(ByteBuffer payload, int length, int seed) {
        if (payload.remaining() != length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (payload.get(payload.position() + i) != (byte) (seed * 31 + i * 7)) {
                return false;
            }
        }
        return true;
    }

    /** Runs {@code task} on another thread; the result or its failure within the test's bound. */
    static <T> Future<T> async(java.util.concurrent.Callable<T> task) {
        ExecutorService one = Executors.newSingleThreadExecutor();
        Future<T> f = one.submit(task);
        one.shutdown();
        return f;
    }

    /** The exception {@code f} failed with. */
    static Throwable failure(Future<?> f) throws InterruptedException, TimeoutException {
        try {
            f.get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("expected a failure, the task succeeded");
    }

    /** Keeps every log line; a test waits for the one it expects. */
    static final class RecordingLog implements NetTransport.Log {
        private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
        private final List<String> all = java.util.Collections.synchronizedList(new ArrayList<>());

        @Override
        public void info(String message) {
            all.add(message);
        }

        @Override
        public void warning(String message) {
            all.add(message);
            lines.add(message);
        }

        /** The next warning that starts with {@code prefix}, waiting at most 30 s. */
        String awaitWarning(String prefix) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (true) {
                String line = lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                if (line == null) {
                    throw new AssertionError("no warning starting with \"" + prefix + "\"; log: " + all);
                }
                if (line.startsWith(prefix)) {
                    return line;
                }
            }
        }

        List<String> all() {
            synchronized (all) {
                return List.copyOf(all);
            }
        }
    }
}

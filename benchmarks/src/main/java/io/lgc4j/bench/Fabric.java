package io.lgc4j.bench;

import io.lgc4j.core.comm.InProcessCluster;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.net.JobToken;
import io.lgc4j.net.NetSettings;
import io.lgc4j.net.TcpCluster;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * N endpoints of one cluster inside this JVM, handed out as plain {@link Transport}s (no meter: the benchmark measures
 * the data plane, not the accounting): {@link InProcessCluster}, or N {@link TcpCluster}s joined on loopback, with or
 * without mutual TLS. {@link #close()} ends every endpoint and wakes any thread blocked in a receive.
 *
 * <pre>{@code
 * try (Fabric fabric = Fabric.open(Fabric.Kind.TCP, 3, null)) {
 *     Transport zero = fabric.transport(0);   // one thread per endpoint
 * }
 * }</pre>
 */
final class Fabric implements AutoCloseable {

    /** Which transport carries the frames. */
    enum Kind {
        /** {@link InProcessCluster}: frames as {@code byte[]} through queues, checked on receipt. */
        IN_PROCESS("in-process"),
        /** lgc-net over loopback TCP, plain. */
        TCP("lgc-net"),
        /** lgc-net over loopback TCP with mutual TLS (the JDK's SSLEngine). */
        TCP_TLS("lgc-net+TLS");

        final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    private static final AtomicInteger JOBS = new AtomicInteger(0x7E57);

    private final Kind kind;
    private final List<Transport> transports;
    private final InProcessCluster inProcess;
    private final List<TcpCluster> clusters;

    private Fabric(Kind kind, List<Transport> transports, InProcessCluster inProcess, List<TcpCluster> clusters) {
        this.kind = kind;
        this.transports = transports;
        this.inProcess = inProcess;
        this.clusters = clusters;
    }

    /**
     * Opens {@code endpoints} endpoints.
     *
     * @param certificates one per endpoint, for {@link Kind#TCP_TLS} (ignored otherwise)
     */
    static Fabric open(Kind kind, int endpoints, List<NetSettings.Tls> certificates) {
        if (kind == Kind.IN_PROCESS) {
            InProcessCluster cluster = new InProcessCluster(endpoints);
            List<Transport> transports = new ArrayList<>();
            for (int e = 0; e < endpoints; e++) {
                transports.add(cluster.unmetered(e));
            }
            return new Fabric(kind, List.copyOf(transports), cluster, List.of());
        }
        if (kind == Kind.TCP_TLS && (certificates == null || certificates.size() < endpoints)) {
            throw new IllegalArgumentException("TLS needs a certificate per endpoint: " + endpoints + " endpoints, "
                    + (certificates == null ? 0 : certificates.size()) + " certificates");
        }
        List<TcpCluster> clusters = join(kind, endpoints, certificates);
        List<Transport> transports = clusters.stream().map(TcpCluster::transport).toList();
        return new Fabric(kind, transports, null, clusters);
    }

    /**
     * Endpoint 0 listens first on a port the kernel picks, then every endpoint joins through the port it got: no port
     * is probed free and bound later (another socket took one in between once, in CI).
     */
    private static List<TcpCluster> join(Kind kind, int endpoints, List<NetSettings.Tls> certificates) {
        byte[] token = JobToken.generate();
        int job = JOBS.getAndIncrement();
        List<NetSettings> settings = new ArrayList<>();
        for (int e = 0; e < endpoints; e++) {
            settings.add(NetSettings.builder()
                    .endpoint(e).endpoints(endpoints).job(job).token(token)
                    .bindHost("127.0.0.1").bindPort(0)
                    .tls(kind == Kind.TCP_TLS ? certificates.get(e) : null)
                    .build());
        }
        TcpCluster zero = TcpCluster.listen(settings.get(0));
        InetSocketAddress master = new InetSocketAddress("127.0.0.1", zero.boundPort());
        ExecutorService pool = Executors.newFixedThreadPool(endpoints);
        List<Future<TcpCluster>> joins = new ArrayList<>();
        try {
            joins.add(pool.submit(() -> zero.join(master)));
            for (int e = 1; e < endpoints; e++) {
                NetSettings mine = settings.get(e).toBuilder().master(master).build();
                joins.add(pool.submit(() -> TcpCluster.join(mine)));
            }
            List<TcpCluster> clusters = new ArrayList<>();
            RuntimeException failed = null;
            for (Future<TcpCluster> join : joins) {
                try {
                    clusters.add(join.get(150, TimeUnit.SECONDS));
                } catch (ExecutionException | TimeoutException e) {
                    if (failed == null) {
                        failed = new IllegalStateException("loopback cluster of " + endpoints + " endpoints ("
                                + kind.label + ") did not join: " + (e.getCause() != null ? e.getCause() : e), e);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    failed = new IllegalStateException("interrupted while joining", e);
                }
            }
            if (failed != null) {
                clusters.parallelStream().forEach(TcpCluster::close);
                zero.close();
                throw failed;
            }
            return List.copyOf(clusters);
        } finally {
            pool.shutdownNow();
        }
    }

    Kind kind() {
        return kind;
    }

    Transport transport(int endpoint) {
        return transports.get(endpoint);
    }

    /**
     * What every endpoint's transport copied so far, summed ({@link TcpCluster#copies()}); null in process, where a
     * frame is the array the sender encoded into and the receiver decodes from.
     */
    TcpCluster.Copies copies() {
        if (clusters.isEmpty()) {
            return null;
        }
        long[] sum = new long[7];
        for (TcpCluster c : clusters) {
            TcpCluster.Copies x = c.copies();
            long[] v = {x.sentInPlace(), x.sentCopied(), x.receivedInPlace(), x.receivedCopied(), x.poolLeases(),
                    x.poolAllocations(), x.poolAllocatedBytes()};
            for (int i = 0; i < v.length; i++) {
                sum[i] += v[i];
            }
        }
        return new TcpCluster.Copies(sum[0], sum[1], sum[2], sum[3], sum[4], sum[5], sum[6]);
    }

    /** "epoll" or "NIO" for TCP (as lgc-net chose), "queues" in process. */
    String io() {
        if (clusters.isEmpty()) {
            return "queues";
        }
        return clusters.get(0).nativeTransport() ? "epoll" : "NIO";
    }

    /** As {@link #shutdown()}. */
    @Override
    public void close() {
        shutdown();
    }

    /** Ends every endpoint (goodbye on every link) and wakes blocked receivers; idempotent, from any thread. */
    void shutdown() {
        if (inProcess != null) {
            inProcess.close();
        }
        clusters.parallelStream().forEach(TcpCluster::close);
    }
}

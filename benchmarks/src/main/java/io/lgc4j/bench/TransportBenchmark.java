package io.lgc4j.bench;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.metrics.PhaseClock;
import io.lgc4j.core.protocol.FloatFrames;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.train.GradientExchange;
import io.lgc4j.core.train.ServiceLoop;
import io.lgc4j.core.comm.StepTag;
import io.lgc4j.core.train.Topology;
import io.lgc4j.runner.Provenance;
import io.lgc4j.net.NetSettings;
import io.lgc4j.net.TcpCluster;
import io.lgc4j.ps.topology.ParameterServerTopology;
import io.lgc4j.ring.topology.RingTopology;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * The data plane, measured in one run so that the figures compare: a raw Netty stream on loopback (the ceiling),
 * lgc-net point to point (a stream of frames one way, and ping-pong round trips for small sizes), the dense ring
 * allreduce ({@link RingTopology}'s worker: {@code RingAllReduce} then the division by K) and the dense parameter
 * server step ({@link ParameterServerTopology}: K workers and the server endpoint), each over lgc-net with and
 * without mutual TLS and, for the exchanges, over {@link io.lgc4j.core.comm.InProcessCluster}.
 *
 * <p>Every endpoint runs on its own thread of this JVM. A configuration runs one probe step, warm-up steps, then
 * measured steps back to back ({@link Lockstep}); each row gives payload MB/s (for the exchanges the gradient's bytes
 * per second of exchange time, and for the ring the bus bandwidth 2(K−1)/K × that), the mean, median and 99th
 * percentile time per operation, process CPU seconds per GB of payload, and heap bytes allocated per step per rank by
 * every thread of the JVM (the transports' event loops included), also as a share of the payload. Sizes are binary:
 * 1 KB = 1024 bytes, MB = 2^20 bytes, GB = 2^30 bytes, in sizes and rates alike.
 *
 * <pre>{@code
 * List<TransportBenchmark.Row> rows = TransportBenchmark.run(System.out, TransportBenchmark.Settings.DEFAULT);
 * TransportBenchmark.writeCsv(Path.of("transport.csv"), rows);
 * }</pre>
 */
public final class TransportBenchmark {
    /** Bytes in a KB. */
    public static final int KB = 1 << 10;
    /** Bytes in an MB. */
    public static final int MB = 1 << 20;
    private static final double GB = 1 << 30;
    /** Ping-pong round trips are measured up to this message size. */
    public static final int PING_PONG_MAX_BYTES = 256 * KB;
    private static final long SEED = 20240601L;

    /** Keeps lgc-net's rendezvous lines (one per join, a hundred joins a run) off the console. */
    private static final Logger NET_LOG = Logger.getLogger("io.lgc4j.net");

    private TransportBenchmark() {
    }

    /** What a row measures. */
    public enum Part {
        /** Two Netty channels, plain ByteBuf writes one way: the ceiling. */
        RAW("raw stream"),
        /** lgc-net frames one way: float[] → frame → link → frame → float[]. */
        STREAM("stream"),
        /** lgc-net round trips: a frame there, a frame back. */
        PING_PONG("ping-pong"),
        /** The dense ring allreduce of a gradient over K ranks. */
        RING("ring allreduce"),
        /** The dense parameter-server step: K workers push, the server averages and broadcasts. */
        PS("PS step");

        final String label;

        Part(String label) {
            this.label = label;
        }

        /** The part named {@code name} ({@code raw}, {@code stream}, {@code ping-pong}, {@code ring}, {@code ps}). */
        public static Part parse(String name) {
            return switch (name.trim().toLowerCase(Locale.ROOT)) {
                case "raw" -> RAW;
                case "stream" -> STREAM;
                case "ping-pong", "pingpong" -> PING_PONG;
                case "ring" -> RING;
                case "ps" -> PS;
                default -> throw new IllegalArgumentException("parts: unknown part '" + name
                        + "'; known: raw, stream, ping-pong, ring, ps");
            };
        }
    }

    /** Which lgc-net rows to run: plain TCP, TLS, or both. */
    public enum TlsMode {
        OFF, ON, BOTH;

        boolean plain() {
            return this != ON;
        }

        boolean tls() {
            return this != OFF;
        }

        /** {@code on}, {@code off} or {@code both}. */
        public static TlsMode parse(String value) {
            return switch (value.trim().toLowerCase(Locale.ROOT)) {
                case "on" -> ON;
                case "off" -> OFF;
                case "both" -> BOTH;
                default -> throw new IllegalArgumentException("tls: expected on, off or both, found '" + value + "'");
            };
        }
    }

    /**
     * What to measure.
     *
     * @param sizes          message and gradient sizes in bytes, each a positive multiple of 4 (floats)
     * @param workers        values of K for the ring and the parameter server
     * @param tls            lgc-net rows plain, with TLS, or both
     * @param parts          which parts to run
     * @param warmupSeconds  warm-up time per configuration (at least one step)
     * @param measureSeconds measured time per configuration
     * @param minSteps       fewest measured steps per configuration
     * @param maxSteps       most measured steps per configuration
     */
    public record Settings(List<Integer> sizes, List<Integer> workers, TlsMode tls, Set<Part> parts,
                           double warmupSeconds, double measureSeconds, int minSteps, int maxSteps) {

        /** 1 KB to 64 MB, K = 2 and 4, TLS on and off, every part; 0.5 s warm-up, ≥ 1 s and ≥ 5 steps measured. */
        public static final Settings DEFAULT = new Settings(List.of(KB, 16 * KB, 256 * KB, 4 * MB, 64 * MB),
                List.of(2, 4), TlsMode.BOTH, EnumSet.allOf(Part.class), 0.5, 1.0, 5, 500_000);

        /** Rejects bad values naming the option. */
        public Settings {
            sizes = List.copyOf(sizes);
            workers = List.copyOf(workers);
            parts = parts.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(parts));
            if (sizes.isEmpty() || sizes.stream().anyMatch(s -> s == null || s < 4 || s % 4 != 0)) {
                throw new IllegalArgumentException("sizes must be a non-empty list of positive multiples of 4 bytes"
                        + " (floats), got " + sizes);
            }
            if (workers.isEmpty() || workers.stream().anyMatch(k -> k == null || k < 2 || k > 64)) {
                throw new IllegalArgumentException("workers must be a non-empty list of K in 2..64, got " + workers);
            }
            if (tls == null) {
                throw new IllegalArgumentException("tls must be on, off or both, got null");
            }
            if (parts.isEmpty()) {
                throw new IllegalArgumentException("parts must name at least one of raw, stream, ping-pong, ring, ps");
            }
            if (!(warmupSeconds >= 0) || !(measureSeconds > 0)) {
                throw new IllegalArgumentException("warmup-seconds must be >= 0 and seconds > 0, got "
                        + warmupSeconds + " and " + measureSeconds);
            }
            if (minSteps < 1 || maxSteps < minSteps) {
                throw new IllegalArgumentException("min-steps must be >= 1 and <= max-steps, got " + minSteps
                        + " and " + maxSteps);
            }
        }

        /** These settings with other timing. */
        public Settings withTiming(double warmup, double measure, int min) {
            return new Settings(sizes, workers, tls, parts, warmup, measure, min, maxSteps);
        }

        Lockstep.Budget budget() {
            return new Lockstep.Budget(warmupSeconds, measureSeconds, minSteps, maxSteps);
        }
    }

    /**
     * One measured configuration.
     *
     * @param part              what was measured
     * @param transport         netty (raw), lgc-net, lgc-net+TLS or in-process
     * @param io                epoll, NIO, or queues (in process)
     * @param workers           K for the exchanges; 2 endpoints point to point
     * @param sizeBytes         the message (point to point) or gradient (exchanges) in bytes
     * @param steps             measured steps (messages, round trips, exchanges)
     * @param seconds           wall time of the measured steps
     * @param mbPerSecond       payload MB/s: size × steps / time (a round trip carries 2 × size)
     * @param busMbPerSecond    ring only: 2(K−1)/K × mbPerSecond; NaN otherwise
     * @param meanMillis        mean time per operation (time / steps)
     * @param p50Millis         median interval between consecutive completions on the recording endpoint
     * @param p99Millis         99th percentile of those intervals
     * @param cpuSecondsPerGb   process CPU seconds per GB of payload
     * @param cpuCores          process CPU time / wall time: how many cores the configuration kept busy
     * @param gcPercent         the collectors' reported time as a percentage of the wall time
     * @param allocPerStepRank  heap bytes all threads allocate per step ÷ the endpoints (2, or K with the PS server's)
     * @param allocPercent      allocPerStepRank as a percentage of sizeBytes
     * @param sendCopies        copies per payload byte from the sender's float[] to the socket (NaN: raw stream)
     * @param receiveCopies     copies per payload byte from the socket to the receiver's float[] (NaN: raw stream)
     * @param poolMb            direct MB the frame pools allocated in the row, warm-up included (NaN: in process, raw)
     */
    public record Row(Part part, String transport, String io, int workers, long sizeBytes, int steps, double seconds,
                      double mbPerSecond, double busMbPerSecond, double meanMillis, double p50Millis, double p99Millis,
                      double cpuSecondsPerGb, double cpuCores, double gcPercent, double allocPerStepRank,
                      double allocPercent, double sendCopies, double receiveCopies, double poolMb) {
    }

    /** Runs every configuration of {@code settings}, prints the tables to {@code out}, progress to stderr. */
    public static List<Row> run(PrintStream out, Settings settings) throws IOException {
        NET_LOG.setLevel(Level.WARNING);
        double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        String started = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        List<Row> rows = new ArrayList<>();
        Path certDir = null;
        List<NetSettings.Tls> certificates = null;
        boolean tlsRows = settings.tls().tls() && settings.parts().stream().anyMatch(p -> p != Part.RAW);
        try {
            if (tlsRows) {
                certDir = Files.createTempDirectory("lgc-bench-tls");
                int maxEndpoints = Math.max(2, settings.workers().stream().mapToInt(Integer::intValue).max()
                        .orElse(2) + 1);
                certificates = BenchCertificates.create(certDir, maxEndpoints);
            }
            prewarm(settings, certificates);
            if (settings.parts().contains(Part.RAW)) {
                for (int size : settings.sizes()) {
                    rows.add(progress(raw(size, settings)));
                }
            }
            List<Fabric.Kind> net = new ArrayList<>();
            if (settings.tls().plain()) {
                net.add(Fabric.Kind.TCP);
            }
            if (settings.tls().tls()) {
                net.add(Fabric.Kind.TCP_TLS);
            }
            for (Fabric.Kind kind : net) {
                if (settings.parts().contains(Part.STREAM)) {
                    for (int size : settings.sizes()) {
                        rows.add(progress(pointToPoint(Part.STREAM, kind, size, settings, certificates)));
                    }
                }
                if (settings.parts().contains(Part.PING_PONG)) {
                    for (int size : settings.sizes()) {
                        if (size <= PING_PONG_MAX_BYTES) {
                            rows.add(progress(pointToPoint(Part.PING_PONG, kind, size, settings, certificates)));
                        }
                    }
                }
            }
            List<Fabric.Kind> exchanges = new ArrayList<>();
            exchanges.add(Fabric.Kind.IN_PROCESS);
            exchanges.addAll(net);
            for (Part part : List.of(Part.RING, Part.PS)) {
                if (!settings.parts().contains(part)) {
                    continue;
                }
                for (Fabric.Kind kind : exchanges) {
                    for (int k : settings.workers()) {
                        for (int size : settings.sizes()) {
                            rows.add(progress(exchange(part, kind, k, size, settings, certificates)));
                        }
                    }
                }
            }
        } finally {
            if (certDir != null) {
                try (Stream<Path> files = Files.list(certDir)) {
                    for (Path f : files.toList()) {
                        Files.deleteIfExists(f);
                    }
                }
                Files.deleteIfExists(certDir);
            }
        }
        print(out, settings, rows, load, started);
        return rows;
    }

    // ---------------------------------------------------------------- the configurations

    /**
     * Runs the raw stream and an lgc-net stream (plain and TLS, as chosen) of 256 KB messages and discards them: the
     * JIT compiles Netty's and the frames' paths, and the AES-GCM intrinsics, before the first measured row (the
     * JDK's GCM runs at tens of MB/s for its first second, and GB/s once compiled).
     */
    private static void prewarm(Settings settings, List<NetSettings.Tls> certificates) {
        Settings warm = settings.withTiming(settings.warmupSeconds(), 2 * settings.measureSeconds(), 1);
        int size = 256 * KB;
        long start = System.nanoTime();
        raw(size, warm);
        if (settings.tls().plain()) {
            pointToPoint(Part.STREAM, Fabric.Kind.TCP, size, warm, certificates);
        }
        if (settings.tls().tls()) {
            pointToPoint(Part.STREAM, Fabric.Kind.TCP_TLS, size, warm, certificates);
        }
        System.err.printf(Locale.ROOT, "transport bench: JIT warm-up (raw and lgc-net streams of 256 KB,"
                + " discarded): %.1f s%n", (System.nanoTime() - start) / 1e9);
    }

    private static Row raw(int size, Settings settings) {
        try (RawNettyStream stream = RawNettyStream.open(size, 1 + 2 * settings.maxSteps())) {
            Lockstep.Result r = Lockstep.run("raw-" + size, List.of(stream.sender(), stream.receiver()), 1,
                    settings.budget(), stream::close);
            return row(Part.RAW, "netty", stream.epoll() ? "epoll" : "NIO", 2, size, size, 2, r, null);
        }
    }

    private static Row pointToPoint(Part part, Fabric.Kind kind, int size, Settings settings,
                                    List<NetSettings.Tls> certificates) {
        int n = size / Float.BYTES;
        float[] sourceA = values(n, 1);
        float[] sourceB = values(n, 2);
        float[] sinkA = new float[n];
        float[] sinkB = new float[n];
        try (Fabric fabric = Fabric.open(kind, 2, certificates)) {
            Transport a = fabric.transport(0);
            Transport b = fabric.transport(1);
            List<Lockstep.Party> parties;
            int recorder;
            if (part == Part.STREAM) {
                parties = List.of(
                        (first, count, ends) -> {
                            for (int i = 0; i < count; i++) {
                                a.send(1, FloatFrames.encode(a, sourceA, 0, n, TrafficKind.VALUES, Stage.FULL,
                                        first + i));
                            }
                        },
                        (first, count, ends) -> {
                            for (int i = 0; i < count; i++) {
                                FloatFrames.copyInto(b.receive(0, TrafficKind.VALUES), sinkB, 0, n);
                                b.releaseReceived();
                                if (ends != null) {
                                    ends[i] = System.nanoTime();
                                }
                            }
                        });
                recorder = 1;
            } else {
                parties = List.of(
                        (first, count, ends) -> {
                            for (int i = 0; i < count; i++) {
                                a.send(1, FloatFrames.encode(a, sourceA, 0, n, TrafficKind.VALUES, Stage.FULL,
                                        first + i));
                                FloatFrames.copyInto(a.receive(1, TrafficKind.VALUES), sinkA, 0, n);
                                a.releaseReceived();
                                if (ends != null) {
                                    ends[i] = System.nanoTime();
                                }
                            }
                        },
                        (first, count, ends) -> {
                            for (int i = 0; i < count; i++) {
                                Frame in = b.receive(0, TrafficKind.VALUES);
                                FloatFrames.copyInto(in, sinkB, 0, n);
                                int step = in.step();
                                b.releaseReceived();
                                b.send(0, FloatFrames.encode(b, sourceB, 0, n, TrafficKind.VALUES, Stage.FULL, step));
                            }
                        });
                recorder = 0;
            }
            Lockstep.Result r = Lockstep.run(part.name().toLowerCase(Locale.ROOT) + "-" + size, parties, recorder,
                    settings.budget(), fabric::shutdown);
            long perStep = part == Part.PING_PONG ? 2L * size : size;
            return row(part, kind.label, fabric.io(), 2, size, perStep, 2, r, fabric);
        }
    }

    private static Row exchange(Part part, Fabric.Kind kind, int workers, int size, Settings settings,
                                List<NetSettings.Tls> certificates) {
        int n = size / Float.BYTES;
        GradientLayout layout = GradientLayout.ofBlocks(List.of(
                new ParamBlock(0, 0, "bench", "g", 0, n, new long[] {n}, LayerPolicy.DENSE)));
        Topology topology = part == Part.RING ? new RingTopology() : new ParameterServerTopology();
        int endpoints = workers + topology.serviceEndpoints(workers);
        try (Fabric fabric = Fabric.open(kind, endpoints, certificates)) {
            List<Lockstep.Party> parties = new ArrayList<>(workers);
            for (int rank = 0; rank < workers; rank++) {
                Transport transport = fabric.transport(rank);
                GradientExchange exchange = topology.worker(rank, workers, transport, layout);
                float[] gradient = values(n, 10 + rank);
                PhaseClock clock = new PhaseClock();
                parties.add((first, count, ends) -> {
                    for (int i = 0; i < count; i++) {
                        exchange.allReduceMean(new StepTag(first + i, Stage.FULL), gradient, clock);
                        transport.releaseReceived(); // as the training loop does after each step
                        if (ends != null) {
                            ends[i] = System.nanoTime();
                        }
                    }
                });
            }
            List<Transport> service = new ArrayList<>();
            for (int e = workers; e < endpoints; e++) {
                service.add(fabric.transport(e));
            }
            AtomicReference<RuntimeException> serverFailure = new AtomicReference<>();
            List<Thread> servers = new ArrayList<>();
            boolean[] closing = new boolean[1];
            for (ServiceLoop loop : topology.services(workers, service, layout)) {
                Thread t = new Thread(() -> {
                    try {
                        loop.run();
                    } catch (RuntimeException e) {
                        // Closing the fabric ends the loop; anything before that is the server failing.
                        synchronized (closing) {
                            if (!closing[0]) {
                                serverFailure.compareAndSet(null, e);
                                fabric.shutdown();
                            }
                        }
                    }
                }, "bench-ps-server");
                t.setDaemon(true);
                servers.add(t);
            }
            servers.forEach(Thread::start);
            String name = part.name().toLowerCase(Locale.ROOT) + "-" + workers + "-" + size;
            Lockstep.Result r;
            try {
                r = Lockstep.run(name, parties, 0, settings.budget(), fabric::shutdown);
            } catch (IllegalStateException e) {
                if (serverFailure.get() != null) {
                    throw new IllegalStateException(name + ": the server failed: " + serverFailure.get(),
                            serverFailure.get());
                }
                throw e;
            } finally {
                synchronized (closing) {
                    closing[0] = true;
                }
                fabric.shutdown();
                for (Thread t : servers) {
                    try {
                        t.join(10_000);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
            return row(part, kind.label, fabric.io(), workers, size, size, workers, r, fabric);
        }
    }

    private static float[] values(int n, long stream) {
        SplittableRandom random = new SplittableRandom(SEED + stream);
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) (random.nextDouble() * 2 - 1);
        }
        return v;
    }

    /**
     * @param fabric the endpoints, for their copy counts (null for the raw stream, which encodes nothing)
     */
    static Row row(Part part, String transport, String io, int workers, long size, long bytesPerStep, int ranks,
                   Lockstep.Result r, Fabric fabric) {
        double seconds = r.wallNanos() / 1e9;
        double payload = (double) bytesPerStep * r.steps();
        double mbps = payload / MB / seconds;
        double bus = part == Part.RING ? mbps * 2 * (workers - 1) / workers : Double.NaN;
        long[] sorted = r.stepNanos().clone();
        Arrays.sort(sorted);
        double cpuPerGb = r.spent().cpuNanos() / 1e9 / (payload / GB);
        double alloc = (double) r.spent().allocatedBytes() / r.steps() / ranks;
        return new Row(part, transport, io, workers, size, r.steps(), seconds, mbps, bus,
                r.wallNanos() / 1e6 / r.steps(), percentile(sorted, 0.50) / 1e6, percentile(sorted, 0.99) / 1e6,
                cpuPerGb, r.spent().cpuNanos() / (double) r.wallNanos(),
                100 * r.spent().gcMillis() * 1e6 / r.wallNanos(), alloc, 100 * alloc / size,
                sendCopies(fabric), receiveCopies(fabric),
                fabric == null || fabric.copies() == null ? Double.NaN : fabric.copies().poolAllocatedBytes() / (double) MB);
    }

    /**
     * Copies per payload byte between the sender's float[] and the socket: 1 (the encode, float[] → frame) plus the
     * share of frame bytes copied again on the way (a heap frame into direct memory), plus 1 with TLS (the
     * encryption writes the bytes anew). 1 in process (the frame is the queue's message). NaN for the raw stream.
     */
    private static double sendCopies(Fabric fabric) {
        if (fabric == null) {
            return Double.NaN;
        }
        TcpCluster.Copies c = fabric.copies();
        if (c == null) {
            return 1;
        }
        return 1 + share(c.sentCopied(), c.sentInPlace()) + (fabric.kind() == Fabric.Kind.TCP_TLS ? 1 : 0);
    }

    /**
     * Copies per payload byte between the socket and the receiver's float[]: 1 (the decode, frame → float[]) plus
     * the share of frame bytes copied out of a read buffer into their frame, plus 1 with TLS (the decryption).
     */
    private static double receiveCopies(Fabric fabric) {
        if (fabric == null) {
            return Double.NaN;
        }
        TcpCluster.Copies c = fabric.copies();
        if (c == null) {
            return 1;
        }
        return 1 + share(c.receivedCopied(), c.receivedInPlace()) + (fabric.kind() == Fabric.Kind.TCP_TLS ? 1 : 0);
    }

    private static double share(long copied, long inPlace) {
        return copied + inPlace == 0 ? 0 : (double) copied / (copied + inPlace);
    }

    private static double percentile(long[] sorted, double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int index = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    private static Row progress(Row row) {
        System.err.printf(Locale.ROOT, "transport bench: %s, %s, K=%d, %s: %.1f MB/s, %s ms per step, %d steps%n",
                row.part().label, row.transport(), row.workers(), size(row.sizeBytes()), row.mbPerSecond(),
                ms(row.meanMillis()), row.steps());
        return row;
    }

    // ---------------------------------------------------------------- output

    private static void print(PrintStream out, Settings settings, List<Row> rows, double load, String started) {
        String commit = Provenance.gitCommit();
        String io = rows.stream().filter(r -> !r.io().equals("queues")).map(Row::io).findFirst().orElse("–");
        out.printf(Locale.ROOT, "Transport benchmark: git %s%s, started %s, Java %s (%s), %s %s, %d CPUs, load"
                        + " average %.2f at start, %s, max heap %d MB, JVM options %s%n",
                commit.length() > 12 ? commit.substring(0, 12) : commit,
                "true".equals(Provenance.gitDirty()) ? " (dirty tree)" : "", started, Runtime.version(),
                System.getProperty("java.vm.name"), System.getProperty("os.name"), System.getProperty("os.arch"),
                Runtime.getRuntime().availableProcessors(), load, io, Runtime.getRuntime().maxMemory() >> 20,
                ManagementFactory.getRuntimeMXBean().getInputArguments());
        out.printf(Locale.ROOT, "Every endpoint on its own thread of one JVM, loopback; per configuration one probe"
                        + " step, %.2f s of warm-up, then at least %.2f s and %d steps measured. MB = 2^20 bytes,"
                        + " GB = 2^30 bytes. Time per op: mean = wall / steps; p50/p99 of the intervals between"
                        + " completions on the recording endpoint (receiver, pinger, rank 0 / worker 0). CPU s/GB:"
                        + " process CPU time over the measured steps per GB of payload; cores busy: process CPU"
                        + " time / wall time; GC %%: the collectors' reported time / wall time. Alloc: heap bytes"
                        + " allocated by every thread of the JVM per step, divided by the endpoints (2 point to point, K in the"
                        + " exchanges; the PS server's allocation is in the total), and as %% of the size.%n%n",
                settings.warmupSeconds(), settings.measureSeconds(), settings.minSteps());
        table(out, "Point to point (raw Netty: plain direct ByteBuf writes; lgc-net: float[] → FloatFrames.encode →"
                + " send → receive → copyInto float[]; ping-pong MB/s counts both directions)",
                rows, r -> r.part() == Part.RAW || r.part() == Part.STREAM || r.part() == Part.PING_PONG, false);
        table(out, "Dense ring allreduce (RingTopology worker: RingAllReduce.sum, then ÷K; MB/s = gradient bytes /"
                + " allreduce time, bus MB/s = 2(K−1)/K × that)", rows, r -> r.part() == Part.RING, true);
        table(out, "Dense parameter-server step (ParameterServerTopology: K workers push the gradient to endpoint K,"
                + " which averages in rank order and sends the mean back; MB/s = gradient bytes / step time)", rows,
                r -> r.part() == Part.PS, false);
        comparisons(out, rows);
    }

    private static void table(PrintStream out, String title, List<Row> rows, Predicate<Row> which, boolean bus) {
        List<Row> selected = rows.stream().filter(which).toList();
        if (selected.isEmpty()) {
            return;
        }
        out.println(title);
        out.println();
        out.println("| what | transport | io | K | size | steps | MB/s |" + (bus ? " bus MB/s |" : "")
                + " mean ms | p50 ms | p99 ms | CPU s/GB | cores busy | GC % | alloc B/step/rank | alloc % of size |"
                + " copies/B send | copies/B receive | pool MB |");
        out.println("|---|---|---|---:|---:|---:|---:|" + (bus ? "---:|" : "")
                + "---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (Row r : selected) {
            out.printf(Locale.ROOT, "| %s | %s | %s | %d | %s | %d | %s |%s %s | %s | %s | %s | %.2f | %s | %s | %s |"
                            + " %s | %s | %s |%n",
                    r.part().label, r.transport(), r.io(), r.workers(), size(r.sizeBytes()), r.steps(),
                    rate(r.mbPerSecond()), bus ? " " + rate(r.busMbPerSecond()) + " |" : "", ms(r.meanMillis()),
                    ms(r.p50Millis()), ms(r.p99Millis()), decimal(r.cpuSecondsPerGb()), r.cpuCores(),
                    percent(r.gcPercent()), bytes(r.allocPerStepRank()), percent(r.allocPercent()),
                    copies(r.sendCopies()), copies(r.receiveCopies()),
                    Double.isNaN(r.poolMb()) ? "–" : decimal(r.poolMb()));
        }
        out.println();
    }

    /** Ratios computed from the rows: to the raw stream, to the in-process cluster, TLS against plain. */
    private static void comparisons(PrintStream out, List<Row> rows) {
        List<Row> net = rows.stream().filter(r -> r.transport().equals(Fabric.Kind.TCP.label)).toList();
        if (net.isEmpty()) {
            net = rows.stream().filter(r -> r.transport().equals(Fabric.Kind.TCP_TLS.label)).toList();
        }
        if (net.isEmpty()) {
            return;
        }
        out.println("Ratios (same run): lgc-net MB/s ÷ raw Netty stream MB/s at the same size (ring: also bus MB/s"
                + " ÷ raw); lgc-net ÷ in-process; TLS ÷ plain lgc-net MB/s, and CPU s/GB plain → TLS");
        out.println();
        out.println("| what | K | size | ÷ raw stream | bus ÷ raw stream | ÷ in-process | TLS ÷ plain | CPU s/GB plain"
                + " → TLS |");
        out.println("|---|---:|---:|---:|---:|---:|---:|---|");
        for (Row r : net) {
            if (r.part() == Part.PING_PONG) {
                continue;
            }
            Optional<Row> raw = find(rows, Part.RAW, "netty", 2, r.sizeBytes());
            Optional<Row> inProcess = find(rows, r.part(), Fabric.Kind.IN_PROCESS.label, r.workers(), r.sizeBytes());
            Optional<Row> plain = find(rows, r.part(), Fabric.Kind.TCP.label, r.workers(), r.sizeBytes());
            Optional<Row> tls = find(rows, r.part(), Fabric.Kind.TCP_TLS.label, r.workers(), r.sizeBytes());
            out.printf(Locale.ROOT, "| %s | %d | %s | %s | %s | %s | %s | %s |%n", r.part().label, r.workers(),
                    size(r.sizeBytes()),
                    raw.map(x -> percent(100 * r.mbPerSecond() / x.mbPerSecond())).orElse("–"),
                    r.part() == Part.RING ? raw.map(x -> percent(100 * r.busMbPerSecond() / x.mbPerSecond()))
                            .orElse("–") : "–",
                    inProcess.map(x -> percent(100 * r.mbPerSecond() / x.mbPerSecond())).orElse("–"),
                    plain.isPresent() && tls.isPresent()
                            ? percent(100 * tls.get().mbPerSecond() / plain.get().mbPerSecond()) : "–",
                    plain.isPresent() && tls.isPresent() ? decimal(plain.get().cpuSecondsPerGb()) + " → "
                            + decimal(tls.get().cpuSecondsPerGb()) : "–");
        }
        out.println();
        long largest = rows.stream().mapToLong(Row::sizeBytes).max().orElse(0);
        Optional<Row> rawLargest = find(rows, Part.RAW, "netty", 2, largest);
        for (Row r : net) {
            if (r.part() == Part.RING && r.sizeBytes() == largest && rawLargest.isPresent()) {
                double share = 100 * r.mbPerSecond() / rawLargest.get().mbPerSecond();
                double busShare = 100 * r.busMbPerSecond() / rawLargest.get().mbPerSecond();
                out.printf(Locale.ROOT, "Target ring allreduce of %s at >= 70%% of the raw stream, K=%d: %.1f MB/s"
                                + " = %s of %.1f MB/s (%s); bus bandwidth %.1f MB/s = %s (%s)%n",
                        size(largest), r.workers(), r.mbPerSecond(), percent(share), rawLargest.get().mbPerSecond(),
                        share >= 70 ? "met" : "missed", r.busMbPerSecond(), percent(busShare),
                        busShare >= 70 ? "met" : "missed");
            }
        }
        Optional<Row> worst = rows.stream().filter(r -> !r.transport().equals("netty")
                        && !r.transport().equals(Fabric.Kind.IN_PROCESS.label) && r.sizeBytes() == largest)
                .max(Comparator.comparingDouble(Row::allocPercent));
        Optional<Row> best = rows.stream().filter(r -> !r.transport().equals("netty")
                        && !r.transport().equals(Fabric.Kind.IN_PROCESS.label) && r.sizeBytes() == largest)
                .min(Comparator.comparingDouble(Row::allocPercent));
        if (worst.isPresent()) {
            out.printf(Locale.ROOT, "Target allocation <= 1%% of payload in steady state, lgc-net rows at %s: %s to %s"
                            + " (%s)%n", size(largest), percent(best.get().allocPercent()),
                    percent(worst.get().allocPercent()), worst.get().allocPercent() <= 1 ? "met" : "missed");
        }
    }

    private static Optional<Row> find(List<Row> rows, Part part, String transport, int workers, long size) {
        return rows.stream().filter(r -> r.part() == part && r.transport().equals(transport)
                && r.workers() == workers && r.sizeBytes() == size).findFirst();
    }

    /** The rows as CSV: one header line, then one line per row, numbers unrounded, units in the names. */
    public static void writeCsv(Path file, List<Row> rows) throws IOException {
        StringBuilder csv = new StringBuilder("part,transport,io,workers,size_bytes,steps,seconds,mb_per_s,"
                + "bus_mb_per_s,mean_ms,p50_ms,p99_ms,cpu_s_per_gb,cpu_cores,gc_pct,alloc_bytes_per_step_per_rank,"
                + "alloc_pct_of_size,send_copies_per_byte,receive_copies_per_byte,pool_mb\n");
        for (Row r : rows) {
            csv.append(String.format(Locale.ROOT, "%s,%s,%s,%d,%d,%d,%.6f,%.3f,%s,%.6f,%.6f,%.6f,%.4f,%.3f,%.2f,%.1f,%.4f,"
                            + "%s,%s,%s%n",
                    r.part().name().toLowerCase(Locale.ROOT).replace('_', '-'), r.transport(), r.io(), r.workers(),
                    r.sizeBytes(), r.steps(), r.seconds(), r.mbPerSecond(),
                    Double.isNaN(r.busMbPerSecond()) ? "" : String.format(Locale.ROOT, "%.3f", r.busMbPerSecond()),
                    r.meanMillis(), r.p50Millis(), r.p99Millis(), r.cpuSecondsPerGb(), r.cpuCores(), r.gcPercent(),
                    r.allocPerStepRank(),
                    r.allocPercent(), csvNumber(r.sendCopies()), csvNumber(r.receiveCopies()),
                    csvNumber(r.poolMb())));
        }
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, csv, StandardCharsets.UTF_8);
    }

    private static String csvNumber(double v) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.4f", v);
    }

    /** "1 KB", "256 KB", "64 MB", or bytes. */
    static String size(long bytes) {
        if (bytes >= MB && bytes % MB == 0) {
            return bytes / MB + " MB";
        }
        if (bytes >= KB && bytes % KB == 0) {
            return bytes / KB + " KB";
        }
        return bytes + " B";
    }

    private static String rate(double mbps) {
        if (Double.isNaN(mbps)) {
            return "–";
        }
        return mbps >= 100 ? String.format(Locale.ROOT, "%,.0f", mbps) : String.format(Locale.ROOT, "%.1f", mbps);
    }

    private static String ms(double millis) {
        if (millis >= 100) {
            return String.format(Locale.ROOT, "%.0f", millis);
        }
        if (millis >= 10) {
            return String.format(Locale.ROOT, "%.1f", millis);
        }
        if (millis >= 1) {
            return String.format(Locale.ROOT, "%.2f", millis);
        }
        return String.format(Locale.ROOT, "%.3f", millis);
    }

    private static String copies(double v) {
        return Double.isNaN(v) ? "–" : String.format(Locale.ROOT, "%.3f", v);
    }

    private static String decimal(double v) {
        return v >= 100 ? String.format(Locale.ROOT, "%.0f", v) : v >= 10 ? String.format(Locale.ROOT, "%.1f", v)
                : String.format(Locale.ROOT, "%.2f", v);
    }

    private static String bytes(double v) {
        return String.format(Locale.ROOT, "%,.0f", v);
    }

    private static String percent(double v) {
        return v >= 10 ? String.format(Locale.ROOT, "%.0f%%", v) : String.format(Locale.ROOT, "%.1f%%", v);
    }
}

package io.lgc4j.core.train;

import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.checkpoint.PartKind;
import io.lgc4j.core.comm.ForwardingTransport;
import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameBuffer;
import io.lgc4j.core.comm.InProcessCluster;
import io.lgc4j.core.comm.StepTag;
import io.lgc4j.core.comm.TrafficMeter;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.comm.TransportClosedException;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.metrics.PhaseClock;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A topology's endpoints kept alive on one in-process cluster across steps; each {@link #step} runs one exchange on
 * every rank at once on given gradients and records its cost: bytes and frames per endpoint, stage and kind, its
 * <em>legs</em> (the longest chain of receives a frame waited for; an upper bound where an endpoint interleaves
 * exchanges) and the CPU time of every rank's {@link GradientExchange#allReduceMean} and service loop (other threads'
 * work is in {@link Cost#otherCpuNanos}). The exchange code itself runs, so nothing is modelled by hand.
 *
 * <pre>{@code
 * try (DryRun run = new DryRun(topology, 4, layout)) {
 *     float[][] means = run.step(new StepTag(0, Stage.FULL), gradients);
 *     run.lastCost().legs();                   // 6 for a dense ring of 4
 * }
 * }</pre>
 *
 * <p>{@link #step} returns only once every service is idle waiting for the next step and every endpoint's notes are
 * written, so a {@link #save} or {@link #restore} between steps sees idle services.
 */
public final class DryRun implements AutoCloseable {
    /** The prefix of every rank's sections in {@link #save}. */
    public static final String RANK_PREFIX = "exchange";
    /** The prefix of every service's sections in {@link #save}. */
    public static final String SERVICE_PREFIX = "service";

    private static final long TIMEOUT_SECONDS = 60;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final int workers;
    private final InProcessCluster cluster;
    private final ExecutorService pool;
    private final List<GradientExchange> exchanges = new ArrayList<>();
    private final List<ServiceLoop> services;
    private final List<ReceiveWatch> watches = new ArrayList<>();
    private final List<Future<?>> running = new ArrayList<>();
    private final AtomicLong[] serviceThreads;
    private final Legs legs;
    private boolean stepped;
    private Cost lastCost;

    /**
     * What one step cost.
     *
     * @param bytes     the bytes and frames of the step per endpoint (ranks 0..K−1, then the services), direction,
     *                  stage and kind
     * @param legs      the longest chain of receives a rank waited for
     * @param cpuNanos  per endpoint, the thread CPU time of its exchange (a rank) or its loop (a service), ns
     * @param wallNanos the step's wall time on this machine, ns: every endpoint's threads compete for its cores
     * @param otherCpuNanos the process's CPU over the step beyond those threads', ns: work a step hands to a thread of
     *                  its own (an autoencoder's lane), and the collector's and the JIT's
     */
    public record Cost(TrafficMeter.Snapshot bytes, int legs, long[] cpuNanos, long wallNanos, long otherCpuNanos) {
        /** Copies the CPU times. */
        public Cost {
            cpuNanos = cpuNanos.clone();
        }

        @Override
        public long[] cpuNanos() {
            return cpuNanos.clone();
        }
    }

    /** Builds the K exchanges and the service loops of {@code topology} over {@code layout}; nothing runs yet. */
    public DryRun(Topology topology, int workers, GradientLayout layout) {
        int serviceCount = topology.serviceEndpoints(workers);
        this.workers = workers;
        this.cluster = new InProcessCluster(workers + serviceCount, new TrafficMeter(workers + serviceCount));
        this.pool = Executors.newFixedThreadPool(workers + serviceCount);
        this.legs = new Legs(workers + serviceCount);
        this.serviceThreads = new AtomicLong[serviceCount];
        List<Transport> serviceTransports = new ArrayList<>();
        for (int s = 0; s < serviceCount; s++) {
            serviceThreads[s] = new AtomicLong(-1);
            ReceiveWatch watch = new ReceiveWatch(legs.counted(cluster.transport(workers + s)));
            watches.add(watch);
            serviceTransports.add(watch);
        }
        this.services = topology.services(workers, serviceTransports, layout);
        for (int r = 0; r < workers; r++) {
            exchanges.add(topology.worker(r, workers, legs.counted(cluster.transport(r)), layout));
        }
    }

    /**
     * One step: rank r contributes {@code inputs[r]} (copied); returns what every rank holds afterwards, and
     * {@link #lastCost()} what the step cost. Fails, rather than hangs, after a minute, with a service's failure when
     * one has failed.
     */
    public float[][] step(StepTag tag, float[][] inputs) throws Exception {
        if (inputs.length != workers) {
            throw new IllegalArgumentException("one input per rank (" + workers + "), got " + inputs.length);
        }
        startServices();
        stepped = true;
        TrafficMeter.Snapshot before = cluster.meter().snapshot();
        long[] cpu = new long[workers + services.size()];
        for (int s = 0; s < services.size(); s++) {
            cpu[workers + s] = -serviceCpu(s);
        }
        legs.reset();
        long processBefore = processCpu();
        long start = System.nanoTime();
        List<Future<float[]>> futures = new ArrayList<>();
        for (int r = 0; r < workers; r++) {
            GradientExchange exchange = exchanges.get(r);
            float[] g = inputs[r].clone();
            int rank = r;
            futures.add(pool.submit(() -> {
                long t0 = THREADS.getCurrentThreadCpuTime();
                exchange.allReduceMean(tag, g, new PhaseClock());
                cpu[rank] = THREADS.getCurrentThreadCpuTime() - t0;
                return g;
            }));
        }
        float[][] outputs = new float[workers][];
        for (int r = 0; r < workers; r++) {
            try {
                outputs[r] = futures.get(r).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                for (Future<?> service : running) {
                    if (service.isDone()) {
                        service.get(); // throws the service's failure
                    }
                }
                throw e;
            }
        }
        awaitServicesIdle();
        // work a step leaves on a thread of its own (an autoencoder's training) notes the step when it is done
        for (GradientExchange exchange : exchanges) {
            exchange.awaitNotes(tag.step());
        }
        for (ServiceLoop service : services) {
            service.awaitNotes(tag.step());
        }
        long wall = System.nanoTime() - start;
        for (int s = 0; s < services.size(); s++) {
            cpu[workers + s] += serviceCpu(s);
        }
        long other = processCpu() - processBefore;
        for (long c : cpu) {
            other -= c;
        }
        lastCost = new Cost(cluster.meter().snapshot().minus(before), legs.deepestAt(workers), cpu, wall,
                Math.max(0, other));
        return outputs;
    }

    /** What the last {@link #step} cost. */
    public Cost lastCost() {
        if (lastCost == null) {
            throw new IllegalStateException("no step has run yet");
        }
        return lastCost;
    }

    /** The CPU time of every thread of this process, ns. */
    private static long processCpu() {
        if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return 0;
    }

    private long serviceCpu(int s) {
        long id = serviceThreads[s].get();
        long nanos = id < 0 ? 0 : THREADS.getThreadCpuTime(id);
        return Math.max(0, nanos);
    }

    /** Waits until every service is blocked in a receive with nothing queued for it: its step is over. */
    private void awaitServicesIdle() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        for (int s = 0; s < watches.size(); s++) {
            while (!(watches.get(s).receiving() && cluster.pending(workers + s) == 0)) {
                if (running.get(s).isDone()) {
                    running.get(s).get(); // throws the service's failure
                }
                if (System.nanoTime() > deadline) {
                    throw new TimeoutException("service " + s + " did not finish its step within " + TIMEOUT_SECONDS
                            + " s");
                }
                Thread.sleep(1);
            }
        }
    }

    /**
     * The depth of every frame on the cluster's links: a FIFO of stamps per (sender, receiver), and per endpoint the
     * deepest stamp it has received in the step.
     */
    private static final class Legs {
        private final int endpoints;
        private final List<Deque<Integer>> links = new ArrayList<>();
        private final AtomicInteger[] depth;

        Legs(int endpoints) {
            this.endpoints = endpoints;
            this.depth = new AtomicInteger[endpoints];
            for (int i = 0; i < endpoints * endpoints; i++) {
                links.add(new ArrayDeque<>());
            }
            for (int e = 0; e < endpoints; e++) {
                depth[e] = new AtomicInteger();
            }
        }

        void reset() {
            for (AtomicInteger d : depth) {
                d.set(0);
            }
        }

        int deepestAt(int ranks) {
            int deepest = 0;
            for (int r = 0; r < ranks; r++) {
                deepest = Math.max(deepest, depth[r].get());
            }
            return deepest;
        }

        Transport counted(Transport inner) {
            return new ForwardingTransport(inner) {
                @Override
                public void send(int peer, FrameBuffer frame) {
                    Deque<Integer> link = links.get(endpoint() * endpoints + peer);
                    // stamped before the frame can be received, so the receiver always finds its stamp
                    synchronized (link) {
                        link.addLast(depth[endpoint()].get() + 1);
                    }
                    inner.send(peer, frame);
                }

                @Override
                public Frame receive(int peer) {
                    Frame frame = inner.receive(peer);
                    Deque<Integer> link = links.get(peer * endpoints + endpoint());
                    Integer stamp;
                    synchronized (link) {
                        stamp = link.pollFirst();
                    }
                    if (stamp != null) {
                        depth[endpoint()].accumulateAndGet(stamp, Math::max);
                    }
                    return frame;
                }
            };
        }
    }

    /** A service's transport that knows whether the service is inside a receive. */
    private static final class ReceiveWatch extends ForwardingTransport {
        private final AtomicInteger receiving = new AtomicInteger();

        ReceiveWatch(Transport inner) {
            super(inner);
        }

        @Override
        public Frame receive(int peer) {
            receiving.incrementAndGet();
            try {
                return inner.receive(peer);
            } finally {
                receiving.decrementAndGet();
            }
        }

        boolean receiving() {
            return receiving.get() > 0;
        }
    }

    /** Every endpoint's state, between steps: the K rank parts, then the service parts, each read back from bytes. */
    public List<CheckpointPart> save() throws CheckpointException {
        List<CheckpointPart> parts = new ArrayList<>();
        for (int r = 0; r < workers; r++) {
            CheckpointPart.Builder b = CheckpointPart.builder(PartKind.RANK);
            exchanges.get(r).save(b, RANK_PREFIX);
            parts.add(CheckpointPart.parse(b.build().toBytes(), "rank-" + r + ".lgcc"));
        }
        for (int s = 0; s < services.size(); s++) {
            CheckpointPart.Builder b = CheckpointPart.builder(PartKind.SERVER);
            services.get(s).state().save(b, SERVICE_PREFIX);
            parts.add(CheckpointPart.parse(b.build().toBytes(), "server-" + s + ".lgcc"));
        }
        return parts;
    }

    /** Restores what {@link #save} returned (of a topology built the same way), before the first step. */
    public void restore(List<CheckpointPart> parts) throws CheckpointException {
        if (stepped) {
            throw new IllegalStateException("restore before the first step");
        }
        if (parts.size() != workers + services.size()) {
            throw new IllegalArgumentException("expected " + (workers + services.size()) + " parts, got "
                    + parts.size());
        }
        for (int r = 0; r < workers; r++) {
            exchanges.get(r).restore(parts.get(r), RANK_PREFIX);
        }
        for (int s = 0; s < services.size(); s++) {
            services.get(s).state().restore(parts.get(workers + s), SERVICE_PREFIX);
        }
    }

    /** Rank {@code rank}'s exchange. */
    public GradientExchange exchange(int rank) {
        return exchanges.get(rank);
    }

    /** Closes the cluster (the service loops end) and the threads. */
    @Override
    public void close() {
        cluster.close();
        pool.shutdownNow();
    }

    private void startServices() {
        if (stepped) {
            return;
        }
        for (int s = 0; s < services.size(); s++) {
            ServiceLoop loop = services.get(s);
            AtomicLong thread = serviceThreads[s];
            running.add(pool.submit(() -> {
                thread.set(Thread.currentThread().getId());
                try {
                    loop.run();
                } catch (TransportClosedException expected) {
                    // the cluster closed: the end of the run
                }
                return null;
            }));
        }
    }
}

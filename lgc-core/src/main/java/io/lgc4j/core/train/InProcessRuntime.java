package io.lgc4j.core.train;

import io.lgc4j.core.comm.InProcessCluster;
import io.lgc4j.core.comm.MeteredTransport;
import io.lgc4j.core.comm.TrafficMeter;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.comm.TransportClosedException;
import io.lgc4j.core.compute.ComputeSettings;
import io.lgc4j.core.compute.Nd4jThreads;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.metrics.Phase;
import io.lgc4j.core.metrics.PhaseClock;
import io.lgc4j.core.metrics.StepNotes;
import io.lgc4j.core.metrics.Timeline;
import io.lgc4j.core.metrics.TraceClock;
import io.lgc4j.core.metrics.TraceMerge;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Phaser;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Every endpoint of a run a thread of this JVM, over an {@link InProcessCluster}: K replicas, the services, real
 * frames and every byte metered. The ranks share this machine's cores, so by default they take turns computing.
 *
 * <pre>{@code
 * TrainingRuntime.inProcess().computeConcurrency(2).alignExchange(false)
 * }</pre>
 */
public final class InProcessRuntime extends TrainingRuntime {

    static final InProcessRuntime DEFAULT = new InProcessRuntime(1, true);

    private final int computeConcurrency;
    private final boolean alignExchange;

    private InProcessRuntime(int computeConcurrency, boolean alignExchange) {
        if (computeConcurrency < 1) {
            throw new IllegalArgumentException("computeConcurrency must be >= 1, found " + computeConcurrency);
        }
        this.computeConcurrency = computeConcurrency;
        this.alignExchange = alignExchange;
    }

    /**
     * How many ranks may run their forward and backward pass at once (default 1). The in-process ranks share this
     * machine's cores, and ND4J already spreads one pass over all of them; letting K passes compete only
     * oversubscribes the cores (measured: 4 concurrent LeNet-5 passes on 2 cores take longer than 4 in turn).
     * Waiting for a turn is timed as {@link Phase#CPU_WAIT}.
     */
    public InProcessRuntime computeConcurrency(int ranks) {
        return new InProcessRuntime(ranks, alignExchange);
    }

    /**
     * When set (the default), every rank waits for all others before the exchange, timed as {@link Phase#CPU_WAIT},
     * so {@link Phase#COMMUNICATE} measures the exchange itself: the ranks take turns on the CPU, and without the
     * barrier their turns would count as communication. It changes timings only, never results.
     */
    public InProcessRuntime alignExchange(boolean align) {
        return new InProcessRuntime(computeConcurrency, align);
    }

    @Override
    public String name() {
        return "in-process";
    }

    @Override
    List<ReplicaModel> replicas(ReplicaModel origin, ComputeSettings compute, int workers) {
        List<ReplicaModel> replicas = new ArrayList<>(workers);
        for (int r = 0; r < workers; r++) {
            replicas.add(origin.copy(compute));
        }
        return replicas;
    }

    /** The K ranks and the services on threads of this JVM, over an {@link InProcessCluster}. */
    @Override
    TrainingResult fit(RankLoop.Run run, List<ReplicaModel> replicas) {
        Topology topology = run.spec().aggregation().topology();
        GradientLayout layout = run.plan().layout();
        TrainingPlan plan = run.plan();
        int workers = run.workers();
        int serviceCount = plan.serviceEndpoints();
        InProcessCluster cluster = new InProcessCluster(workers + serviceCount);
        TrafficMeter meter = cluster.meter();
        StepNotes notes = new StepNotes();
        topology.attachNotes(notes);
        TraceClock traceClock = TraceClock.start(); // one clock: in-process traces need no alignment
        List<Timeline> timelines = new ArrayList<>();
        for (int e = 0; e < workers + serviceCount; e++) {
            timelines.add(EndpointTrace.open(run.trace(), e, e < workers, traceClock,
                    e < workers ? "rank " + e : "service endpoint " + e + " (in-process)"));
        }
        List<ServiceReporter> reporters = new ArrayList<>();
        List<ServiceLoop> services = services(run, topology, layout, cluster, notes, timelines, reporters);
        // a Phaser rather than a barrier: a failure terminates it for good, so a rank arriving after the failure
        // does not wait for a generation that never fills
        Phaser beforeExchange = new Phaser(workers);
        RankLoop.Gate gate = new Turns(new Semaphore(computeConcurrency, true), alignExchange ? beforeExchange : null);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicReference<String> failedFirst = new AtomicReference<>();
        Runnable onFailure = () -> {
            cluster.close();
            beforeExchange.forceTermination();
        };
        ExecutorService pool = Executors.newFixedThreadPool(workers + serviceCount, daemonThreads());
        List<Future<?>> futures = new ArrayList<>();
        AtomicReference<TrainingResult> result = new AtomicReference<>();
        try {
            for (int s = 0; s < serviceCount; s++) {
                ServiceLoop loop = services.get(s);
                ServiceReporter reporter = reporters.get(s);
                Timeline timeline = timelines.get(workers + s);
                String name = plan.serviceEndpoints() == 1 ? "the parameter server" : "parameter-server shard " + s;
                futures.add(pool.submit(() -> guard(failure, failedFirst, name, onFailure,
                        () -> serve(loop, reporter, timeline))));
            }
            for (int r = 0; r < workers; r++) {
                int rank = r;
                futures.add(pool.submit(() -> guard(failure, failedFirst, "rank " + rank, onFailure, () -> {
                    ControlPlane plane = new ControlPlane(cluster.transport(rank));
                    Timeline timeline = timelines.get(rank);
                    RankLoop loop = new RankLoop(run, rank, plane, replicas.get(rank),
                            topology.worker(rank, workers, EndpointTrace.wrap(plane, timeline), layout), notes, meter,
                            gate, timeline);
                    TrainingResult r0 = loop.execute();
                    if (rank == 0) {
                        result.set(r0);
                    }
                })));
            }
            for (Future<?> f : futures) {
                await(f, failure, cluster);
            }
        } finally {
            cluster.close();
            for (Future<?> f : futures) {
                await(f, failure, cluster);
            }
            pool.shutdownNow();
            EndpointTrace.closeAll(timelines, failure.get() != null);
        }
        Throwable t = failure.get();
        if (t != null) {
            if (t instanceof NonFiniteGradientException n) {
                throw n;
            }
            String who = failedFirst.get();
            throw new TrainingFailedException("training failed: " + (who == null ? "" : who + " failed: ")
                    + t.getMessage(), t);
        }
        if (run.trace() != null) {
            mergeTrace(run, topology);
        }
        return result.get();
    }

    /**
     * The service endpoints' loops, on the cluster's endpoints after the workers', each with its reporter (added to
     * {@code reporters}) and attached to the run.
     */
    private static List<ServiceLoop> services(RankLoop.Run run, Topology topology, GradientLayout layout,
                                              InProcessCluster cluster, StepNotes notes, List<Timeline> timelines,
                                              List<ServiceReporter> reporters) {
        int workers = run.workers();
        int serviceCount = run.plan().serviceEndpoints();
        TrafficMeter meter = cluster.meter();
        List<Transport> serviceTransports = new ArrayList<>();
        for (int s = 0; s < serviceCount; s++) {
            ServiceReporter reporter = new ServiceReporter(cluster.unmetered(workers + s), meter, notes,
                    run.stages()::stageAt);
            reporters.add(reporter);
            serviceTransports.add(EndpointTrace.wrap(new MeteredTransport(reporter, meter, cluster.controlMeter()),
                    timelines.get(workers + s)));
        }
        List<ServiceLoop> services = topology.services(workers, serviceTransports, layout);
        if (services.size() != serviceCount) {
            throw new IllegalStateException("topology " + topology.name() + " declared " + serviceCount
                    + " service endpoints but returned " + services.size() + " loops");
        }
        for (int s = 0; s < serviceCount; s++) {
            attachService(run, s, services.get(s), reporters.get(s), meter, timelines.get(workers + s));
        }
        return services;
    }

    /**
     * The ranks' turns on the shared CPU ({@code computeConcurrency} passes at a time), and when exchanges are
     * aligned the wait for every rank before each exchange, timed as {@link Phase#CPU_WAIT}.
     */
    private record Turns(Semaphore cpu, Phaser beforeExchange) implements RankLoop.Gate {
        @Override
        public void beforeCompute() {
            cpu.acquireUninterruptibly();
        }

        @Override
        public void afterCompute() {
            cpu.release();
        }

        @Override
        public void beforeExchange(PhaseClock clock, int rank, int step) {
            if (beforeExchange == null) {
                return;
            }
            clock.enter(Phase.CPU_WAIT);
            if (beforeExchange.arriveAndAwaitAdvance() < 0) {
                throw new TransportClosedException("rank " + rank + ": another rank failed during step " + step);
            }
        }
    }

    /** Every endpoint's trace file, merged into the run's trace: one clock, so no offsets. */
    private static void mergeTrace(RankLoop.Run run, Topology topology) {
        try {
            TraceMerge.merge(List.of(run.trace().directory()), run.trace().file(), Map.of("runtime",
                    "in-process", "topology", topology.name(), "workers", run.workers(), "services",
                    run.plan().serviceEndpoints(), "steps", run.trace().steps().toString()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot merge the trace into " + run.trace().file() + ": " + e, e);
        }
    }

    /** Runs endpoint {@code who}'s {@code body}; its failure, when it is the first, is the run's, named. */
    private static void guard(AtomicReference<Throwable> failure, AtomicReference<String> failedFirst, String who,
                              Runnable onFailure, Runnable body) {
        try {
            // before the topology builds the endpoint: an LGC worker builds (and warms up) its encoder there, and
            // oneDNN keeps what it built for the thread count of the moment
            Nd4jThreads.adopt();
            body.run();
        } catch (Throwable t) {
            boolean consequence = t instanceof TransportClosedException && failure.get() != null;
            if (!consequence && failure.compareAndSet(null, t)) {
                failedFirst.set(who);
            }
            onFailure.run();
        }
    }

    private static void await(Future<?> f, AtomicReference<Throwable> failure, InProcessCluster cluster) {
        try {
            f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            cluster.close();
        } catch (ExecutionException e) {
            failure.compareAndSet(null, e.getCause());
        }
    }

    private static ThreadFactory daemonThreads() {
        return runnable -> {
            Thread t = new Thread(runnable);
            t.setDaemon(true);
            t.setName("lgc-endpoint-" + t.getId());
            return t;
        };
    }

    @Override
    public String toString() {
        return "InProcessRuntime[computeConcurrency=" + computeConcurrency + ", alignExchange=" + alignExchange
                + "]";
    }
}

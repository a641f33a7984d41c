package io.lgc4j.core.train;

import io.lgc4j.core.comm.MeteredTransport;
import io.lgc4j.core.comm.PeerLostException;
import io.lgc4j.core.comm.TrafficMeter;
import io.lgc4j.core.compute.ComputeSettings;
import io.lgc4j.core.compute.Nd4jThreads;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.metrics.StepNotes;
import io.lgc4j.core.metrics.Timeline;
import io.lgc4j.core.metrics.TraceClock;
import io.lgc4j.core.runtime.ClusterConnection;
import io.lgc4j.core.runtime.ClusterConnector;
import io.lgc4j.core.runtime.StopReport;

import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;
import java.util.function.IntUnaryOperator;

/**
 * This process as one endpoint of a cluster of processes joined by a {@link ClusterConnector}: a worker rank's loop
 * or a service. Every process builds the same trainer; rank 0 evaluates, calls the listeners and returns the run's
 * result. A failure is told to every other process ({@link ClusterConnection#abort}) naming the endpoint lost first,
 * the step and the stage.
 *
 * <p><b>Shards inside the workers.</b> When the connector {@link ClusterConnector#colocatesServices() colocates
 * services}, the process of worker rank r also hosts the service endpoints K+s with s mod K == r, each on a thread
 * of its own with a connection of its own ({@link ClusterConnector#forEndpoint}), serving the same topology and
 * layout: no second model, no second data. A shard that fails fails its process, and its abort tells every other.
 * A service endpoint started as a process of its own while the shards run inside the workers is refused before the
 * rendezvous.
 *
 * <pre>{@code
 * TrainingRuntime.cluster(TcpConnector.builder()...colocateServices(true).build())
 * TrainingRuntime.fromEnvironment()    // launched: this, with the connector lgc-net makes from LGC_*
 * }</pre>
 */
public final class ClusterRuntime extends TrainingRuntime {

    /** Clock probes per endpoint of a traced run, before step 0 and after the last: the least RTT of them counts. */
    private static final int CLOCK_PROBE_ROUNDS = 8;

    /** How long a finished or failed rank waits for its colocated shards to end. */
    private static final long SHARD_JOIN_SECONDS = 60;

    private final ClusterConnector connector;
    /** K as the launcher said (LGC_WORLD_SIZE), or 0: whatever the trainer says. */
    private final int launchedWorkers;
    /** LGC_SERVERS as the launcher said, or -1: not said. */
    private final int launchedServices;

    ClusterRuntime(ClusterConnector connector) {
        this(connector, 0, -1);
    }

    ClusterRuntime(ClusterConnector connector, int launchedWorkers, int launchedServices) {
        this.connector = Objects.requireNonNull(connector, "connector");
        this.launchedWorkers = launchedWorkers;
        this.launchedServices = launchedServices;
    }

    /** How this process joins the others. */
    public ClusterConnector connector() {
        return connector;
    }

    @Override
    public String name() {
        return "cluster";
    }

    /** One replica, built before the process knows its endpoint (a service endpoint drops it). */
    @Override
    List<ReplicaModel> replicas(ReplicaModel origin, ComputeSettings compute, int workers) {
        return new ArrayList<>(List.of(origin.copy(compute)));
    }

    @Override
    TrainingResult fit(RankLoop.Run run, List<ReplicaModel> replicas) {
        Topology topology = run.spec().aggregation().topology();
        GradientLayout layout = run.plan().layout();
        TrainingPlan plan = run.plan();
        int workers = run.workers();
        int services = plan.serviceEndpoints();
        boolean colocated = connector.colocatesServices();
        checkPlacement(workers, services, colocated);
        IntFunction<String> names = placedNames(workers, services, colocated);
        int own = connector.endpoint();
        List<Thread> shards = new ArrayList<>();
        AtomicReference<RuntimeException> shardFailure = new AtomicReference<>();
        StepNotes notes = new StepNotes();
        topology.attachNotes(notes);
        TraceClock traceClock = TraceClock.start(); // shared by the colocated shards: one process, one clock
        if (colocated && own >= 0) {
            for (int s = own; s < services; s += workers) {
                int endpoint = workers + s;
                ClusterConnector links = connector.forEndpoint(endpoint);
                Thread thread = new Thread(() -> {
                    try {
                        runEndpoint(run, topology, layout, new ArrayList<>(), links, names, notes, traceClock);
                    } catch (RuntimeException e) {
                        shardFailure.compareAndSet(null, e);
                    }
                }, "lgc-shard-" + s);
                thread.setDaemon(true);
                shards.add(thread);
                thread.start();
            }
        }
        TrainingResult result;
        try {
            result = runEndpoint(run, topology, layout, replicas, connector, names, notes, traceClock);
        } catch (RuntimeException e) {
            join(shards);
            throw stopped(e, shardFailure.get(), own, workers, colocated, names);
        }
        join(shards);
        RuntimeException failed = shardFailure.get();
        if (failed != null) {
            throw stopped(failed, null, own, workers, colocated, names);
        }
        return result;
    }

    /**
     * This process's failure, told to the launcher ({@link StopReport}) and marked: whether the process failed
     * itself or lost a peer. A worker that lost a shard running in its own process lost what that shard lost.
     *
     * @param shard a colocated shard's failure, or null
     */
    private static RuntimeException stopped(RuntimeException failure, RuntimeException shard, int own, int workers,
                                            boolean colocated, IntFunction<String> names) {
        IntUnaryOperator process = e -> e < workers || !colocated ? e : (e - workers) % workers;
        Optional<PeerLostException> lost = StopReport.lostPeer(failure);
        if (lost.isPresent() && process.applyAsInt(lost.get().peer()) == process.applyAsInt(own) && shard != null) {
            lost = StopReport.lostPeer(shard); // the shard's own failure, or the peer it lost
        }
        boolean failedItself = lost.isEmpty() || process.applyAsInt(lost.get().peer()) == process.applyAsInt(own);
        int peer = failedItself ? -1 : lost.get().peer();
        new StopReport(process.applyAsInt(own), failedItself, failedItself ? -1 : process.applyAsInt(peer),
                failedItself ? "" : names.apply(peer), System.currentTimeMillis(), failure.getMessage())
                .leaveForLauncher();
        if (failure instanceof TrainingFailedException t && !failedItself) {
            return new TrainingFailedException(t.getMessage(), t.getCause(), true);
        }
        return failure;
    }

    /** K and S against what the launcher said, and a service endpoint refused when the shards run in the workers. */
    private void checkPlacement(int workers, int services, boolean colocated) {
        if (launchedWorkers > 0 && launchedWorkers != workers) {
            throw new IllegalArgumentException("the trainer has workers(" + workers + ") but the launcher started "
                    + launchedWorkers + " worker ranks (LGC_WORLD_SIZE=" + launchedWorkers + "): drop workers(...)"
                    + " or launch --nproc " + workers);
        }
        if (launchedServices >= 0 && launchedServices != services) {
            throw new IllegalArgumentException("the topology has " + services + " parameter-server endpoint"
                    + (services == 1 ? "" : "s") + " but the launcher started " + launchedServices
                    + " (LGC_SERVERS=" + launchedServices + "): launch --servers " + services
                    + (services == 0 ? " (or without --servers)" : ""));
        }
        int own = connector.endpoint();
        if (colocated && own >= workers) {
            throw new IllegalArgumentException("rank " + own + " is a parameter-server endpoint, but the shards run"
                    + " inside the workers (LGC_SERVERS unset): start " + workers + " processes (LGC_RANK 0.."
                    + (workers - 1) + "), or set LGC_SERVERS=" + services + " in every process to run the "
                    + services + " shard" + (services == 1 ? "" : "s") + " as processes of their own");
        }
    }

    /** Runs {@code connector}'s endpoint to its end on this thread. */
    private static TrainingResult runEndpoint(RankLoop.Run run, Topology topology, GradientLayout layout,
                                              List<ReplicaModel> replicas, ClusterConnector connector,
                                              IntFunction<String> names, StepNotes notes,
                                              TraceClock traceClock) {
        int workers = run.workers();
        int endpoints = run.endpoints();
        // before the topology builds the endpoint (an LGC worker warms up its encoder there): the run's threads
        Nd4jThreads.adopt();
        ClusterConnection connection = connector.connect(endpoints, names, topology.fingerprint(layout),
                topology.describeFingerprint(layout));
        int endpoint = connection.endpoint();
        TrafficMeter meter = new TrafficMeter(endpoints);
        TrafficMeter control = new TrafficMeter(endpoints);
        RankLoop loop = null;
        ServiceReporter reporter = null;
        Timeline timeline = Timeline.NOOP;
        TrainingResult result;
        try {
            if (run.trace() != null) { // the host's name may take a lookup: only for a trace
                timeline = EndpointTrace.open(run.trace(), endpoint, endpoint < workers, traceClock,
                        names.apply(endpoint) + " (" + hostName() + ", pid " + ProcessHandle.current().pid() + ")");
            }
            if (endpoint < workers) {
                ReplicaModel replica = replicas.get(0);
                ControlPlane plane = new ControlPlane(new MeteredTransport(connection.transport(), meter, control));
                loop = new RankLoop(run, endpoint, plane, replica, topology.worker(endpoint, workers,
                        EndpointTrace.wrap(plane, timeline), layout), notes, meter, RankLoop.OPEN, timeline);
                loop.clockProbes(traceClock, run.trace() == null ? 0 : CLOCK_PROBE_ROUNDS);
                result = loop.execute();
            } else {
                replicas.clear(); // a service endpoint trains no replica
                reporter = new ServiceReporter(connection.transport(), meter, notes, run.stages()::stageAt);
                reporter.clockProbes(traceClock, run.trace() == null ? 0 : CLOCK_PROBE_ROUNDS);
                ServiceLoop service = topology.service(endpoint - workers, workers,
                        EndpointTrace.wrap(new MeteredTransport(reporter, meter, control), timeline), layout);
                attachService(run, endpoint - workers, service, reporter, meter, timeline);
                result = TrainingResult.of(serve(service, reporter, timeline), endpoint, run.method());
            }
            connection.close();
        } catch (RuntimeException e) {
            EndpointTrace.closeAll(List.of(timeline), true);
            int lost = e instanceof PeerLostException p ? p.peer() : endpoint;
            int step = loop != null ? loop.step() : -1;
            String where = names.apply(endpoint) + " stopped" + (step >= 0 ? " at step " + step + " ("
                    + run.stages().stageAt(step) + ")" : "");
            String message = where + ": " + (e instanceof PeerLostException ? "" : "failed: ") + e.getMessage();
            connection.abort(lost, message);
            if (e instanceof NonFiniteGradientException n) {
                throw n;
            }
            throw new TrainingFailedException(message, e);
        }
        // after the links are closed: a trace that cannot be written fails this endpoint, never the others
        EndpointTrace.close(timeline);
        return result;
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "unknown host";
        }
    }

    /** Waits for the colocated shards; each ends when rank 0 ends the run, or when a peer's abort reaches it. */
    private static void join(List<Thread> shards) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SHARD_JOIN_SECONDS);
        for (Thread t : shards) {
            try {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    @Override
    public String toString() {
        return "ClusterRuntime[" + connector + "]";
    }
}

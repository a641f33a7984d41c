package io.lgc4j.core.train;

import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.comm.TrafficMeter;
import io.lgc4j.core.comm.TransportClosedException;
import io.lgc4j.core.compute.ComputeSettings;
import io.lgc4j.core.metrics.Timeline;
import io.lgc4j.core.runtime.ClusterConnector;
import io.lgc4j.core.runtime.LaunchEnvironment;
import io.lgc4j.core.runtime.LauncherWatch;

import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.function.IntFunction;

/**
 * Where the endpoints of a run execute: the K worker ranks and the topology's services. The trainer is the same
 * rank loop on every runtime, and a run computes the same bits on each.
 *
 * <pre>{@code
 * DistributedTrainer.builder()...runtime(TrainingRuntime.inProcess())            // the default: threads of this JVM
 * DistributedTrainer.builder()...runtime(TrainingRuntime.inProcess().computeConcurrency(2))
 * DistributedTrainer.builder()...runtime(TrainingRuntime.cluster(TcpConnector.builder()...build()))   // lgc-net
 * DistributedTrainer.builder()...runtime(TrainingRuntime.fromEnvironment())   // launched: cluster; else in-process
 * }</pre>
 *
 * <p>{@link #inProcess()}: every endpoint a thread of this JVM over an in-process cluster. {@link #cluster}: this
 * process is one endpoint of a job of processes joined by a {@link ClusterConnector} — lgc-net's TCP connector, or
 * lgc-spark's barrier-task connector, which is how a new way of joining processes plugs in.
 */
public abstract sealed class TrainingRuntime permits InProcessRuntime, ClusterRuntime {

    TrainingRuntime() {
    }

    /** Every endpoint a thread of this JVM (the default runtime). */
    public static InProcessRuntime inProcess() {
        return InProcessRuntime.DEFAULT;
    }

    /** This process as one endpoint of a cluster of processes joined by {@code connector}. */
    public static ClusterRuntime cluster(ClusterConnector connector) {
        return new ClusterRuntime(connector);
    }

    /** {@code in-process} or {@code cluster}, as messages and provenance name the runtime. */
    public abstract String name();

    /** The replicas this process trains, each a copy of {@code origin} built with {@code compute}. */
    abstract List<ReplicaModel> replicas(ReplicaModel origin, ComputeSettings compute, int workers);

    /**
     * Trains {@code run} on this runtime's endpoints.
     *
     * @param replicas the replicas {@link #replicas} made; a runtime may empty the list (a service endpoint)
     * @return the run's result (on a worker other than rank 0 of a cluster, its own end state)
     */
    abstract TrainingResult fit(RankLoop.Run run, List<ReplicaModel> replicas);

    /**
     * Service {@code index}'s checkpoints: saved between steps through its reporter (a {@code checkpoint} span on
     * {@code timeline}), and restored (state, counters, first step) when the run resumes.
     */
    static void attachService(RankLoop.Run run, int index, ServiceLoop service, ServiceReporter reporter,
                              TrafficMeter meter, Timeline timeline) {
        Checkpointing checkpoints = run.checkpoints();
        if (checkpoints == null) {
            return;
        }
        // the run's length is rank 0's (a service holds no data): it arrives before step 0, see serve
        reporter.checkpoints((step, row) -> {
            if (!checkpoints.dueAfter(step, reporter.totalSteps())) {
                return null;
            }
            long start = System.nanoTime();
            RunReport.Saved saved = checkpoints.writeService(step, index, service.state(), row);
            if (timeline.covers(step)) {
                timeline.span(Timeline.RANK_THREAD, "checkpoint", "io", start, System.nanoTime(),
                        Map.of("step", step, "bytes", saved.size()));
            }
            return saved;
        });
        int first = Checkpointing.firstStep(checkpoints);
        if (first == 0) {
            return;
        }
        try {
            CheckpointPart part = checkpoints.servicePart(index, service.state());
            service.state().restore(part, Checkpointing.SERVICE);
            long[] row = part.longs(Checkpointing.TRAFFIC, TrafficMeter.ROW_LENGTH);
            meter.add(run.workers() + index, row);
            reporter.resumeAt(first, row);
        } catch (CheckpointException e) {
            throw new UncheckedIOException("service " + index + " cannot resume from "
                    + checkpoints.resume().directory() + ": " + e.getMessage(), e);
        }
    }

    /**
     * Runs a service step by step until rank 0 stops it, ending each step as soon as the service has served it (so
     * rank 0 can complete a checkpoint after that step at once), then waits for rank 0's word that the run is over.
     * Each step is a {@code serve} span on {@code timeline}.
     *
     * @return rank 0's word, with the run's outcome
     */
    static RunReport.Done serve(ServiceLoop loop, ServiceReporter reporter, Timeline timeline) {
        if (loop.notesLag()) {
            reporter.lagNotes(loop::awaitNotes);
        }
        reporter.awaitAgreement();
        try {
            while (true) {
                long start = System.nanoTime();
                int step = loop.serveStep();
                if (timeline.covers(step)) {
                    // a service's step: from waiting for its first frame to its work after the last one
                    timeline.span(Timeline.RANK_THREAD, "serve", "step", start, System.nanoTime(),
                            Map.of("step", step));
                }
                reporter.endStep(step);
            }
        } catch (TransportClosedException closed) {
            if (!reporter.stopped()) {
                throw closed;
            }
        }
        return reporter.awaitDone();
    }

    /**
     * How messages name endpoints: "rank 2" for workers; "the parameter server (endpoint 4, …)" when there is one
     * service, else "parameter-server shard 1 (endpoint 5, …)", followed by where it runs: "in rank 1's process" when
     * the shards run inside the workers, else "its own process".
     */
    static IntFunction<String> placedNames(int workers, int services, boolean colocated) {
        return e -> e < workers ? "rank " + e : serviceName(workers, services, e) + (colocated
                ? ", in rank " + ((e - workers) % workers) + "'s process)" : ", its own process)");
    }

    private static String serviceName(int workers, int services, int endpoint) {
        return (services == 1 ? "the parameter server" : "parameter-server shard " + (endpoint - workers))
                + " (endpoint " + endpoint;
    }

    /**
     * Where a launched process runs its endpoints: not launched ({@code LGC_RANK} unset), every endpoint a thread of
     * this JVM ({@link #inProcess()}); launched, this process as its endpoint of the job ({@link #cluster}) with the
     * connector a {@link ClusterConnector.Provider} on the class path makes from the environment (lgc-net's TCP
     * connector), K checked against {@code LGC_WORLD_SIZE} and the services against {@code LGC_SERVERS} when
     * {@code fit} starts. The same program then runs in one JVM or on K processes.
     *
     * @throws IllegalStateException    when launched and no connector is on the class path
     * @throws IllegalArgumentException naming the variable that is missing or wrong
     */
    public static TrainingRuntime fromEnvironment() {
        return fromEnvironment(LaunchEnvironment.current());
    }

    /** As {@link #fromEnvironment()}, from {@code env}. */
    public static TrainingRuntime fromEnvironment(LaunchEnvironment env) {
        if (!env.launched()) {
            return inProcess();
        }
        int workers = env.requireWorldSize();
        LauncherWatch.start(env, "rank " + env.requireRank());
        return new ClusterRuntime(connector(env), workers, env.shards().servers() == null ? -1 : env.shards().servers());
    }

    /**
     * The connector of the launched process {@code env} describes, from the class path's providers ({@code tcp}
     * first).
     *
     * @throws IllegalStateException when no provider is on the class path
     */
    public static ClusterConnector connector(LaunchEnvironment env) {
        ClusterConnector.Provider provider = null;
        for (ClusterConnector.Provider p : ServiceLoader.load(ClusterConnector.Provider.class)) {
            if (provider == null || p.name().equals("tcp")) {
                provider = p;
            }
        }
        if (provider == null) {
            throw new IllegalStateException("LGC_RANK is set but no cluster connector is on the class path (add"
                    + " io.lgc4j:lgc-net)");
        }
        return provider.connector(env);
    }
}

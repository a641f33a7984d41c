package io.lgc4j.core.train;

import io.lgc4j.core.comm.MeteredTransport;
import io.lgc4j.core.comm.PeerLostException;
import io.lgc4j.core.comm.TrafficMeter;
import io.lgc4j.core.compute.ComputeSettings;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.metrics.StepNotes;
import io.lgc4j.core.runtime.ClusterConnection;
import io.lgc4j.core.runtime.ClusterConnector;
import io.lgc4j.core.runtime.ControlPlane;
import io.lgc4j.core.runtime.ServiceReporter;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.IntFunction;

/**
 * This process as one endpoint of a cluster of processes joined by a {@link ClusterConnector}: a worker rank's loop
 * or a service. Every process builds the same trainer; rank 0 evaluates, calls the listeners and returns the run's
 * result. A failure is told to every other process ({@link ClusterConnection#abort}) naming the endpoint lost first,
 * the step and the stage.
 */
public final class ClusterRuntime extends TrainingRuntime {

    private final ClusterConnector connector;

    ClusterRuntime(ClusterConnector connector) {
        this.connector = Objects.requireNonNull(connector, "connector");
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
    TrainingResult fit(RankLoop.Run run, Topology topology, GradientLayout layout, List<ReplicaModel> replicas) {
        TrainingPlan plan = run.plan();
        int workers = run.workers();
        int endpoints = run.endpoints();
        IntFunction<String> names = endpointNames(workers, plan.serviceEndpoints());
        ClusterConnection connection = connector.connect(endpoints, names, topology.fingerprint(layout),
                topology.describeFingerprint(layout));
        int endpoint = connection.endpoint();
        TrafficMeter meter = new TrafficMeter(endpoints);
        TrafficMeter control = new TrafficMeter(endpoints);
        StepNotes notes = new StepNotes();
        topology.attachNotes(notes);
        RankLoop loop = null;
        ServiceReporter reporter = null;
        try {
            TrainingResult result;
            if (endpoint < workers) {
                ReplicaModel replica = replicas.get(0);
                ControlPlane plane = new ControlPlane(new MeteredTransport(connection.transport(), meter, control));
                loop = new RankLoop(run, endpoint, plane, replica, topology.worker(endpoint, workers, plane, layout),
                        notes, meter, RankLoop.OPEN);
                result = loop.execute();
            } else {
                replicas.clear(); // a service endpoint trains no replica
                reporter = new ServiceReporter(connection.transport(), meter, notes, run.stages()::stageAt);
                ServiceLoop service = topology.service(endpoint - workers, workers,
                        new MeteredTransport(reporter, meter, control), layout);
                attachService(run, endpoint - workers, service, reporter, meter);
                result = TrainingResult.of(serve(service, reporter), endpoint, run.method());
            }
            connection.close();
            return result;
        } catch (RuntimeException e) {
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
    }

    @Override
    public String toString() {
        return "ClusterRuntime[" + connector + "]";
    }
}

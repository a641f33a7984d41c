package io.lgc4j.core.train;

import io.lgc4j.core.comm.TrafficMeter;
import io.lgc4j.core.metrics.StepMetrics;

import java.util.List;
import java.util.Objects;

/**
 * The outcome of {@link DistributedTrainer#fit}.
 *
 * @param steps         metrics of every step, in order
 * @param finalAccuracy accuracy of the trained model on the evaluation data (NaN when none was given)
 * @param traffic       every byte counted over the whole run, setup included
 * @param wallNanos     wall time of the run
 * @param method        the topology's description of itself: type, compressor and its settings, codec, topology
 *                      settings (provenance that does not depend on who built the topology)
 * @param replicaChecksums CRC32C of every worker's final parameters, in rank order (8 hex digits each): all equal
 *                      when the replicas stayed bit-identical
 * @param endpoint      the endpoint this process hosted (0 in one JVM): on a cluster every endpoint's {@code fit}
 *                      returns the run's accuracy, step count, wall time (rank 0's), traffic and checksums, which
 *                      rank 0 sends everyone at the end; only rank 0's result has the per-step {@code steps}
 * @param stepCount     steps the run trained, a resumed run's earlier steps included
 */
public record TrainingResult(List<StepMetrics> steps, double finalAccuracy, TrafficMeter.Snapshot traffic,
                             long wallNanos, TopologyDescription method, List<String> replicaChecksums, int endpoint,
                             int stepCount) {

    /** Creates the result; the lists are copied. */
    public TrainingResult {
        steps = List.copyOf(steps);
        Objects.requireNonNull(method, "method");
        replicaChecksums = List.copyOf(replicaChecksums);
    }

    /** Rank 0's result, whose {@code steps} are every step. */
    public TrainingResult(List<StepMetrics> steps, double finalAccuracy, TrafficMeter.Snapshot traffic,
                          long wallNanos, TopologyDescription method, List<String> replicaChecksums) {
        this(steps, finalAccuracy, traffic, wallNanos, method, replicaChecksums, 0, steps.size());
    }

    /** What endpoint {@code endpoint} learns from rank 0's last word: the run's outcome, without the steps. */
    static TrainingResult of(RunReport.Done done, int endpoint, TopologyDescription method) {
        return new TrainingResult(List.of(), done.finalAccuracy(), TrafficMeter.Snapshot.ofRows(done.traffic()),
                done.wallNanos(), method, done.replicaChecksums(), endpoint, done.stepCount());
    }
}

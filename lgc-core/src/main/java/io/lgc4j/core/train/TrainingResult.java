package io.lgc4j.core.train;

import io.lgc4j.core.comm.TrafficMeter;
import io.lgc4j.core.metrics.StepMetrics;

import java.util.List;

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
 */
public record TrainingResult(List<StepMetrics> steps, double finalAccuracy, TrafficMeter.Snapshot traffic,
                             long wallNanos, TopologyDescription method, List<String> replicaChecksums) {

    /** Creates the result; the lists are copied. */
    public TrainingResult {
        steps = List.copyOf(steps);
        java.util.Objects.requireNonNull(method, "method");
        replicaChecksums = List.copyOf(replicaChecksums);
    }
}

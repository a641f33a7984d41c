package io.lgc4j.spark;

import java.io.Serializable;
import java.util.List;

/**
 * What one task of an estimator's barrier stage sends back: rank 0's carries the trained model.
 *
 * @param partition    the task's partition (its rank)
 * @param rows         the rows it read
 * @param trained      what the run trained, as this task saw it
 * @param tls          whether every link of its endpoints ran mutual TLS, as lgc-net reported it
 * @param stageAttempt the stage attempt that ran the task (0 first)
 * @param resumedFrom  the step of the checkpoint it resumed from, or -1
 * @param chosen       {@code compressor: auto}'s chosen candidate, or null for a named method
 * @param advice       rank 0's advice table that chose it, or null
 */
record TaskOutcome(int partition, int rows, Trained trained, boolean tls, int stageAttempt, long resumedFrom,
                   String chosen, String advice)
        implements Serializable {
    private static final long serialVersionUID = 1L;

    /**
     * The run's result on one task.
     *
     * @param model            rank 0's trained model in DL4J's format with its updater state; empty from other tasks
     * @param steps            the steps the run trained
     * @param replicaChecksums CRC32C of every rank's final parameters, in rank order
     * @param trainingMs       the task's training time (links up to the end)
     */
    record Trained(byte[] model, int steps, List<String> replicaChecksums, long trainingMs) implements Serializable {
        private static final long serialVersionUID = 1L;
    }
}

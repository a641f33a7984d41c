package io.lgc4j.spark;

import java.io.Serializable;
import java.util.List;

/**
 * What an {@link LgcEstimator}'s fit reports beside the trained model, as its {@link LgcModel} carries it.
 *
 * @param steps            the steps the run trained (a resumed run's include those before its checkpoint)
 * @param replicaChecksums CRC32C of every rank's final parameters, in rank order
 * @param stageAttempts    the barrier stage's attempts, 1 when the first one trained the model
 * @param resumedFromStep  the step of the checkpoint the last attempt resumed from, or -1 (it started at step 0)
 * @param checkpointRunDir the run's checkpoint directory ({@code checkpointDir/<run id>}), or null (no checkpoints)
 * @param chosenMethod     the candidate {@code compressor: auto} chose, or null (the method was named)
 * @param advice           rank 0's advice table that chose it, or null
 */
record FitReport(int steps, List<String> replicaChecksums, int stageAttempts, long resumedFromStep,
                 String checkpointRunDir, String chosenMethod, String advice) implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Copies the checksums. */
    FitReport {
        replicaChecksums = List.copyOf(replicaChecksums);
    }
}

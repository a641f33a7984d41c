package io.lgc4j.core.train;

import io.lgc4j.core.metrics.StepMetrics;

/**
 * Observes a {@link DistributedTrainer} run. Called on one thread at a time, after all ranks finished the step,
 * so an implementation may write files or draw progress without locking.
 */
public interface TrainingListener {

    /** Before the first step. */
    default void onStart(TrainingPlan plan) {
    }

    /** After every step. */
    void onStep(StepMetrics metrics);

    /** After the last step (also after a failure, with {@code result == null}). */
    default void onEnd(TrainingResult result) {
    }
}

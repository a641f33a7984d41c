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

    /**
     * A checkpoint after step {@code step} is about to become complete: what the listener wrote so far should be
     * made durable (flushed and synced) now, so that a checkpoint on disk never has fewer durable steps than it
     * resumes from. Called after {@link #onStep} of that step and before the checkpoint's manifest is written; a
     * failure here leaves the checkpoint without its manifest.
     */
    default void onCheckpoint(int step) {
    }

    /** After the last step (also after a failure, with {@code result == null}). */
    default void onEnd(TrainingResult result) {
    }
}

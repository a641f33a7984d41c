package io.lgc4j.core.metrics;

/** What a rank spends a step's time on (Table V of seeds/003 split further). */
public enum Phase {
    /**
     * Waiting for a turn on the shared CPU: in the in-process cluster all ranks share one machine's cores, so
     * they take turns computing (see {@code InProcessRuntime#computeConcurrency}). A real cluster has
     * none of this time.
     */
    CPU_WAIT,
    /** Forward and backward pass of the local model. */
    COMPUTE,
    /** Choosing what to send (top-k selection, supports); zero for dense exchange. */
    SELECT,
    /** Turning tensors into frame bytes (values, coded indices, latents). */
    ENCODE,
    /** Sending and waiting to receive frames, including waiting for slower peers. */
    COMMUNICATE,
    /** Turning received frames back into tensors (and summing them). */
    DECODE,
    /** The model's updater and the parameter step. */
    APPLY,
    /**
     * Evaluation on held-out data (rank 0, at evaluation steps) and the diagnostic mode's measurement of the applied
     * update (every rank, every step, only when it is on).
     */
    EVALUATE
}

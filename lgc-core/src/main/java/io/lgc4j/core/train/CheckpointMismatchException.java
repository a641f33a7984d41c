package io.lgc4j.core.train;

/**
 * The checkpoint a trainer was asked to resume from does not fit it: another K, another model, another configuration
 * or a step beyond the run. The message lists every difference (see
 * {@link io.lgc4j.core.checkpoint.CheckpointManifest#checkCompatible}); nothing was trained or written.
 */
public final class CheckpointMismatchException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** @param message what differs; @param cause the check's exception, or null */
    public CheckpointMismatchException(String message, Throwable cause) {
        super(message, cause);
    }
}

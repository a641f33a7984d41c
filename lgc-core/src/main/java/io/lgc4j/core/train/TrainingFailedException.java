package io.lgc4j.core.train;

/** A rank or service of a {@link DistributedTrainer} failed; the cause is the first failure seen. */
public final class TrainingFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Creates the exception around the first failure. */
    public TrainingFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}

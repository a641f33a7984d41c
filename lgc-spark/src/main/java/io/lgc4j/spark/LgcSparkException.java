package io.lgc4j.spark;

/** A Spark job that cannot run (too few slots, dynamic allocation) or failed; the message says which and why. */
public final class LgcSparkException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** A job refused before it started. */
    public LgcSparkException(String message) {
        super(message);
    }

    /** A job that failed, with Spark's own failure as the cause. */
    public LgcSparkException(String message, Throwable cause) {
        super(message, cause);
    }
}

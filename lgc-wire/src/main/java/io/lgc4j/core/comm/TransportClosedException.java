package io.lgc4j.core.comm;

/** Thrown by a {@link Transport} operation when the cluster has been shut down (normally or after a failure). */
public final class TransportClosedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Creates the exception naming the endpoint and the operation that found the cluster closed. */
    public TransportClosedException(String message) {
        super(message);
    }
}

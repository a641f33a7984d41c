package io.lgc4j.net;

/**
 * {@link TcpCluster#join} could not complete: the rendezvous deadline passed (the message names the endpoints still
 * missing and the last failure seen for each), a peer refused this endpoint (the message gives its reason: wrong
 * token, job id, attempt, a duplicate endpoint), or this endpoint could not listen.
 */
public final class RendezvousException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** A failure described by {@code message}. */
    public RendezvousException(String message) {
        super(message);
    }

    /** A failure described by {@code message}, caused by {@code cause}. */
    public RendezvousException(String message, Throwable cause) {
        super(message, cause);
    }
}

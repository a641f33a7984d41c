package io.lgc4j.net;

/**
 * {@link TcpCluster#join} could not complete: the rendezvous deadline passed (the message names the endpoints still
 * missing and the last failure seen for each), a peer refused this endpoint (the message gives its reason: wrong
 * token, job id, attempt, a duplicate endpoint), or this endpoint could not listen.
 *
 * <pre>{@code
 * try {
 *     cluster = TcpCluster.join(settings);
 * } catch (RendezvousException e) {
 *     // e.g. "rank 2 could not join job 9: the server (10.0.0.1:7070) refused rank 2: wrong attempt 0 (this is
 *     // attempt 1)", or "... within 120000 ms: still missing links to rank 1 (10.0.0.2:41000) (...)"
 *     System.err.println(e.getMessage());
 *     System.exit(2);
 * }
 * }</pre>
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

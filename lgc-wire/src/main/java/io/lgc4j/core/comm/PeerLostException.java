package io.lgc4j.core.comm;

/**
 * Thrown by a {@link Transport} operation when a peer is gone: its link broke, it sent nothing (not even a
 * heartbeat) for longer than allowed, a receive from it passed its deadline, or another endpoint reported it lost.
 * The message names the lost endpoint and what was seen; {@link #peer()} is that endpoint.
 */
public final class PeerLostException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int peer;

    /**
     * @param peer    the endpoint that was lost (not necessarily the one this endpoint was talking to: an abort
     *                relayed by another endpoint names the endpoint it lost)
     * @param message what was seen, naming the lost endpoint
     */
    public PeerLostException(int peer, String message) {
        super(message);
        this.peer = peer;
    }

    /** As {@link #PeerLostException(int, String)}, with the failure underneath. */
    public PeerLostException(int peer, String message, Throwable cause) {
        super(message, cause);
        this.peer = peer;
    }

    /** The endpoint that was lost. */
    public int peer() {
        return peer;
    }
}

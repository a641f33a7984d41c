package io.lgc4j.core.train;

/**
 * A rank or service of a {@link DistributedTrainer} failed; the cause is the first failure seen. On a cluster of
 * processes, {@link #lostPeer()} tells a process that stopped because another failed (it lost that peer, or was
 * told to stop) from one that failed itself.
 */
public final class TrainingFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final boolean lostPeer;

    /** Creates the exception around the first failure, of this process itself. */
    public TrainingFailedException(String message, Throwable cause) {
        this(message, cause, false);
    }

    /**
     * @param lostPeer whether this process stopped because it lost a peer (another process failed first)
     */
    public TrainingFailedException(String message, Throwable cause, boolean lostPeer) {
        super(message, cause);
        this.lostPeer = lostPeer;
    }

    /** @return whether this process stopped because it lost a peer, not because it failed itself */
    public boolean lostPeer() {
        return lostPeer;
    }
}

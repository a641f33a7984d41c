package io.lgc4j.core.train;

/**
 * The work of a non-worker endpoint (a parameter server shard): runs on its own thread until the cluster closes,
 * at which point its transport throws {@link io.lgc4j.core.comm.TransportClosedException} and the loop ends.
 */
@FunctionalInterface
public interface ServiceLoop {

    /** Serves until the cluster closes. */
    void run();

    /**
     * What the service carries from one step to the next (an autoencoder, a drift guard), saved and restored between
     * steps; by default nothing (a server that only averages).
     */
    default io.lgc4j.core.checkpoint.Persistent state() {
        return io.lgc4j.core.checkpoint.Persistent.NONE;
    }
}

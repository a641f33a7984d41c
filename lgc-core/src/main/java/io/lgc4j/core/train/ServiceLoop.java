package io.lgc4j.core.train;

/**
 * The work of a non-worker endpoint (a parameter server shard): runs on its own thread until the cluster closes,
 * at which point its transport throws {@link io.lgc4j.core.comm.TransportClosedException} and the loop ends.
 */
@FunctionalInterface
public interface ServiceLoop {

    /** Serves until the cluster closes. */
    void run();
}

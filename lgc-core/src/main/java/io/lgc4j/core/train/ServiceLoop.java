package io.lgc4j.core.train;

import io.lgc4j.core.checkpoint.Persistent;

/**
 * The work of a non-worker endpoint (a parameter server shard), one step at a time: the runtime calls
 * {@link #serveStep} on the endpoint's own thread, and after each call reports the step to rank 0 and saves the
 * service's checkpoint part when one is due ({@link ServiceReporter#endStep}). It goes on until
 * rank 0 stops the service or the cluster closes, at which point the endpoint's transport throws
 * {@link io.lgc4j.core.comm.TransportClosedException} out of {@link #serveStep}.
 *
 * <pre>{@code
 * while (true) {
 *     reporter.endStep(loop.serveStep()); // the step is over: save it when a checkpoint is due, report it
 * }
 * }</pre>
 */
@FunctionalInterface
public interface ServiceLoop {

    /**
     * Serves the next step whole: receives its frames and sends its last one. Nothing of the next step may be read or
     * sent: when this returns, the service is between steps, where its state is saved. Work the step leaves may go on
     * on a thread of the service's own (the LGC-PS server's autoencoder training, see {@link #notesLag}), provided
     * that {@link #state()}'s save waits for it.
     *
     * @return the step served
     */
    int serveStep();

    /**
     * Whether a step's notes may still be in the making when {@link #serveStep} returns (written by work the step
     * left on a thread of the service's own). The runtime then reports each step once the next one is served and
     * {@link #awaitNotes} has returned, except a step after which a checkpoint is due, which it reports at once (rank
     * 0 waits for that report before it goes on); by default false: a step is reported as soon as it is served.
     */
    default boolean notesLag() {
        return false;
    }

    /** Waits until every note of step {@code step} is written; by default there is nothing to wait for. */
    default void awaitNotes(int step) {
    }

    /** Serves steps until the cluster closes; for tests and benchmarks that drive a service without a runtime. */
    default void run() {
        while (true) {
            serveStep();
        }
    }

    /**
     * What the service carries from one step to the next (an autoencoder, a drift guard), saved and restored between
     * steps; by default nothing (a server that only averages).
     */
    default Persistent state() {
        return Persistent.NONE;
    }
}

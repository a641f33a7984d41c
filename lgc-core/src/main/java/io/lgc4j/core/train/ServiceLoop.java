package io.lgc4j.core.train;

/**
 * The work of a non-worker endpoint (a parameter server shard), one step at a time: the runtime calls
 * {@link #serveStep} on the endpoint's own thread, and after each call reports the step to rank 0 and saves the
 * service's checkpoint part when one is due ({@link io.lgc4j.core.runtime.ServiceReporter#endStep}). It goes on until
 * rank 0 stops the service or the cluster closes, at which point the endpoint's transport throws
 * {@link io.lgc4j.core.comm.TransportClosedException} out of {@link #serveStep}.
 *
 * <pre>{@code
 * while (true) {
 *     reporter.endStep(loop.serveStep()); // the step is over: report it, save it when a checkpoint is due
 * }
 * }</pre>
 */
@FunctionalInterface
public interface ServiceLoop {

    /**
     * Serves the next step whole: receives its frames, sends its last one, and finishes whatever work the step
     * leaves (the LGC-PS server trains its autoencoder after its broadcast). Nothing of the next step may be read or
     * sent: when this returns, the service is between steps, where its state is saved.
     *
     * @return the step served
     */
    int serveStep();

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
    default io.lgc4j.core.checkpoint.Persistent state() {
        return io.lgc4j.core.checkpoint.Persistent.NONE;
    }
}

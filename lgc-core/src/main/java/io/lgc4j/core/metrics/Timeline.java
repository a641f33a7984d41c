package io.lgc4j.core.metrics;

import java.util.Map;

/**
 * One endpoint's trace sink: the intervals, instants, counters and flow arrows a person reads in Perfetto or
 * {@code chrome://tracing}. Times are {@link System#nanoTime()} readings of this process; the sink turns them into
 * microseconds from its process's {@link TraceClock}. {@link #NOOP} when tracing is off, so an emitter pays one
 * branch ({@link #on()}) per event and builds no arguments.
 *
 * <pre>{@code
 * if (timeline.on() && timeline.covers(step)) {
 *     timeline.span(Timeline.RANK_THREAD, "checkpoint", "io", start, System.nanoTime(), Map.of("step", step));
 * }
 * }</pre>
 *
 * <p>Thread ids ({@code tid}) are fixed per role, not per Java thread, so traces of two runs line up:
 * {@link #RANK_THREAD} (the rank's or the service's loop), {@link #DATA_THREAD} (the batch reader),
 * {@link #AE_THREAD} (the autoencoder's lane), {@link #COMPUTE_THREAD} (the gradient computed ahead),
 * {@link #EXCHANGE_THREAD} (an exchange running beside the backward pass).
 */
public interface Timeline {
    /** The rank's training loop, or a service's loop. */
    int RANK_THREAD = 1;
    /** A worker's batch reader. */
    int DATA_THREAD = 2;
    /** The thread an endpoint trains its autoencoder on (LGC-PS's server, LGC-RAR's rank 0). */
    int AE_THREAD = 3;
    /** A worker's thread computing the next step's gradient while the rank exchanges (delayed application). */
    int COMPUTE_THREAD = 4;
    /** A worker's thread exchanging the gradient's last layers while the backward pass computes the first. */
    int EXCHANGE_THREAD = 5;

    /** Records nothing. */
    Timeline NOOP = new Timeline() {
        @Override
        public boolean on() {
            return false;
        }

        @Override
        public boolean covers(int step) {
            return false;
        }

        @Override
        public void span(int tid, String name, String cat, long startNanos, long endNanos, Map<String, ?> args) {
        }

        @Override
        public void instant(int tid, String name, long atNanos, Map<String, ?> args) {
        }

        @Override
        public void counter(String name, long atNanos, Map<String, ? extends Number> values) {
        }

        @Override
        public void flow(int tid, long id, boolean out, long atNanos) {
        }

        @Override
        public String toString() {
            return "Timeline.NOOP";
        }
    };

    /** Whether this timeline records anything at all. */
    boolean on();

    /** Whether events of {@code step} are recorded (tracing on and the step inside {@code --trace-steps}). */
    boolean covers(int step);

    /** A complete interval (Chrome's {@code X} event) on thread {@code tid}. */
    void span(int tid, String name, String cat, long startNanos, long endNanos, Map<String, ?> args);

    /** A point in time ({@code i}, thread scope). */
    void instant(int tid, String name, long atNanos, Map<String, ?> args);

    /** Values of a counter track ({@code C}) at one time; cumulative counters are drawn as they are. */
    void counter(String name, long atNanos, Map<String, ? extends Number> values);

    /**
     * One end of a flow arrow: {@code out} at a send ({@code s}), else at the receive it links to ({@code f},
     * bound to the enclosing slice). Both ends carry the same {@code id}.
     */
    void flow(int tid, long id, boolean out, long atNanos);

    /** Names thread track {@code tid} of this endpoint (one only some endpoints have: {@link #AE_THREAD}, {@link #COMPUTE_THREAD}). */
    default void threadName(int tid, String name) {
    }
}

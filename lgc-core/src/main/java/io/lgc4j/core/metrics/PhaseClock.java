package io.lgc4j.core.metrics;

/**
 * Splits one thread's time into {@link Phase}s: time runs into the current phase until the next
 * {@link #enter(Phase)}. One clock per rank thread; not thread-safe.
 *
 * <pre>{@code
 * clock.enter(Phase.ENCODE);  byte[] frame = FloatFrames.encode(...);
 * clock.enter(Phase.COMMUNICATE);  transport.send(peer, frame);
 * clock.stop();
 * long encodeNanos = clock.nanos(Phase.ENCODE);
 * }</pre>
 */
public final class PhaseClock {
    private final long[] nanos = new long[Phase.values().length];
    private Phase current;
    private long since;

    /** Starts timing {@code phase}, closing the phase that was running. */
    public void enter(Phase phase) {
        long now = System.nanoTime();
        if (current != null) {
            nanos[current.ordinal()] += now - since;
        }
        current = phase;
        since = now;
    }

    /** Closes the running phase, if any. */
    public void stop() {
        if (current != null) {
            nanos[current.ordinal()] += System.nanoTime() - since;
            current = null;
        }
    }

    /** The phase now running, or {@code null}. */
    public Phase current() {
        return current;
    }

    /** Nanoseconds accumulated in {@code phase} since the last {@link #reset()}. */
    public long nanos(Phase phase) {
        return nanos[phase.ordinal()];
    }

    /** A copy of all phases' nanoseconds, indexed by {@link Phase#ordinal()}. */
    public long[] snapshot() {
        return nanos.clone();
    }

    /** Zeroes every phase and stops the clock. */
    public void reset() {
        java.util.Arrays.fill(nanos, 0);
        current = null;
    }
}

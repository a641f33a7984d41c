package io.lgc4j.core.metrics;

import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;

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
 *
 * <p>Given a {@link Timeline}, the clock also records each closed interval as a span named after its phase
 * ({@code compute}, {@code communicate}, …) on thread {@code tid}: the sequence a trace needs, which the sums alone
 * throw away. Off ({@link Timeline#NOOP}, the default) it costs one branch per interval.
 */
public final class PhaseClock {
    private static final String[] NAMES = new String[Phase.values().length];

    static {
        for (Phase p : Phase.values()) {
            NAMES[p.ordinal()] = p.name().toLowerCase(Locale.ROOT);
        }
    }

    private final long[] nanos = new long[Phase.values().length];
    private final int tid;
    private Timeline timeline;
    private boolean tracing;
    private Phase current;
    private long since;

    /** A clock that records no spans. */
    public PhaseClock() {
        this(Timeline.NOOP, Timeline.RANK_THREAD);
    }

    /** A clock that also records each closed interval on {@code timeline}'s thread {@code tid}. */
    public PhaseClock(Timeline timeline, int tid) {
        this.tid = tid;
        timeline(timeline);
    }

    /**
     * Records the following intervals on {@code timeline} (e.g. {@link Timeline#NOOP} for steps outside
     * {@code --trace-steps}).
     */
    public void timeline(Timeline timeline) {
        this.timeline = Objects.requireNonNull(timeline, "timeline");
        this.tracing = timeline.on();
    }

    /** Starts timing {@code phase}, closing the phase that was running. */
    public void enter(Phase phase) {
        long now = System.nanoTime();
        if (current != null) {
            nanos[current.ordinal()] += now - since;
            if (tracing) {
                timeline.span(tid, NAMES[current.ordinal()], "phase", since, now, null);
            }
        }
        current = phase;
        since = now;
    }

    /** Closes the running phase, if any. */
    public void stop() {
        if (current != null) {
            long now = System.nanoTime();
            nanos[current.ordinal()] += now - since;
            if (tracing) {
                timeline.span(tid, NAMES[current.ordinal()], "phase", since, now, null);
            }
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
        Arrays.fill(nanos, 0);
        current = null;
    }
}

package io.lgc4j.core.metrics;

import java.time.Instant;

/**
 * A process's origin for trace times, taken once: the {@link System#nanoTime()} reading every trace time is measured
 * from, and the wall clock at that moment (for a person reading the trace; alignment between processes uses the
 * probed offsets, not the wall clock). Every endpoint of one process shares it, so in-process traces need no
 * alignment.
 *
 * <pre>{@code
 * TraceClock clock = TraceClock.start();
 * double ts = clock.micros(System.nanoTime());
 * }</pre>
 *
 * @param anchorNanos       the {@code nanoTime} reading at time 0
 * @param anchorEpochMicros microseconds since the epoch at time 0
 */
public record TraceClock(long anchorNanos, long anchorEpochMicros) {

    /** A clock whose time 0 is now. */
    public static TraceClock start() {
        long nanos = System.nanoTime();
        Instant now = Instant.now();
        return new TraceClock(nanos, now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000);
    }

    /** Microseconds from time 0 to the {@code nanoTime} reading {@code nanos}. */
    public double micros(long nanos) {
        return (nanos - anchorNanos) / 1_000.0;
    }
}

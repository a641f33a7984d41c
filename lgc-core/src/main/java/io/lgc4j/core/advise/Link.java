package io.lgc4j.core.advise;

import java.util.Locale;
import java.util.Objects;

/**
 * The link an advice is for: what the predictions take as given about the network between the processes.
 *
 * <pre>{@code
 * Link link = new Link(95.6, 3.5, 31, 0, "traced");   // 95.6 Mbit/s, 3.5 ms a leg under load, 31 ms straggler
 * }</pre>
 *
 * @param rateMbit    every process's link rate, Mbit/s (the slowest link, for a ring)
 * @param hopMs       the loaded cost of one leg of a step's critical chain, ms
 * @param stragglerMs the slowest rank's pass minus the mean, ms a step
 * @param psOverlap   the fraction of a parameter server's shorter direction that overlaps the longer, [0, 1]
 * @param source      where the figures come from ({@code given}, or what measured them)
 */
public record Link(double rateMbit, double hopMs, double stragglerMs, double psOverlap, String source) {
    /** Checks the figures. */
    public Link {
        if (!(rateMbit > 0) || Double.isInfinite(rateMbit)) {
            throw new IllegalArgumentException("the link rate must be > 0 Mbit/s, found " + rateMbit);
        }
        if (!(hopMs >= 0) || !(stragglerMs >= 0) || Double.isInfinite(hopMs + stragglerMs)) {
            throw new IllegalArgumentException("a leg's and the straggler's times are >= 0 ms, found " + hopMs
                    + " and " + stragglerMs);
        }
        if (!(psOverlap >= 0 && psOverlap <= 1)) {
            throw new IllegalArgumentException("psOverlap must be in [0, 1], found " + psOverlap);
        }
        Objects.requireNonNull(source, "source");
    }

    /** "9.6 Mbit/s, 5.0 ms a leg, straggler 18.0 ms (given)". */
    public String describe() {
        return String.format(Locale.ROOT, "%.1f Mbit/s, %.1f ms a leg, straggler %.1f ms (%s)", rateMbit, hopMs,
                stragglerMs, source);
    }
}

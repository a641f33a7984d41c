package io.lgc4j.advise;

import java.util.Locale;
import java.util.Objects;

/**
 * The link an advice is for: what the predictions take as given about the network between the processes.
 *
 * <pre>{@code
 * Link link = new Link(95.6, 3.5, 31, 0, "traced");   // 95.6 Mbit/s, 3.5 ms a leg under load, 31 ms straggler
 * }</pre>
 *
 * @param rateMbit    every process's link rate, Mbit/s (the slowest link, for a ring; a probe measures it on the
 *                    ring's own pattern)
 * @param serviceRateMbit a parameter-server endpoint's rate, Mbit/s: every worker sending to it at once, then it to
 *                    every worker (a probe's fan-in and fan-out)
 * @param hopMs       the loaded cost of one leg of a step's critical chain, ms
 * @param stragglerMs the slowest rank's pass minus the mean, ms a step
 * @param psOverlap   the fraction of a parameter server's shorter direction that overlaps the longer, [0, 1]
 * @param source      where the figures come from ({@code given}, or what measured them)
 */
public record Link(double rateMbit, double serviceRateMbit, double hopMs, double stragglerMs, double psOverlap,
                   String source) {

    /**
     * The link of one JVM's ranks ({@code runtime.type: in-process}): memory, so a step's exchange costs its CPU only.
     */
    public static final Link IN_PROCESS = new Link(1e6, 0, 0, 0, "in process: the ranks share memory");

    /** Checks the figures. */
    public Link {
        if (!(rateMbit > 0) || Double.isInfinite(rateMbit) || !(serviceRateMbit > 0)
                || Double.isInfinite(serviceRateMbit)) {
            throw new IllegalArgumentException("the link rate must be > 0 Mbit/s, found " + rateMbit
                    + (serviceRateMbit != rateMbit ? " (a server's " + serviceRateMbit + ")" : ""));
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

    /** One rate for every endpoint, a server's included. */
    public Link(double rateMbit, double hopMs, double stragglerMs, double psOverlap, String source) {
        this(rateMbit, rateMbit, hopMs, stragglerMs, psOverlap, source);
    }

    /** "9.6 Mbit/s, 5.0 ms a leg, straggler 18.0 ms (given)"; a server's rate when it differs. */
    public String describe() {
        return String.format(Locale.ROOT, "%s%s, %.1f ms a leg, straggler %.1f ms (%s)", rate(rateMbit),
                serviceRateMbit != rateMbit ? " (a server's " + rate(serviceRateMbit) + ")" : "", hopMs,
                stragglerMs, source);
    }

    private static String rate(double mbit) {
        return mbit >= 1e5 ? "unbounded" : String.format(Locale.ROOT, "%.1f Mbit/s", mbit);
    }
}

package io.lgc4j.cli.netem;

import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How every link of a {@link NetnsFabric} is capped, in each direction: a token bucket ({@code tc qdisc ... tbf})
 * of {@code bitsPerSecond}, with a bucket of {@code burstBytes} and a queue of at most {@code latencyMs} of traffic,
 * or {@link #UNSHAPED} (no qdisc: the veth's own speed, memory copies on this host).
 *
 * <p>The bucket holds max(32 kbit, rate / 250) bytes: at least a few full-size packets, and at least what one kernel
 * tick at 250 Hz releases, so a coarse timer does not cap the rate below the setting (measured:
 * {@code docs/architecture.md}, "Slow links").
 *
 * <pre>{@code
 * LinkShape shape = LinkShape.parse("100mbit", 400);   // tbf rate 100mbit burst 50000b latency 400ms
 * }</pre>
 *
 * @param label         as written in a suite or on the command line: {@code unshaped}, {@code 100mbit}, ...
 * @param bitsPerSecond the cap, 0 when unshaped
 * @param burstBytes    the token bucket's size (0 when unshaped)
 * @param latencyMs     the longest a packet may wait in the queue (0 when unshaped)
 */
public record LinkShape(String label, long bitsPerSecond, int burstBytes, int latencyMs) {

    /** No cap. */
    public static final LinkShape UNSHAPED = new LinkShape("unshaped", 0, 0, 0);

    /** The queue bound when none is given: the setting measured in the issue (~95 Mbit/s of payload at 100mbit). */
    public static final int DEFAULT_LATENCY_MS = 400;

    private static final Pattern RATE = Pattern.compile("([0-9]+)(kbit|mbit|gbit)");
    private static final int MIN_BURST_BYTES = 32_000 / 8;

    /** Checks the components. */
    public LinkShape {
        if (bitsPerSecond < 0 || bitsPerSecond > 0 && (burstBytes < 1500 || latencyMs < 1)) {
            throw new IllegalArgumentException("a link shape needs rate >= 0 and, when capped, burst >= 1500 B and"
                    + " latency >= 1 ms; found rate " + bitsPerSecond + " bit/s, burst " + burstBytes + " B, latency "
                    + latencyMs + " ms");
        }
    }

    /**
     * Reads {@code unshaped} or a rate such as {@code 10mbit}, {@code 1gbit}, {@code 500kbit} (tc's decimal units).
     *
     * @throws IllegalArgumentException naming the text and what is accepted
     */
    public static LinkShape parse(String text, int latencyMs) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        if (t.equals("unshaped")) {
            return UNSHAPED;
        }
        Matcher m = RATE.matcher(t);
        if (!m.matches() || Long.parseLong(m.group(1)) == 0) {
            throw new IllegalArgumentException("a link rate is 'unshaped' or a positive number with kbit, mbit or"
                    + " gbit (tc's units, powers of 1000), e.g. 100mbit; found \"" + text + "\"");
        }
        long unit = switch (m.group(2)) {
            case "kbit" -> 1_000L;
            case "mbit" -> 1_000_000L;
            default -> 1_000_000_000L;
        };
        long bits = Math.multiplyExact(Long.parseLong(m.group(1)), unit);
        int burst = (int) Math.max(MIN_BURST_BYTES, bits / 8 / 250);
        return new LinkShape(t, bits, burst, latencyMs);
    }

    /** Whether a qdisc caps the links. */
    public boolean shaped() {
        return bitsPerSecond > 0;
    }

    /** The cap in Mbit/s (0 when unshaped). */
    public double megabitsPerSecond() {
        return bitsPerSecond / 1e6;
    }

    /** The {@code tc} arguments after {@code root}: {@code tbf rate ...bit burst ...b latency ...ms}. */
    public List<String> tbfArguments() {
        if (!shaped()) {
            throw new IllegalStateException("an unshaped link has no qdisc");
        }
        return List.of("tbf", "rate", bitsPerSecond + "bit", "burst", burstBytes + "b", "latency", latencyMs + "ms");
    }

    /** {@code tbf rate 100000000bit burst 50000b latency 400ms}, or {@code unshaped}. */
    public String describe() {
        return shaped() ? String.join(" ", tbfArguments()) : "unshaped (no qdisc)";
    }
}

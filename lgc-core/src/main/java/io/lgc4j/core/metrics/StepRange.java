package io.lgc4j.core.metrics;

/**
 * Steps {@code first..last}, both included: which steps a trace records ({@code --trace-steps 100..119}).
 *
 * <pre>{@code
 * StepRange steps = StepRange.parse("100..119", "--trace-steps");
 * steps.contains(105);   // true
 * }</pre>
 *
 * @param first the first step recorded, {@code >= 0}
 * @param last  the last step recorded, {@code >= first}
 */
public record StepRange(int first, int last) {
    /** Every step. */
    public static final StepRange ALL = new StepRange(0, Integer.MAX_VALUE);

    /** @throws IllegalArgumentException naming both bounds when {@code first < 0} or {@code last < first} */
    public StepRange {
        if (first < 0 || last < first) {
            throw new IllegalArgumentException("steps " + first + ".." + last + ": expected first..last with 0 <= first"
                    + " <= last, e.g. 0..99");
        }
    }

    /**
     * Reads {@code a..b} (or {@code a..} for a to the end, or {@code a} for one step).
     *
     * @param what how the caller names the value in a message, e.g. {@code --trace-steps}
     * @throws IllegalArgumentException naming {@code what}, the text, what was wrong and what is expected
     */
    public static StepRange parse(String text, String what) {
        String t = text.strip();
        String expected = "; expected first..last with 0 <= first <= last (e.g. 0..99), first.. or one step";
        int dots = t.indexOf("..");
        try {
            int first = Integer.parseInt(dots < 0 ? t : t.substring(0, dots));
            int last = dots < 0 ? first : dots + 2 == t.length() ? Integer.MAX_VALUE
                    : Integer.parseInt(t.substring(dots + 2));
            if (first < 0) {
                throw new IllegalArgumentException(what + " '" + text + "': the first step " + first
                        + " is negative" + expected);
            }
            if (last < first) {
                throw new IllegalArgumentException(what + " '" + text + "': the last step " + last
                        + " is before the first " + first + expected);
            }
            return new StepRange(first, last);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " '" + text + "' is not a step range" + expected, e);
        }
    }

    /** Whether {@code step} is inside. */
    public boolean contains(int step) {
        return step >= first && step <= last;
    }

    /** {@code first..last}, or {@code first..} when open; {@link #parse} reads it back. */
    @Override
    public String toString() {
        return last == Integer.MAX_VALUE ? first + ".." : first + ".." + last;
    }
}

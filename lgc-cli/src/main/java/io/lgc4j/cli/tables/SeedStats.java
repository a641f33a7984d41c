package io.lgc4j.cli.tables;

import java.util.Locale;

/**
 * A figure over the seeds of one method: how many runs, their mean and sample standard deviation. Two methods
 * {@link #ties tie} when their means differ by less than two standard errors of the difference — the table then says
 * so instead of ranking them.
 *
 * <pre>{@code
 * SeedStats a = SeedStats.of(88.1, 88.4, 87.9);   // 88.13 ± 0.25 (n = 3)
 * boolean tie = a.ties(SeedStats.of(88.0, 88.6, 88.2));
 * }</pre>
 *
 * @param n    runs (seeds)
 * @param mean their mean
 * @param sd   their sample standard deviation (n − 1 in the denominator); NaN for a single run
 */
public record SeedStats(int n, double mean, double sd) {

    /** The statistics of {@code values}, one per seed. */
    public static SeedStats of(double... values) {
        if (values.length == 0) {
            throw new IllegalArgumentException("no values: a figure needs at least one run");
        }
        double sum = 0;
        for (double v : values) {
            sum += v;
        }
        double mean = sum / values.length;
        if (values.length == 1) {
            return new SeedStats(1, mean, Double.NaN);
        }
        double squares = 0;
        for (double v : values) {
            squares += (v - mean) * (v - mean);
        }
        return new SeedStats(values.length, mean, Math.sqrt(squares / (values.length - 1)));
    }

    /** The standard error of the mean, sd / √n; NaN for a single run. */
    public double standardError() {
        return n > 1 ? sd / Math.sqrt(n) : Double.NaN;
    }

    /**
     * Whether this mean and {@code other}'s differ by less than two standard errors of their difference,
     * √(se² + se'²). False when either has a single run: one seed cannot tell a tie from a difference.
     */
    public boolean ties(SeedStats other) {
        double se = Math.sqrt(standardError() * standardError() + other.standardError() * other.standardError());
        return !Double.isNaN(se) && Math.abs(mean - other.mean) < 2 * se;
    }

    /** "88.13 ± 0.25" (n > 1) or "88.13" (one run), with {@code decimals} decimals. */
    public String format(int decimals) {
        String m = String.format(Locale.ROOT, "%." + decimals + "f", mean);
        return n > 1 ? m + " ± " + String.format(Locale.ROOT, "%." + decimals + "f", sd) : m;
    }
}

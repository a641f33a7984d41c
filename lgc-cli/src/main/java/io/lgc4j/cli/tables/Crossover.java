package io.lgc4j.cli.tables;

import java.util.Locale;

/**
 * Where a method starts to beat a baseline in time to accuracy as the links get slower. Each method's times to the
 * target at the measured link rates are fitted with {@code T(B) = a + b / B} (least squares in {@code 1/B}): {@code a}
 * seconds that no bandwidth removes (compute, encoding, waiting on the slowest rank, per-message latency), {@code b}
 * megabits that cross the busiest link before the target is reached. Two such lines cross at
 * {@code B* = (b_0 − b_m) / (a_m − a_0)}; the signs of the two differences say on which side the method is faster.
 *
 * <pre>{@code
 * Crossover.Fit dense = Crossover.fit(new double[] {21000, 95.6, 9.6}, new double[] {80, 120, 400});
 * String s = Crossover.against(Crossover.fit(rates, times), dense).describe();   // "faster below 38 Mbit/s"
 * }</pre>
 */
public final class Crossover {

    private Crossover() {
    }

    /**
     * A fitted {@code T = a + b / B}.
     *
     * @param a              seconds at an infinitely fast link
     * @param b              megabits through the busiest link (seconds × Mbit/s)
     * @param maxRelResidual the largest |measured − fitted| / measured over the points: how well the line fits
     * @param points         how many points it was fitted to
     */
    public record Fit(double a, double b, double maxRelResidual, int points) {
        /** The fitted time at {@code mbitPerSecond}. */
        public double at(double mbitPerSecond) {
            return a + b / mbitPerSecond;
        }
    }

    /** Which side of the crossover the method is faster on. */
    public enum Side { ALWAYS_FASTER, NEVER_FASTER, FASTER_BELOW, FASTER_ABOVE }

    /**
     * A method against the baseline.
     *
     * @param side          where it is faster
     * @param mbitPerSecond the crossover rate (NaN for ALWAYS_FASTER and NEVER_FASTER)
     */
    public record Result(Side side, double mbitPerSecond) {
        /** E.g. {@code faster below 38.2 Mbit/s}. */
        public String describe() {
            return switch (side) {
                case ALWAYS_FASTER -> "faster at every rate";
                case NEVER_FASTER -> "slower at every rate";
                case FASTER_BELOW -> String.format(Locale.ROOT, "faster below %s Mbit/s", rate(mbitPerSecond));
                case FASTER_ABOVE -> String.format(Locale.ROOT, "faster above %s Mbit/s", rate(mbitPerSecond));
            };
        }

        private static String rate(double r) {
            return r >= 100 ? String.format(Locale.ROOT, "%,.0f", r) : String.format(Locale.ROOT, "%.1f", r);
        }
    }

    /**
     * Fits {@code T = a + b / B} to the times measured at the given rates (Mbit/s; the points with a NaN time are
     * skipped).
     *
     * @throws IllegalArgumentException when fewer than two points remain or all have the same rate
     */
    public static Fit fit(double[] mbitPerSecond, double[] seconds) {
        if (mbitPerSecond.length != seconds.length) {
            throw new IllegalArgumentException("rates and times differ in length: " + mbitPerSecond.length + " and "
                    + seconds.length);
        }
        double n = 0;
        double sx = 0;
        double sy = 0;
        double sxx = 0;
        double sxy = 0;
        for (int i = 0; i < seconds.length; i++) {
            if (Double.isNaN(seconds[i])) {
                continue;
            }
            double x = 1 / mbitPerSecond[i];
            n++;
            sx += x;
            sy += seconds[i];
            sxx += x * x;
            sxy += x * seconds[i];
        }
        double det = n * sxx - sx * sx;
        if (n < 2 || !(det > 0)) {
            throw new IllegalArgumentException("a crossover needs times at two or more different rates, found "
                    + (int) n + " point(s)");
        }
        double b = (n * sxy - sx * sy) / det;
        double a = (sy - b * sx) / n;
        double worst = 0;
        for (int i = 0; i < seconds.length; i++) {
            if (!Double.isNaN(seconds[i])) {
                worst = Math.max(worst, Math.abs(seconds[i] - (a + b / mbitPerSecond[i])) / seconds[i]);
            }
        }
        return new Fit(a, b, worst, (int) n);
    }

    /** Where {@code method} is faster than {@code baseline}. */
    public static Result against(Fit method, Fit baseline) {
        double da = method.a() - baseline.a();      // > 0: slower on fast links
        double db = baseline.b() - method.b();      // > 0: fewer megabits, faster on slow links
        if (da <= 0 && db >= 0) {
            return new Result(da == 0 && db == 0 ? Side.NEVER_FASTER : Side.ALWAYS_FASTER, Double.NaN);
        }
        if (da >= 0 && db <= 0) {
            return new Result(Side.NEVER_FASTER, Double.NaN);
        }
        double crossing = db / da;                  // B*: da and db have the same sign here
        return new Result(da > 0 ? Side.FASTER_BELOW : Side.FASTER_ABOVE, crossing);
    }
}

package io.lgc4j.autoencoders;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.SplittableRandom;

/**
 * Watches an autoencoder's reconstruction error online and says when to stop trusting it (beyond the paper).
 *
 * <p>The compressed stage feeds it a relative error now and then (‖reconstruction − truth‖² / ‖truth‖² on a
 * sample); when the mean of the last {@code window} errors exceeds {@code bound}, the guard trips and the topology
 * falls back to top-k updates while the autoencoder trains again. During the fallback it is fed the training
 * reconstruction loss (a relative error too: inputs have unit RMS), and it recovers when the mean of the last
 * {@code window} is back under the bound. Deterministic: the same errors give the same decisions on every rank.
 *
 * <pre>{@code
 * DriftGuard guard = new DriftGuard(1.0, 5);
 * if (guard.observe(error)) { ... fall back ... }          // compressed stage
 * if (guard.recovered(trainingLoss)) { ... resume ... }    // fallback
 * }</pre>
 */
public final class DriftGuard {

    private final double bound;
    private final int window;
    private final Deque<Double> recent = new ArrayDeque<>();

    /**
     * @param bound  the largest mean relative error tolerated (1 means "no better than sending nothing")
     * @param window how many observations the mean covers
     */
    public DriftGuard(double bound, int window) {
        if (!(bound > 0) || Double.isInfinite(bound) || window < 1) {
            throw new IllegalArgumentException("bound must be positive and finite and window at least 1, got "
                    + bound + " and " + window);
        }
        this.bound = bound;
        this.window = window;
    }

    /**
     * The positions a check samples: {@code min(count, mu)} distinct positions of a compact vector of length
     * {@code mu}, ascending, drawn from the seed and the step, so every endpoint of a run draws the same ones.
     */
    public static int[] samplePositions(long seed, int step, int mu, int count) {
        int n = Math.min(count, mu);
        int[] all = new int[mu];
        for (int i = 0; i < mu; i++) {
            all[i] = i;
        }
        SplittableRandom r = new SplittableRandom(seed * 31 + step);
        for (int i = 0; i < n; i++) {
            int j = i + r.nextInt(mu - i);
            int t = all[i];
            all[i] = all[j];
            all[j] = t;
        }
        int[] s = Arrays.copyOf(all, n);
        Arrays.sort(s);
        return s;
    }

    /**
     * ‖approximation − truth‖² / ‖truth‖² at the given positions (all positions when {@code at} is null): 0 for a
     * perfect approximation, 1 for sending nothing, infinite for a non-zero approximation of a zero truth.
     */
    public static double relativeError(float[] approximation, float[] truth, int[] at) {
        double err = 0;
        double norm = 0;
        int n = at == null ? truth.length : at.length;
        for (int j = 0; j < n; j++) {
            int i = at == null ? j : at[j];
            double d = (double) approximation[i] - truth[i];
            err += d * d;
            norm += (double) truth[i] * truth[i];
        }
        return norm == 0 ? (err == 0 ? 0 : Double.POSITIVE_INFINITY) : err / norm;
    }

    /** The bound on the mean relative error. */
    public double bound() {
        return bound;
    }

    /** The number of observations the mean covers. */
    public int window() {
        return window;
    }

    /**
     * Adds a relative reconstruction error from the compressed stage; returns true when the guard trips (the mean
     * of the last {@code window} exceeds the bound), after which its window is cleared for the recovery.
     */
    public boolean observe(double relativeError) {
        if (add(relativeError) > bound) {
            recent.clear();
            return true;
        }
        return false;
    }

    /**
     * Adds a training reconstruction loss during a fallback; returns true when {@code window} of them have been
     * seen and their mean is under the bound, after which the window is cleared for the next compressed stretch.
     */
    public boolean recovered(double trainingLoss) {
        if (add(trainingLoss) <= bound && recent.size() == window) {
            recent.clear();
            return true;
        }
        return false;
    }

    private double add(double value) {
        recent.addLast(Double.isNaN(value) ? Double.POSITIVE_INFINITY : value);
        if (recent.size() > window) {
            recent.removeFirst();
        }
        if (recent.size() < window) {
            return Double.NEGATIVE_INFINITY;
        }
        double sum = 0;
        for (double v : recent) {
            sum += v;
        }
        return sum / window;
    }
}

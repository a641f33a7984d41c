package io.lgc4j.lgc;

import io.lgc4j.lgc.autoencoder.SectionChecks;
import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.checkpoint.Persistent;
import io.lgc4j.core.checkpoint.SectionReader;
import io.lgc4j.core.checkpoint.SectionWriter;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Watches an autoencoder's reconstruction error online and says when to stop trusting it (beyond the paper).
 *
 * <p>Fed a {@link Measurement} (‖reconstruction − truth‖² and ‖truth‖² on sampled positions) now and then, it trips
 * when the relative error pooled over the last {@code window} measurements (sum of errors over sum of norms) exceeds
 * {@code bound}; during the fallback that follows it recovers once the last {@code window} are back under the bound.
 * Deterministic: the same measurements give the same decisions on every rank. Not thread-safe.
 *
 * <pre>{@code
 * DriftGuard guard = new DriftGuard(0.9, 5);
 * if (guard.observe(DriftGuard.measure(rec, truth, sample))) { ... fall back ... }   // compressed stage
 * if (guard.recovered(DriftGuard.measure(rec, truth, null))) { ... resume ... }      // fallback
 * }</pre>
 */
public final class DriftGuard implements Persistent {

    /**
     * One check: the squared error of an approximation and the squared norm of the truth over the same positions.
     *
     * @param error ‖approximation − truth‖²
     * @param norm  ‖truth‖²
     */
    public record Measurement(double error, double norm) {

        /** error / norm: 0 for a perfect approximation, 1 for sending nothing; infinite when only the truth is 0. */
        public double relative() {
            return norm == 0 ? (error == 0 ? 0 : Double.POSITIVE_INFINITY) : error / norm;
        }
    }

    private final double bound;
    private final int window;
    private final Deque<Measurement> recent = new ArrayDeque<>();

    /**
     * @param bound  the largest relative error tolerated over a window (1 means "no better than sending nothing")
     * @param window how many measurements the window pools
     */
    public DriftGuard(double bound, int window) {
        if (!(bound > 0) || Double.isInfinite(bound) || window < 1) {
            throw new IllegalArgumentException("bound must be positive and finite and window at least 1, got "
                    + bound + " and " + window);
        }
        this.bound = bound;
        this.window = window;
    }

    /** The bound on the window's relative error. */
    public double bound() {
        return bound;
    }

    /** The number of measurements the window pools. */
    public int window() {
        return window;
    }

    /**
     * The squared error of {@code approximation} against {@code truth} and the squared norm of {@code truth} at the
     * given positions ({@code at} null: every position).
     */
    public static Measurement measure(float[] approximation, float[] truth, int[] at) {
        double err = 0;
        double norm = 0;
        int n = at == null ? truth.length : at.length;
        for (int j = 0; j < n; j++) {
            int i = at == null ? j : at[j];
            double d = (double) approximation[i] - truth[i];
            err += d * d;
            norm += (double) truth[i] * truth[i];
        }
        return new Measurement(err, norm);
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
     * Adds a measurement from the compressed stage; returns true when the guard trips (the window is full and its
     * pooled relative error exceeds the bound), after which the window is cleared for the recovery.
     */
    public boolean observe(Measurement m) {
        if (add(m) > bound) {
            recent.clear();
            return true;
        }
        return false;
    }

    /**
     * Adds a measurement of a training step during a fallback; returns true when the window is full and its pooled
     * relative error is under the bound, after which the window is cleared for the next compressed stretch.
     */
    public boolean recovered(Measurement m) {
        if (add(m) <= bound && recent.size() == window) {
            recent.clear();
            return true;
        }
        return false;
    }

    /**
     * Saves the window, {@code prefix/window}: the number of measurements in it n (int32, at most
     * {@link #window()}), then each, oldest first, as its error and norm (two float64s, raw bits: a broken
     * measurement's infinity is kept).
     */
    @Override
    public void save(CheckpointPart.Builder part, String prefix) {
        SectionWriter w = part.section(prefix + "/window").putInt(recent.size());
        for (Measurement m : recent) {
            w.putDouble(m.error()).putDouble(m.norm());
        }
    }

    /**
     * Restores the window {@link #save} wrote into a guard with the same window.
     *
     * @throws CheckpointException naming the section when it is missing, of the wrong length, or holds more
     *                             measurements than this guard's window
     */
    @Override
    public void restore(CheckpointPart part, String prefix) throws CheckpointException {
        String section = prefix + "/window";
        SectionReader r = part.section(section);
        int count = r.getInt();
        if (count < 0 || count > window) {
            throw SectionChecks.refuse(part, section, "holds " + SectionChecks.count(count)
                    + " measurements, this guard's window at most " + window);
        }
        long expected = 2L * Double.BYTES * count;
        if (r.remaining() != expected) {
            throw SectionChecks.refuse(part, section, "expected " + count + " measurements ("
                    + SectionChecks.count(expected) + " bytes after the count), found "
                    + SectionChecks.count(r.remaining()) + " bytes");
        }
        List<Measurement> read = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            read.add(new Measurement(r.getDouble(), r.getDouble()));
        }
        r.end();
        recent.clear();
        recent.addAll(read);
    }

    private double add(Measurement m) {
        boolean broken = Double.isNaN(m.error()) || Double.isNaN(m.norm());
        recent.addLast(broken ? new Measurement(Double.POSITIVE_INFINITY, 0) : m);
        if (recent.size() > window) {
            recent.removeFirst();
        }
        if (recent.size() < window) {
            return Double.NEGATIVE_INFINITY;
        }
        double err = 0;
        double norm = 0;
        for (Measurement r : recent) {
            err += r.error();
            norm += r.norm();
        }
        return new Measurement(err, norm).relative();
    }
}

package io.lgc4j.analysis;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Plug-in (maximum-likelihood) histogram estimates, in bits, of the entropies of two paired arrays and of their
 * mutual information: entry {@code i} of {@code x} and of {@code y} is one sample of the pair. A {@link Quantizer}
 * turns values into symbols; each entropy is {@code -Σ p log2 p} over the symbols' frequencies, and
 * {@code I(x; y) = H(x) + H(y) - H(x, y)}. Plug-in estimates are biased (entropies low, mutual information high);
 * when nearly every value is its own symbol, {@code I = H = log2 n} whatever the dependence.
 * {@link #shuffledControl} measures that floor: the same estimate with {@code y} permuted.
 *
 * <pre>{@code
 * Quantizer q = Quantizer.uniform(256);
 * HistogramInformation.Estimate e = HistogramInformation.estimate(g1, g2, q);
 * HistogramInformation.Estimate floor = HistogramInformation.shuffledControl(g1, g2, q, 42);
 * System.out.printf("I = %.3f of H = %.3f bits (%.0f%%), shuffled %.3f%n", e.mutualInformation(), e.entropyY(),
 *         100 * e.mutualInformationShare(), floor.mutualInformation());
 * }</pre>
 */
public final class HistogramInformation {

    /** Alphabets up to this size are counted in an int array; larger ones are sorted. */
    static final long DENSE_LIMIT = 1 << 20;

    private static final double LN2 = Math.log(2);

    private HistogramInformation() {
    }

    /**
     * Entropies and mutual information of one pair of arrays, in bits. Rounding cannot push the estimate out of
     * what plug-in estimates guarantee: {@code 0 <= I <= min(H(x), H(y))}.
     *
     * @param entropyX          H(x)
     * @param entropyY          H(y)
     * @param jointEntropy      H(x, y)
     * @param mutualInformation I(x; y) = H(x) + H(y) - H(x, y)
     */
    public record Estimate(double entropyX, double entropyY, double jointEntropy, double mutualInformation) {

        /** The share of y's entropy that x explains, I(x; y) / H(y), in [0, 1]; 0 when H(y) = 0. */
        public double mutualInformationShare() {
            return entropyY > 0 ? mutualInformation / entropyY : 0;
        }
    }

    /**
     * Estimates H(x), H(y), H(x, y) and I(x; y) from the histograms of {@code quantizer}'s symbols.
     *
     * @throws IllegalArgumentException if the arrays are empty or differ in length, or a value is NaN or infinite
     */
    public static Estimate estimate(float[] x, float[] y, Quantizer quantizer) {
        int[][] codes = encode(x, y, quantizer);
        return fromCodes(codes[0], codes[1], quantizer.alphabetSize());
    }

    /**
     * The estimator's bias floor: {@link #estimate} of x against a random permutation of y (Fisher–Yates, from a
     * {@link SplittableRandom} seeded with {@code seed}). The marginals, and so H(x) and H(y), are those of
     * {@link #estimate}; the pairs are independent, so any mutual information left is the estimator's.
     *
     * @throws IllegalArgumentException if the arrays are empty or differ in length, or a value is NaN or infinite
     */
    public static Estimate shuffledControl(float[] x, float[] y, Quantizer quantizer, long seed) {
        int[][] codes = encode(x, y, quantizer);
        // Quantization is element-wise and the range covers both arrays whatever their order: permuting the
        // symbols is permuting y.
        int[] shuffled = codes[1];
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = shuffled.length - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = shuffled[i];
            shuffled[i] = shuffled[j];
            shuffled[j] = t;
        }
        return fromCodes(codes[0], shuffled, quantizer.alphabetSize());
    }

    private static int[][] encode(float[] x, float[] y, Quantizer quantizer) {
        if (x.length != y.length) {
            throw new IllegalArgumentException("x and y must be paired, found lengths " + x.length + " and "
                    + y.length);
        }
        if (x.length == 0) {
            throw new IllegalArgumentException("x and y are empty: an estimate needs at least one pair");
        }
        int[] codesX = new int[x.length];
        int[] codesY = new int[y.length];
        quantizer.encode(x, y, codesX, codesY);
        return new int[][] {codesX, codesY};
    }

    private static Estimate fromCodes(int[] codesX, int[] codesY, long alphabetSize) {
        double hx = entropy(codesX, alphabetSize);
        double hy = entropy(codesY, alphabetSize);
        double hxy = jointEntropy(codesX, codesY, alphabetSize);
        double mi = Math.min(Math.min(hx, hy), Math.max(0, hx + hy - hxy));
        return new Estimate(hx, hy, hxy, mi);
    }

    /** Plug-in entropy in bits of symbols in [0, alphabetSize), or any int above {@link #DENSE_LIMIT} symbols. */
    static double entropy(int[] codes, long alphabetSize) {
        if (alphabetSize <= DENSE_LIMIT) {
            int[] counts = new int[(int) alphabetSize];
            for (int c : codes) {
                counts[c]++;
            }
            return entropyOfCounts(counts, codes.length);
        }
        int[] sorted = codes.clone();
        Arrays.sort(sorted);
        double sum = 0;
        int run = 1;
        for (int i = 1; i <= sorted.length; i++) {
            if (i < sorted.length && sorted[i] == sorted[i - 1]) {
                run++;
            } else {
                sum += xLnX(run);
                run = 1;
            }
        }
        return bits(sum, sorted.length);
    }

    /** Plug-in entropy in bits of the pairs (codesX[i], codesY[i]). */
    static double jointEntropy(int[] codesX, int[] codesY, long alphabetSize) {
        // Compared with DENSE_LIMIT before squaring: 2^32 squared overflows a long.
        if (alphabetSize <= DENSE_LIMIT && alphabetSize * alphabetSize <= DENSE_LIMIT) {
            int width = (int) alphabetSize;
            int[] counts = new int[width * width];
            for (int i = 0; i < codesX.length; i++) {
                counts[codesX[i] * width + codesY[i]]++;
            }
            return entropyOfCounts(counts, codesX.length);
        }
        long[] keys = new long[codesX.length];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = ((long) codesX[i] << 32) | (codesY[i] & 0xFFFF_FFFFL);
        }
        Arrays.sort(keys);
        double sum = 0;
        int run = 1;
        for (int i = 1; i <= keys.length; i++) {
            if (i < keys.length && keys[i] == keys[i - 1]) {
                run++;
            } else {
                sum += xLnX(run);
                run = 1;
            }
        }
        return bits(sum, keys.length);
    }

    private static double entropyOfCounts(int[] counts, int n) {
        double sum = 0;
        for (int c : counts) {
            sum += xLnX(c);
        }
        return bits(sum, n);
    }

    private static double xLnX(int count) {
        return count == 0 ? 0 : count * Math.log(count);
    }

    /** H = log2 n - (1/n) Σ c log2 c, written so that a single symbol (Σ c ln c = n ln n) gives exactly 0. */
    private static double bits(double sumCLnC, int n) {
        return Math.max(0, (xLnX(n) - sumCLnC) / (n * LN2));
    }
}

package io.lgc4j.analysis;

/**
 * How gradient values become the symbols whose histograms {@link HistogramInformation} counts. A closed set:
 *
 * <ul>
 *   <li>{@link Uniform}: B equal-width levels over the common range [min, max] of both arrays, so equal values in
 *       either array get equal symbols;</li>
 *   <li>{@link Float32Bits}: the paper's literal "2^32-level" quantizer, the float32 bit pattern itself ({@code -0.0}
 *       and {@code 0.0} are one symbol).</li>
 * </ul>
 *
 * <p>Both reject NaN and infinite values, naming the array and the index.
 *
 * <pre>{@code
 * List<Quantizer> quantizers = List.of(Quantizer.uniform(256), Quantizer.FLOAT32_BITS);
 * for (Quantizer q : quantizers) System.out.println(q.label() + ": " + HistogramInformation.estimate(g1, g2, q));
 * }</pre>
 */
public sealed interface Quantizer permits Quantizer.Uniform, Quantizer.Float32Bits {

    /** The exact float32 bit pattern as the symbol. */
    Quantizer FLOAT32_BITS = new Float32Bits();

    /** B equal-width levels over the common range of both arrays. */
    static Quantizer uniform(int levels) {
        return new Uniform(levels);
    }

    /** A short name for tables and CSV columns: {@code uniform-256}, {@code float32-bits}. */
    String label();

    /**
     * How many distinct symbols this quantizer can produce: B, or 2^32. Entropies are bounded by {@code log2} of it.
     */
    long alphabetSize();

    /**
     * Writes the symbol of every {@code x[i]} to {@code codesX[i]} and of every {@code y[i]} to {@code codesY[i]}.
     * The symbol of a value depends on the value and on nothing but the pair of arrays (a uniform quantizer's range
     * is that of both), so {@code x[i] == y[j]} gives {@code codesX[i] == codesY[j]}.
     *
     * @throws IllegalArgumentException if the four arrays differ in length, or a value is NaN or infinite
     */
    void encode(float[] x, float[] y, int[] codesX, int[] codesY);

    /**
     * B equal-width levels over [min, max] of both arrays; the maximum falls in the top level. When every value is
     * equal all symbols are 0.
     *
     * @param levels B, at least 2
     */
    record Uniform(int levels) implements Quantizer {

        /** Rejects fewer than two levels. */
        public Uniform {
            if (levels < 2) {
                throw new IllegalArgumentException("levels must be >= 2, got " + levels);
            }
        }

        @Override
        public String label() {
            return "uniform-" + levels;
        }

        @Override
        public long alphabetSize() {
            return levels;
        }

        @Override
        public void encode(float[] x, float[] y, int[] codesX, int[] codesY) {
            checkLengths(x, y, codesX, codesY);
            double lo = Double.POSITIVE_INFINITY;
            double hi = Double.NEGATIVE_INFINITY;
            for (int i = 0; i < x.length; i++) {
                checkFinite("x", i, x[i]);
                checkFinite("y", i, y[i]);
                lo = Math.min(lo, Math.min(x[i], y[i]));
                hi = Math.max(hi, Math.max(x[i], y[i]));
            }
            // With an empty range every value is the minimum: one symbol.
            double scale = hi > lo ? levels / (hi - lo) : 0;
            code(x, codesX, lo, scale);
            code(y, codesY, lo, scale);
        }

        private void code(float[] values, int[] codes, double lo, double scale) {
            int top = levels - 1;
            for (int i = 0; i < values.length; i++) {
                codes[i] = Math.min(top, (int) ((values[i] - lo) * scale));
            }
        }
    }

    /** The float32 bit pattern as the symbol: 2^32 levels, one per distinct value ({@code -0.0 == 0.0}). */
    record Float32Bits() implements Quantizer {
        @Override
        public String label() {
            return "float32-bits";
        }

        @Override
        public long alphabetSize() {
            return 1L << 32;
        }

        @Override
        public void encode(float[] x, float[] y, int[] codesX, int[] codesY) {
            checkLengths(x, y, codesX, codesY);
            code("x", x, codesX);
            code("y", y, codesY);
        }

        private static void code(String name, float[] values, int[] codes) {
            for (int i = 0; i < values.length; i++) {
                float v = values[i];
                checkFinite(name, i, v);
                // -0.0f == 0.0f, but their bit patterns differ: one symbol for zero.
                codes[i] = v == 0f ? 0 : Float.floatToRawIntBits(v);
            }
        }
    }

    private static void checkLengths(float[] x, float[] y, int[] codesX, int[] codesY) {
        if (x.length != y.length || codesX.length != x.length || codesY.length != x.length) {
            throw new IllegalArgumentException("x, y, codesX and codesY must have one length, found " + x.length
                    + ", " + y.length + ", " + codesX.length + " and " + codesY.length);
        }
    }

    private static void checkFinite(String name, int index, float value) {
        if (!Float.isFinite(value)) {
            throw new IllegalArgumentException(name + "[" + index + "] is " + value
                    + ": the quantizers need finite values");
        }
    }
}

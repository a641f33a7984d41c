package io.lgc4j.core.link;

/**
 * Turning sums into means, the one way every topology does it: each element divided by K as a float (never
 * multiplied by 1/K, which rounds differently), so every endpoint that divides the same sum gets the same bits.
 */
public final class Averages {
    private Averages() {
    }

    /** {@code values[i] /= k} for every element. */
    public static void divide(float[] values, int k) {
        divide(values, 0, values.length, k);
    }

    /** {@code values[i] /= k} for {@code i} in {@code [from, to)}. */
    public static void divide(float[] values, int from, int to, int k) {
        float K = k;
        for (int i = from; i < to; i++) {
            values[i] /= K;
        }
    }

    /** The element-wise mean of equally long vectors, summed in index (rank) order, then divided. */
    public static float[] mean(float[][] vectors) {
        float[] sum = vectors[0].clone();
        for (int w = 1; w < vectors.length; w++) {
            float[] v = vectors[w];
            for (int i = 0; i < sum.length; i++) {
                sum[i] += v[i];
            }
        }
        divide(sum, vectors.length);
        return sum;
    }
}

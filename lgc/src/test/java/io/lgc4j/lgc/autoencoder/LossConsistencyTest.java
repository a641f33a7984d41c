package io.lgc4j.lgc.autoencoder;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The loss a training step reports equals the loss recomputed in Java from {@code encode} and {@code decode}: the
 * inference graphs see the trained weights, the loss is over the μ real positions only (μ = 37 pads to 48), and the
 * losses are what {@link AeTraining} says they are.
 */
class LossConsistencyTest {

    private static final int MU = 37;
    private static final int K = 3;

    @Test
    void ringLossShouldMatchEncodeAverageDecode() {
        RingAutoencoder ae = new RingAutoencoder(AutoencoderSpec.PAPER, MU, K, AeTraining.DEFAULT, 11);
        SyntheticGradients data = new SyntheticGradients(MU, K, 0.3, 4);
        float[] before = data.next()[0];
        ae.decode(ae.encode(before, 1f), 1f); // the inference graphs exist before training: they must follow it
        for (int s = 0; s < 5; s++) {
            ae.trainStep(data.next(), s % K);
        }
        float[][] g = data.next();
        float scale = Scale.rms(g[1]);
        float[][] latents = new float[K][];
        for (int k = 0; k < K; k++) {
            latents[k] = ae.encode(g[k], scale);
        }
        float[] rec = ae.decode(mean(latents), scale);
        double expectedRec = mse(rec, mean(g), scale);
        double expectedSim = similarity(latents);

        AeLosses reported = ae.trainStep(g, 1);

        assertEquals(expectedRec, reported.reconstruction(), 1e-4 * expectedRec);
        assertEquals(expectedSim, reported.similarity(), 1e-4 * expectedSim + 1e-9);
        assertEquals(expectedRec + 0.5 * expectedSim, reported.total(), 1e-4 * reported.total());
    }

    @Test
    void psLossShouldMatchEncodeCommonDecodeWithInnovation() {
        PsAutoencoder ae = new PsAutoencoder(AutoencoderSpec.PAPER, MU, K, 0.1, AeTraining.DEFAULT, 12);
        SyntheticGradients data = new SyntheticGradients(MU, K, 0.3, 5);
        float[] before = data.next()[0];
        ae.decode(0, ae.encode(before, 1f), ae.innovation(before), 1f);
        for (int s = 0; s < 5; s++) {
            ae.trainStep(data.next(), s % K);
        }
        float[][] g = data.next();
        int common = 2;
        float scale = Scale.rms(g[common]);
        float[][] latents = new float[K][];
        for (int k = 0; k < K; k++) {
            latents[k] = ae.encode(g[k], scale);
        }
        double expectedRec = 0;
        for (int k = 0; k < K; k++) {
            expectedRec += mse(ae.decode(k, latents[common], ae.innovation(g[k]), scale), g[k], scale) / K;
        }
        double expectedSim = similarity(latents);

        AeLosses reported = ae.trainStep(g, common);

        assertEquals(expectedRec, reported.reconstruction(), 1e-4 * expectedRec);
        assertEquals(expectedSim, reported.similarity(), 1e-4 * expectedSim + 1e-9);
    }

    @Test
    void innovationShouldKeepTheLargestTenthAndZeroTheRest() {
        PsAutoencoder ae = new PsAutoencoder(AutoencoderSpec.PAPER, 25, 2, 0.1, AeTraining.DEFAULT, 1);
        float[] v = new float[25];
        for (int i = 0; i < v.length; i++) {
            v[i] = (i % 2 == 0 ? 1 : -1) * i * 0.01f;
        }
        assertEquals(3, ae.innovationCount());
        org.junit.jupiter.api.Assertions.assertArrayEquals(new int[] {22, 23, 24}, ae.innovationPositions(v));
        float[] inn = ae.innovation(v);
        for (int i = 0; i < v.length; i++) {
            assertEquals(i >= 22 ? v[i] : 0f, inn[i]);
        }
    }

    static float[] mean(float[][] rows) {
        float[] m = new float[rows[0].length];
        for (float[] r : rows) {
            for (int i = 0; i < m.length; i++) {
                m[i] += r[i] / rows.length;
            }
        }
        return m;
    }

    /** Mean squared error of a and b, both divided by scale. */
    static double mse(float[] a, float[] b, float scale) {
        double sum = 0;
        for (int i = 0; i < a.length; i++) {
            double d = (a[i] - b[i]) / scale;
            sum += d * d;
        }
        return sum / a.length;
    }

    /** Σ_k Σ_{m≠k} ||z_k − z_m||² / (K(K−1)·size). */
    static double similarity(float[][] z) {
        double sum = 0;
        for (int k = 0; k < z.length; k++) {
            for (int m = 0; m < z.length; m++) {
                for (int i = 0; i < z[k].length; i++) {
                    double d = z[k][i] - z[m][i];
                    sum += d * d;
                }
            }
        }
        return sum / ((double) z.length * (z.length - 1) * z[0].length);
    }
}

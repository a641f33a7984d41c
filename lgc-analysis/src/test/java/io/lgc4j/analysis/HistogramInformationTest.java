package io.lgc4j.analysis;

import io.lgc4j.analysis.HistogramInformation.Estimate;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HistogramInformationTest {

    private static final double LOG2 = Math.log(2);

    @Test
    void shouldGiveMutualInformationEqualToEntropyForIdenticalArrays() {
        float[] x = gaussian(50_000, 1);
        for (Quantizer q : new Quantizer[] {Quantizer.uniform(16), Quantizer.uniform(256), Quantizer.uniform(4096),
                Quantizer.FLOAT32_BITS}) {
            Estimate e = HistogramInformation.estimate(x, x.clone(), q);
            assertEquals(e.entropyX(), e.entropyY(), 0, q.label());
            assertEquals(e.entropyX(), e.jointEntropy(), 1e-12, q.label());
            assertEquals(e.entropyX(), e.mutualInformation(), 1e-12, q.label());
            assertEquals(1, e.mutualInformationShare(), 1e-12, q.label());
            assertTrue(e.entropyX() <= Math.log(q.alphabetSize()) / LOG2 + 1e-12, q.label());
        }
    }

    @Test
    void shouldFindNoInformationBetweenIndependentUniformArrays() {
        Random random = new Random(3);
        int n = 100_000;
        float[] x = new float[n];
        float[] y = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = random.nextFloat();
            y[i] = random.nextFloat();
        }
        Quantizer q = Quantizer.uniform(8);
        Estimate e = HistogramInformation.estimate(x, y, q);
        assertEquals(3, e.entropyX(), 0.001);
        assertEquals(3, e.entropyY(), 0.001);
        assertEquals(0, e.mutualInformation(), 0.002);
        assertEquals(0, HistogramInformation.shuffledControl(x, y, q, 7).mutualInformation(), 0.002);
    }

    @Test
    void shouldRecoverTheMutualInformationOfACorrelatedGaussianPair() {
        double rho = 0.8;
        int n = 200_000;
        Random random = new Random(11);
        float[] x = new float[n];
        float[] y = new float[n];
        for (int i = 0; i < n; i++) {
            double a = random.nextGaussian();
            double b = random.nextGaussian();
            x[i] = (float) a;
            y[i] = (float) (rho * a + Math.sqrt(1 - rho * rho) * b);
        }
        double exact = -0.5 * Math.log(1 - rho * rho) / LOG2;
        Quantizer q = Quantizer.uniform(64);
        Estimate e = HistogramInformation.estimate(x, y, q);
        // Seeds 1..5 measured |I - exact| <= 0.005 bits and shuffled I in 0.008..0.011 bits.
        assertEquals(exact, e.mutualInformation(), 0.02, "I = " + e.mutualInformation() + ", exact " + exact);
        Estimate floor = HistogramInformation.shuffledControl(x, y, q, 5);
        assertEquals(e.entropyX(), floor.entropyX(), 0);
        assertEquals(e.entropyY(), floor.entropyY(), 1e-12);
        assertTrue(floor.mutualInformation() < 0.02, "shuffled I = " + floor.mutualInformation());
    }

    @Test
    void shouldGiveLog2NForDistinctFloatsUnderTheFloat32Quantizer() {
        int n = 1000;
        float[] x = new float[n];
        float[] y = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = i * 0.5f - 100;
            y[i] = -i;
        }
        Estimate e = HistogramInformation.estimate(x, y, Quantizer.FLOAT32_BITS);
        double log2n = Math.log(n) / LOG2;
        assertEquals(log2n, e.entropyX(), 1e-12);
        assertEquals(log2n, e.entropyY(), 1e-12);
        // All values distinct: every pair is its own cell, and the plug-in estimate says I = H whatever the pairing.
        assertEquals(log2n, e.mutualInformation(), 1e-12);
        assertEquals(log2n, HistogramInformation.shuffledControl(x, y, Quantizer.FLOAT32_BITS, 1)
                .mutualInformation(), 1e-12);
    }

    @Test
    void shouldGiveZeroEntropyAndZeroShareForAConstantArray() {
        float[] constant = new float[500];
        java.util.Arrays.fill(constant, 2.5f);
        float[] varied = gaussian(500, 2);
        for (Quantizer q : new Quantizer[] {Quantizer.uniform(32), Quantizer.FLOAT32_BITS}) {
            Estimate same = HistogramInformation.estimate(constant, constant, q);
            assertEquals(new Estimate(0, 0, 0, 0), same, q.label());
            assertEquals(0, same.mutualInformationShare(), q.label());
            Estimate mixed = HistogramInformation.estimate(varied, constant, q);
            assertEquals(0, mixed.entropyY(), q.label());
            assertEquals(0, mixed.mutualInformation(), q.label());
            assertEquals(0, mixed.mutualInformationShare(), q.label());
        }
    }

    @Test
    void shouldTreatNegativeAndPositiveZeroAsOneSymbol() {
        float[] x = {0.0f, -0.0f, 0.0f, -0.0f};
        float[] y = {1f, 2f, 3f, 4f};
        Estimate e = HistogramInformation.estimate(x, y, Quantizer.FLOAT32_BITS);
        assertEquals(0, e.entropyX());
        assertEquals(2, e.entropyY(), 1e-12);
        assertEquals(0, e.mutualInformation());
    }

    @Test
    void shouldGiveEqualValuesInEitherArrayEqualUniformCodes() {
        float[] x = {-1f, 0.25f, 3f};
        float[] y = {3f, -1f, 0.25f};
        int[] cx = new int[3];
        int[] cy = new int[3];
        Quantizer.uniform(4).encode(x, y, cx, cy);
        // Range [-1, 3] in 4 levels of width 1: -1 → 0, 0.25 → 1, 3 (the maximum) → the top level.
        assertArrayEquals(new int[] {0, 1, 3}, cx);
        assertArrayEquals(new int[] {3, 0, 1}, cy);
    }

    @Test
    void shouldCountTheSameEntropyInArraysAndBySorting() {
        Random random = new Random(9);
        int[] cx = new int[20_000];
        int[] cy = new int[20_000];
        for (int i = 0; i < cx.length; i++) {
            cx[i] = random.nextInt(40);
            cy[i] = (cx[i] + random.nextInt(5)) % 40;
        }
        assertEquals(HistogramInformation.entropy(cx, 40), HistogramInformation.entropy(cx, 1L << 32), 1e-12);
        assertEquals(HistogramInformation.jointEntropy(cx, cy, 40),
                HistogramInformation.jointEntropy(cx, cy, 1L << 32), 1e-12);
    }

    @Test
    void shouldKeepPlugInBoundsOnMutualInformation() {
        Random random = new Random(4);
        float[] x = gaussian(3000, 8);
        float[] y = new float[x.length];
        for (int i = 0; i < y.length; i++) {
            y[i] = (float) (x[i] * x[i] + 0.3 * random.nextGaussian());
        }
        for (Quantizer q : new Quantizer[] {Quantizer.uniform(2), Quantizer.uniform(100), Quantizer.FLOAT32_BITS}) {
            Estimate e = HistogramInformation.estimate(x, y, q);
            assertTrue(e.mutualInformation() >= 0, q.label() + ": " + e);
            assertTrue(e.mutualInformation() <= Math.min(e.entropyX(), e.entropyY()), q.label() + ": " + e);
            assertTrue(e.jointEntropy() >= Math.max(e.entropyX(), e.entropyY()) - 1e-12, q.label() + ": " + e);
        }
    }

    @Test
    void shouldRejectArraysOfDifferentLengths() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HistogramInformation.estimate(new float[3], new float[5], Quantizer.uniform(4)));
        assertEquals("x and y must be paired, found lengths 3 and 5", e.getMessage());
    }

    @Test
    void shouldRejectEmptyArrays() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HistogramInformation.shuffledControl(new float[0], new float[0], Quantizer.FLOAT32_BITS, 1));
        assertEquals("x and y are empty: an estimate needs at least one pair", e.getMessage());
    }

    @Test
    void shouldRejectFewerThanTwoLevels() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Quantizer.uniform(1));
        assertEquals("levels must be >= 2, got 1", e.getMessage());
    }

    @Test
    void shouldRejectNonFiniteValuesNamingTheIndex() {
        float[] ok = new float[4];
        float[] nan = {0f, 1f, Float.NaN, 2f};
        float[] inf = {0f, 1f, 2f, Float.NEGATIVE_INFINITY};
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HistogramInformation.estimate(ok, nan, Quantizer.FLOAT32_BITS));
        assertEquals("y[2] is NaN: the quantizers need finite values", e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> HistogramInformation.estimate(inf, ok, Quantizer.FLOAT32_BITS));
        assertEquals("x[3] is -Infinity: the quantizers need finite values", e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> HistogramInformation.estimate(nan, ok, Quantizer.uniform(8)));
        assertEquals("x[2] is NaN: the quantizers need finite values", e.getMessage());
    }

    private static float[] gaussian(int n, long seed) {
        Random random = new Random(seed);
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = (float) random.nextGaussian();
        }
        return x;
    }
}

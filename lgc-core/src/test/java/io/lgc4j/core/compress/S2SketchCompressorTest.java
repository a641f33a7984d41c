package io.lgc4j.core.compress;

import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.protocol.Sketch;
import io.lgc4j.core.protocol.SparseSet;
import io.lgc4j.core.sparse.SparseVector;
import io.lgc4j.core.sparse.TopK;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * S2 Reducer's sparse sketch: linear (sketches sum like the selections they hold), unbiased estimates, exact error
 * feedback, exact recovery when the sketch is wide, the same hashes on every rank, and the mean of four ranks.
 */
class S2SketchCompressorTest {
    private static final List<ParamBlock> BLOCKS = List.of(
            new ParamBlock(0, 1, "conv2", "W", 100, 5000, new long[] {5000}, LayerPolicy.LEARNED),
            new ParamBlock(1, 1, "conv2", "b", 5100, 50, new long[] {50}, LayerPolicy.LEARNED),
            new ParamBlock(2, 2, "out", "W", 5150, 3000, new long[] {3000}, LayerPolicy.TOP_K));
    private static final int FLAT = 8150;
    private static final int REGION = 8050;
    private static final long SEED = 0x5EED5EEDL;

    private static float[] gaussian(Random random, int n) {
        float[] g = new float[n];
        for (int i = 0; i < n; i++) {
            g[i] = (float) random.nextGaussian();
        }
        return g;
    }

    /** Gaussian values rounded to multiples of 1/256: every sum of a few hundred of them is exact in float. */
    private static float[] dyadic(Random random, int n) {
        float[] g = new float[n];
        for (int i = 0; i < n; i++) {
            g[i] = Math.round(random.nextGaussian() * 256) / 256f;
        }
        return g;
    }

    /** Element-wise sum of two selections (the union of their supports). */
    private static SparseSet plus(SparseSet a, SparseSet b) {
        List<SparseVector> out = new ArrayList<>();
        for (int blk = 0; blk < a.blocks().size(); blk++) {
            SparseVector x = a.blocks().get(blk);
            SparseVector y = b.blocks().get(blk);
            int[] idx = new int[x.nnz() + y.nnz()];
            float[] val = new float[idx.length];
            int i = 0;
            int j = 0;
            int n = 0;
            while (i < x.nnz() || j < y.nnz()) {
                int xi = i < x.nnz() ? x.indices()[i] : Integer.MAX_VALUE;
                int yj = j < y.nnz() ? y.indices()[j] : Integer.MAX_VALUE;
                idx[n] = Math.min(xi, yj);
                val[n] = (xi == idx[n] ? x.values()[i++] : 0f) + (yj == idx[n] ? y.values()[j++] : 0f);
                n++;
            }
            out.add(new SparseVector(x.length(), Arrays.copyOf(idx, n), Arrays.copyOf(val, n)));
        }
        return new SparseSet(out);
    }

    private static Sketch copy(Sketch s) {
        return new Sketch(s.counters().clone(), s.bitmap().clone());
    }

    /** The selection as a dense region vector (blocks end to end). */
    private static double[] dense(SparseSet set, List<ParamBlock> blocks) {
        double[] out = new double[Compressor.regionLength(blocks)];
        int at = 0;
        for (int b = 0; b < blocks.size(); b++) {
            SparseVector v = set.blocks().get(b);
            for (int j = 0; j < v.nnz(); j++) {
                out[at + v.indices()[j]] += v.values()[j];
            }
            at += blocks.get(b).length();
        }
        return out;
    }

    private static String rejection(Runnable r) {
        return assertThrows(IllegalArgumentException.class, r::run).getMessage();
    }

    @Test
    void shouldSumSketchesExactlyLikeTheSketchOfTheSummedSelections() {
        S2SketchCompressor s2 = new S2SketchCompressor(0.01, 3, 4.0, 8);
        S2CountSketch hashes = s2.countSketch(BLOCKS, SEED);
        SketchCompressor.State rankA = s2.newRank(BLOCKS, SEED);
        SketchCompressor.State rankB = s2.newRank(BLOCKS, SEED);
        GatherCompressor.State selectorA = new TopKCompressor(0.01).newRank(BLOCKS);
        GatherCompressor.State selectorB = new TopKCompressor(0.01).newRank(BLOCKS);
        Random random = new Random(11);
        for (int step = 0; step < 3; step++) {
            float[] common = dyadic(random, FLAT);
            float[] gA = dyadic(random, FLAT);
            float[] gB = dyadic(random, FLAT);
            for (int i = 0; i < FLAT; i++) { // overlapping supports, so some indices are selected by both ranks
                gA[i] += common[i];
                gB[i] += common[i];
            }
            Sketch a = rankA.compress(gA, step);
            Sketch b = rankB.compress(gB, step);
            SparseSet selectedA = selectorA.compress(gA, step);
            SparseSet selectedB = selectorB.compress(gB, step);

            // Each sketch holds exactly its rank's top-k selection ...
            assertArrayEquals(hashes.sketch(selectedA).counters(), a.counters(), "step " + step);
            assertArrayEquals(hashes.sketch(selectedA).bitmap(), a.bitmap(), "step " + step);
            assertArrayEquals(hashes.sketch(selectedB).counters(), b.counters(), "step " + step);
            assertArrayEquals(hashes.sketch(selectedB).bitmap(), b.bitmap(), "step " + step);
            // ... and the sum of the sketches is the sketch of the summed selections (exact: dyadic values).
            Sketch sum = copy(a);
            sum.addInPlace(b);
            Sketch ofSum = hashes.sketch(plus(selectedA, selectedB));
            assertArrayEquals(ofSum.counters(), sum.counters(), "step " + step);
            assertArrayEquals(ofSum.bitmap(), sum.bitmap(), "step " + step);
        }
    }

    @Test
    void shouldSumSketchesOfGaussianSelectionsWithinFloatRounding() {
        S2SketchCompressor s2 = new S2SketchCompressor(0.01, 3, 4.0, 8);
        S2CountSketch hashes = s2.countSketch(BLOCKS, SEED);
        Random random = new Random(12);
        float[] gA = gaussian(random, FLAT);
        float[] gB = gaussian(random, FLAT);
        Sketch sum = s2.newRank(BLOCKS, SEED).compress(gA, 0);
        sum.addInPlace(s2.newRank(BLOCKS, SEED).compress(gB, 0));
        Sketch ofSum = hashes.sketch(plus(new TopKCompressor(0.01).newRank(BLOCKS).compress(gA, 0),
                new TopKCompressor(0.01).newRank(BLOCKS).compress(gB, 0)));
        for (int i = 0; i < sum.counters().length; i++) {
            assertEquals(ofSum.counters()[i], sum.counters()[i], 1e-6 * Math.max(1, Math.abs(sum.counters()[i])),
                    "counter " + i);
        }
        assertArrayEquals(ofSum.bitmap(), sum.bitmap());
    }

    /** Mean error of the raw estimates at a fixed selection over 500 seeds, for {@code rows} rows. */
    private static double[] meanErrorOverSeeds(int rows) {
        List<ParamBlock> blocks = List.of(
                new ParamBlock(0, 0, "fc", "W", 0, 10_000, new long[] {10_000}, LayerPolicy.LEARNED));
        S2SketchCompressor s2 = new S2SketchCompressor(0.01, rows, 4.0, 8);
        Random random = new Random(13);
        int k = TopK.countFor(10_000, 0.01);
        int[] indices = random.ints(0, 10_000).distinct().limit(k).sorted().toArray();
        float[] values = gaussian(random, k);
        double squares = 0;
        for (float v : values) {
            squares += (double) v * v;
        }
        double rms = Math.sqrt(squares / k);
        SparseSet fixed = new SparseSet(List.of(new SparseVector(10_000, indices, values)));
        int seeds = 500;
        double[] errorSum = new double[k];
        double total = 0;
        double totalSquares = 0;
        for (int seed = 0; seed < seeds; seed++) {
            S2CountSketch hashes = s2.countSketch(blocks, 1_000_003L * seed + 7);
            float[] counters = hashes.sketch(fixed).counters();
            for (int j = 0; j < k; j++) {
                double e = hashes.estimate(counters, 0, indices[j]) - values[j];
                errorSum[j] += e;
                total += e;
                totalSquares += e * e;
            }
        }
        double samples = (double) seeds * k;
        double mean = total / samples;
        double sd = Math.sqrt(totalSquares / samples - mean * mean);
        double worstIndexMean = 0;
        for (double e : errorSum) {
            worstIndexMean = Math.max(worstIndexMean, Math.abs(e / seeds));
        }
        return new double[] {mean / rms, sd / rms, worstIndexMean / rms, sd / rms / Math.sqrt(seeds)};
    }

    @Test
    void shouldEstimateSelectedValuesWithoutBiasOverSeeds() {
        for (int rows : new int[] {1, 3}) {
            double[] r = meanErrorOverSeeds(rows);
            System.out.printf("S2 unbiasedness, rows=%d, 500 seeds, k=100 of 10000, 400 columns: mean error %+.5f"
                            + " rms, error sd %.4f rms, worst per-index mean error %.4f rms (standard error of a"
                            + " per-index mean %.4f rms)%n", rows, r[0], r[1], r[2], r[3]);
            // The overall mean averages 50,000 errors: its standard error is about sd / 224.
            assertTrue(Math.abs(r[0]) < 0.01, "rows=" + rows + ": mean error " + r[0] + " rms");
            // No index is biased beyond noise: 5 standard errors of a 500-seed mean.
            assertTrue(r[2] < 5 * r[3], "rows=" + rows + ": worst per-index mean error " + r[2] + " rms");
        }
    }

    @Test
    void shouldKeepExactlyWhatItDidNotSelectInItsMemory() {
        S2SketchCompressor s2 = new S2SketchCompressor(0.01, 3, 4.0, 8);
        SketchCompressor.State rank = s2.newRank(BLOCKS, SEED);
        Random random = new Random(14);
        float[] memory = new float[REGION];
        for (int step = 0; step < 5; step++) {
            float[] g = gaussian(random, FLAT);
            float[] expected = memory.clone();
            int at = 0;
            for (ParamBlock b : BLOCKS) {
                for (int i = 0; i < b.length(); i++) {
                    expected[at + i] += g[b.offset() + i];
                }
                at += b.length();
            }
            float[] compensated = expected.clone();
            rank.compress(g, step);
            memory = rank.residual();
            at = 0;
            for (ParamBlock b : BLOCKS) {
                // Selected: the k entries of largest compensated magnitude; they leave memory, nothing else does.
                int k = s2.count(step, b);
                int[] top = new int[k];
                new TopK().select(compensated, at, at + b.length(), k, top);
                for (int i : top) {
                    expected[at + i] = 0f;
                }
                int zeroed = 0;
                for (int i = 0; i < b.length(); i++) {
                    zeroed += memory[at + i] == 0f && compensated[at + i] != 0f ? 1 : 0;
                }
                assertEquals(k, zeroed, b.qualifiedName() + ", step " + step);
                at += b.length();
            }
            assertArrayEquals(expected, memory, "memory = compensated input - selected, step " + step);
        }
    }

    @Test
    void shouldRecoverTheSelectionWhenTheSketchIsWideAndOneRankSends() {
        for (int groupSize : new int[] {1, 8, 16}) {
            S2SketchCompressor s2 = new S2SketchCompressor(0.01, 3, 64.0, groupSize);
            SketchCompressor.State rank = s2.newRank(BLOCKS, SEED);
            GatherCompressor.State reference = new TopKCompressor(0.01).newRank(BLOCKS);
            Random random = new Random(15);
            for (int step = 0; step < 3; step++) {
                float[] g = gaussian(random, FLAT);
                SparseSet decoded = rank.decompress(rank.compress(g, step), 1, step);
                SparseSet selected = reference.compress(g, step);
                for (int b = 0; b < BLOCKS.size(); b++) {
                    SparseVector want = selected.blocks().get(b);
                    SparseVector got = decoded.blocks().get(b);
                    String where = BLOCKS.get(b).qualifiedName() + ", groupSize " + groupSize + ", step " + step;
                    assertArrayEquals(want.indices(), got.indices(), where);
                    assertArrayEquals(want.values(), got.values(), 1e-6f, where);
                }
            }
        }
    }

    @Test
    void shouldGiveAnEmptyBlockNoCountersNoBitmapAndNoEntries() {
        List<ParamBlock> blocks = List.of(
                new ParamBlock(0, 0, "a", "W", 0, 100, new long[] {100}, LayerPolicy.LEARNED),
                new ParamBlock(1, 0, "a", "b", 100, 0, new long[] {0}, LayerPolicy.LEARNED),
                new ParamBlock(2, 1, "c", "W", 100, 64, new long[] {64}, LayerPolicy.LEARNED));
        S2SketchCompressor s2 = new S2SketchCompressor(0.05, 3, 16.0, 8);
        SketchCompressor.State rank = s2.newRank(blocks, SEED);
        Sketch sketch = rank.compress(gaussian(new Random(19), 164), 0);
        // k = 5, 0, 4: 3 × (80 + 0 + 64) counters; 1 + 0 + 1 bitmap words.
        assertEquals(432, sketch.counters().length);
        assertEquals(2, sketch.bitmap().length);
        SparseSet mean = rank.decompress(sketch, 1, 0);
        assertEquals(List.of(5, 0, 4), mean.blocks().stream().map(SparseVector::nnz).toList());
        assertEquals(0, mean.blocks().get(1).length());
    }

    @Test
    void shouldBuildIdenticalSketchesOnRanksWithTheSameSeed() {
        S2SketchCompressor s2 = new S2SketchCompressor(0.01, 3, 4.0, 8);
        SketchCompressor.State one = s2.newRank(BLOCKS, SEED);
        SketchCompressor.State two = s2.newRank(BLOCKS, SEED);
        SketchCompressor.State other = s2.newRank(BLOCKS, SEED + 1);
        Random random = new Random(16);
        for (int step = 0; step < 3; step++) {
            float[] g = gaussian(random, FLAT);
            Sketch a = one.compress(g, step);
            Sketch b = two.compress(g, step);
            Sketch c = other.compress(g, step);
            assertArrayEquals(a.counters(), b.counters(), "step " + step);
            assertArrayEquals(a.bitmap(), b.bitmap(), "step " + step);
            assertEquals(one.decompress(a, 1, step), two.decompress(b, 1, step), "step " + step);
            assertFalse(Arrays.equals(a.counters(), c.counters()), "another seed, other hashes");
            assertArrayEquals(a.bitmap(), c.bitmap(), "the bitmap does not depend on the seed");
        }
    }

    @Test
    void shouldRejectOutOfRangeSettingsNamingThem() {
        assertEquals("ratio must be > 0, found 0.0", rejection(() -> new S2SketchCompressor(0, 3, 4, 8)));
        assertEquals("ratio must be <= 1.0, found 1.5", rejection(() -> new S2SketchCompressor(1.5, 3, 4, 8)));
        assertEquals("rows must be odd, found 2", rejection(() -> new S2SketchCompressor(0.01, 2, 4, 8)));
        assertEquals("rows must be >= 1, found -1",
                rejection(() -> new S2SketchCompressor(0.01, -1, 4, 8)));
        assertEquals("columnsPerSelected must be > 0, found 0.0",
                rejection(() -> new S2SketchCompressor(0.01, 3, 0, 8)));
        assertEquals("columnsPerSelected must be > 0, found NaN",
                rejection(() -> new S2SketchCompressor(0.01, 3, Double.NaN, 8)));
        assertEquals("columnsPerSelected must be finite, found Infinity",
                rejection(() -> new S2SketchCompressor(0.01, 3, Double.POSITIVE_INFINITY, 8)));
        assertEquals("groupSize must be >= 1, found 0", rejection(() -> new S2SketchCompressor(0.01, 3, 4, 0)));
    }

    @Test
    void shouldRejectASketchOfAnotherShapeOrNoWorkers() {
        S2SketchCompressor s2 = new S2SketchCompressor(0.01, 3, 4.0, 8);
        SketchCompressor.State rank = s2.newRank(BLOCKS, SEED);
        Sketch own = rank.compress(new float[FLAT], 0);
        assertEquals("workers must be >= 1, found 0", rejection(() -> rank.decompress(own, 0, 0)));
        // 3 rows × (200 + 4 + 120) columns; 10 + 1 + 6 bitmap words (625, 7 and 375 groups of 8).
        assertEquals("sketch of 972 counters and 2 bitmap words does not match the layout's 972 counters and 17"
                        + " bitmap words",
                rejection(() -> rank.decompress(new Sketch(new float[972], new long[2]), 1, 0)));
        long[] stray = new long[own.bitmap().length];
        stray[10] = 1L << 7; // block conv2/b starts at word 10 and has 7 groups: bits 0..6
        assertEquals("bitmap bit 7 of block conv2/b is past its 7 groups",
                rejection(() -> rank.decompress(new Sketch(own.counters(), stray), 1, 0)));
    }

    @Test
    void shouldDescribeItselfAsASummableSketch() {
        S2SketchCompressor s2 = new S2SketchCompressor(0.001, 3, 4.0, 8);
        assertEquals("s2", s2.name());
        assertTrue(s2.summable());
        assertEquals(0.001, s2.density(7, BLOCKS.get(0)));
        assertEquals("s2(ratio=0.001, rows=3, columnsPerSelected=4.0, groupSize=8)", s2.toString());
    }

    @Test
    void shouldSizeTheLeNetPayloadByTheSelectionAndTheBitmap() {
        List<ParamBlock> lenet = List.of(
                new ParamBlock(0, 0, "conv2", "W", 0, 25_000, new long[] {25_000}, LayerPolicy.LEARNED),
                new ParamBlock(1, 1, "fc1", "W", 25_000, 400_000, new long[] {400_000}, LayerPolicy.LEARNED),
                new ParamBlock(2, 2, "fc2", "W", 425_000, 5_000, new long[] {5_000}, LayerPolicy.LEARNED));
        S2SketchCompressor s2 = new S2SketchCompressor(0.001, 3, 4.0, 8);
        // k = 25, 400, 5; columns = 100, 1600, 20; counters = 3 × 1720 = 5160 (20,640 bytes);
        // bitmap words = ceil(3125 / 64) + ceil(50000 / 64) + ceil(625 / 64) = 49 + 782 + 10 = 841 (6,728 bytes).
        assertEquals(27_368, s2.payloadBytes(lenet));
        Sketch sketch = s2.newRank(lenet, SEED).compress(gaussian(new Random(17), 430_000), 0);
        assertEquals(5160, sketch.counters().length);
        assertEquals(841, sketch.bitmap().length);
        int selected = 25 + 400 + 5;
        System.out.printf("S2 payload for LeNet-5-like blocks (25k, 400k, 5k; ratio 0.001, rows 3, 4 columns per"
                        + " selected, groups of 8): %d bytes (counters %d, bitmap %d); top-k: %d entries x 8 = %d"
                        + " bytes%n", s2.payloadBytes(lenet), 4 * sketch.counters().length,
                8 * sketch.bitmap().length, selected, 8 * selected);
    }

    /**
     * S2's plain query as a decoder, for comparison: the median over rows at every candidate of the summed bitmap,
     * then the {@code min(candidates, workers · k)} largest per block, divided by {@code workers}.
     */
    private static double[] plainMedianMean(S2CountSketch hashes, Sketch sum, List<ParamBlock> blocks, int workers) {
        S2SketchLayout layout = hashes.layout();
        double[] out = new double[Compressor.regionLength(blocks)];
        int at = 0;
        for (int b = 0; b < blocks.size(); b++) {
            int length = blocks.get(b).length();
            List<Integer> candidates = new ArrayList<>();
            for (int i = 0; i < length; i++) {
                int group = i / layout.groupSize();
                if ((sum.bitmap()[layout.bitmapStart(b) + group / 64] >>> (group % 64) & 1L) != 0) {
                    candidates.add(i);
                }
            }
            float[] estimates = new float[candidates.size()];
            for (int j = 0; j < estimates.length; j++) {
                estimates[j] = hashes.estimate(sum.counters(), b, candidates.get(j));
            }
            int keep = Math.min(estimates.length, workers * layout.selected(b));
            int[] kept = new int[keep];
            new TopK().select(estimates, 0, estimates.length, keep, kept);
            for (int j : kept) {
                out[at + candidates.get(j)] = estimates[j] / workers;
            }
            at += length;
        }
        return out;
    }

    private static double relativeL2(double[] estimate, double[] exact) {
        double diff = 0;
        double norm = 0;
        for (int i = 0; i < exact.length; i++) {
            diff += (estimate[i] - exact[i]) * (estimate[i] - exact[i]);
            norm += exact[i] * exact[i];
        }
        return Math.sqrt(diff / norm);
    }

    /**
     * Four ranks with correlated gradients (a shared signal plus half as much noise of their own), error feedback
     * running: per step, the relative L2 error of the decompressed mean against the exact mean of the four selected
     * vectors, {@code [0][step]} for this decoder and {@code [1][step]} for the plain median decoder.
     */
    private static double[][] fourRankErrors(int rows, double columnsPerSelected, int groupSize, int steps) {
        List<ParamBlock> blocks = List.of(
                new ParamBlock(0, 0, "conv2", "W", 0, 25_000, new long[] {25_000}, LayerPolicy.LEARNED),
                new ParamBlock(1, 1, "fc1", "W", 25_000, 40_000, new long[] {40_000}, LayerPolicy.LEARNED),
                new ParamBlock(2, 2, "fc2", "W", 65_000, 5_000, new long[] {5_000}, LayerPolicy.LEARNED));
        int flat = 70_000;
        int workers = 4;
        S2SketchCompressor s2 = new S2SketchCompressor(0.01, rows, columnsPerSelected, groupSize);
        S2CountSketch hashes = s2.countSketch(blocks, SEED);
        List<SketchCompressor.State> ranks = new ArrayList<>();
        List<GatherCompressor.State> references = new ArrayList<>();
        for (int r = 0; r < workers; r++) {
            ranks.add(s2.newRank(blocks, SEED));
            references.add(new TopKCompressor(0.01).newRank(blocks));
        }
        Random random = new Random(18);
        double[][] errors = new double[2][steps];
        for (int step = 0; step < steps; step++) {
            float[] common = gaussian(random, flat);
            Sketch sum = null;
            double[] exact = new double[flat];
            for (int r = 0; r < workers; r++) {
                float[] g = gaussian(random, flat);
                for (int i = 0; i < flat; i++) {
                    g[i] = common[i] + 0.5f * g[i];
                }
                Sketch own = ranks.get(r).compress(g, step);
                if (sum == null) {
                    sum = copy(own);
                } else {
                    sum.addInPlace(own);
                }
                double[] selected = dense(references.get(r).compress(g, step), blocks);
                for (int i = 0; i < flat; i++) {
                    exact[i] += selected[i] / workers;
                }
            }
            SparseSet mean = ranks.get(0).decompress(sum, workers, step);
            assertEquals(mean, ranks.get(3).decompress(sum, workers, step), "every rank decodes the same");
            errors[0][step] = relativeL2(dense(mean, blocks), exact);
            errors[1][step] = relativeL2(plainMedianMean(hashes, sum, blocks, workers), exact);
        }
        return errors;
    }

    private static double worst(double[] errors) {
        return Arrays.stream(errors).max().orElseThrow();
    }

    private static String rounded(double[] errors) {
        return Arrays.toString(Arrays.stream(errors).map(e -> Math.round(e * 1e3) / 1e3).toArray());
    }

    @Test
    void shouldEstimateTheMeanOfFourCorrelatedRanks() {
        int[][] configs = {{3, 4, 8}, {3, 4, 16}, {3, 8, 8}, {5, 4, 8}, {3, 16, 8}, {1, 4, 8}};
        for (int[] c : configs) {
            double[][] errors = fourRankErrors(c[0], c[1], c[2], 10);
            System.out.printf("S2 K=4 relative L2 error of the mean over 10 steps, rows=%d columnsPerSelected=%d"
                            + " groupSize=%d: peeling decoder %s (worst %.3f); plain median decoder %s (worst %.3f)%n",
                    c[0], c[1], c[2], rounded(errors[0]), worst(errors[0]), rounded(errors[1]), worst(errors[1]));
            if (c == configs[0]) {
                // 12 floats per selected entry for up to 4 supports: the error grows as the residuals drift apart
                // and the union of supports grows, but stays well below the plain decoder's (about 1).
                assertTrue(worst(errors[0]) < 0.75, "relative L2 errors " + Arrays.toString(errors[0]));
                for (int step = 0; step < errors[0].length; step++) {
                    assertTrue(errors[0][step] < errors[1][step] / 1.5, "step " + step + ": peeling "
                            + errors[0][step] + " vs plain median " + errors[1][step]);
                }
            }
        }
    }

    @Test
    void shouldDecodeTheExactMeanOfFourRanksWhenTheSketchPeelsCompletely() {
        // 5 rows × 4 columns, or 3 rows × 16 columns, per selected entry: peeling certifies every selected entry.
        for (double[] errors : new double[][] {fourRankErrors(5, 4.0, 8, 3)[0], fourRankErrors(3, 16.0, 8, 3)[0]}) {
            assertTrue(worst(errors) < 1e-6, Arrays.toString(errors));
        }
    }
}

package io.lgc4j.core.sparse;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TopKTest {

    /** The selection a full sort by (|v| descending, index ascending) makes, as ascending indices from {@code from}. */
    static int[] reference(float[] values, int from, int to, int k) {
        int n = to - from;
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) {
            int bits = Float.floatToIntBits(Math.abs(values[from + i])); // +0.0 for -0.0
            keys[i] = ((long) (Integer.MAX_VALUE - bits) << 32) | i;
        }
        Arrays.sort(keys);
        int count = Math.min(k, n);
        int[] picked = new int[count];
        for (int i = 0; i < count; i++) {
            picked[i] = (int) keys[i];
        }
        Arrays.sort(picked);
        return picked;
    }

    private static int[] select(TopK topK, float[] values, int from, int to, int k) {
        int[] out = new int[Math.min(k, to - from) + 3];
        Arrays.fill(out, -7);
        int count = topK.select(values, from, to, k, out);
        assertEquals(Math.min(k, to - from), count);
        assertEquals(-7, out[count], "wrote past count");
        return Arrays.copyOf(out, count);
    }

    private enum Shape {
        GAUSSIAN, HEAVY_TAILED, ALL_EQUAL, MANY_TIES, NEGATIVE, MOSTLY_ZERO, SIGNED_ZEROS, LAYERED
    }

    private static float[] values(Shape shape, int length, SplittableRandom random) {
        float[] v = new float[length];
        for (int i = 0; i < length; i++) {
            double g = gaussian(random);
            v[i] = switch (shape) {
                case GAUSSIAN -> (float) g;
                case HEAVY_TAILED -> (float) Math.tan(Math.PI * (random.nextDouble() - 0.5)); // Cauchy
                case ALL_EQUAL -> -0.25f;
                case MANY_TIES -> random.nextInt(7) - 3;
                case NEGATIVE -> (float) -Math.abs(g);
                case MOSTLY_ZERO -> random.nextInt(2000) == 0 ? (float) g : 0f;
                case SIGNED_ZEROS -> random.nextInt(50) == 0 ? (float) g : (random.nextBoolean() ? 0f : -0f);
                // Blocks of very different scale, like the layers of a flattened gradient.
                case LAYERED -> (float) (g * Math.pow(10, (i / 5000) % 4 - 2));
            };
        }
        return v;
    }

    private static double gaussian(SplittableRandom random) {
        double u = 1.0 - random.nextDouble();
        return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random.nextDouble());
    }

    @Test
    void shouldMatchTheSortReferenceOnRandomInputsOfEveryShapeSizeAndK() {
        SplittableRandom random = new SplittableRandom(42);
        TopK topK = new TopK();
        Set<TopK.Path> paths = EnumSet.noneOf(TopK.Path.class);
        int[] sizes = {1, 2, 3, 17, 255, 256, 257, 4095, 4096, 4097, 32767, 32768, 40_000, 100_000};
        int cases = 0;
        for (int n : sizes) {
            for (Shape shape : Shape.values()) {
                int[] ks = {1, 2, n / 1000, n / 100, n / 7, n / 2, n - 1, n, n + 5, 1 + random.nextInt(n)};
                for (int k : ks) {
                    if (k < 1) {
                        continue;
                    }
                    // A range not starting at 0, with NaNs around it that must never be read.
                    int from = random.nextInt(300);
                    float[] padded = new float[from + n + random.nextInt(300)];
                    Arrays.fill(padded, Float.NaN);
                    System.arraycopy(values(shape, n, random), 0, padded, from, n);
                    int[] expected = reference(padded, from, from + n, k);
                    assertArrayEquals(expected, select(topK, padded, from, from + n, k),
                            () -> shape + " n=" + n + " k=" + k + " from=" + from);
                    paths.add(topK.lastPath());
                    cases++;
                }
            }
        }
        assertTrue(cases > 900, "cases=" + cases);
        assertTrue(paths.containsAll(EnumSet.of(TopK.Path.TRIVIAL, TopK.Path.DIRECT, TopK.Path.SAMPLED)),
                paths::toString);
    }

    @Test
    void shouldMatchTheReferenceForTheDefaultRatioOnAMillionGaussians() {
        SplittableRandom random = new SplittableRandom(7);
        float[] v = values(Shape.GAUSSIAN, 1_000_000, random);
        int k = TopK.countFor(v.length, 0.001);
        TopK topK = new TopK();
        assertArrayEquals(reference(v, 0, v.length, k), select(topK, v, 0, v.length, k));
        assertEquals(TopK.Path.SAMPLED, topK.lastPath());
    }

    @Test
    void shouldRetryWithALowerThresholdWhenTheFirstFindsTooFew() {
        float[] v = values(Shape.GAUSSIAN, 100_000, new SplittableRandom(3));
        TopK topK = new TopK();
        int[] out = new int[100];
        int count = topK.selectWithFirstThreshold(v, 0, v.length, 100, out, Float.POSITIVE_INFINITY);
        assertEquals(TopK.Path.RETRIED, topK.lastPath());
        assertArrayEquals(reference(v, 0, v.length, 100), Arrays.copyOf(out, count));
    }

    @Test
    void shouldRetryWithAHigherThresholdWhenTheFirstOverflowsTheCandidates() {
        float[] v = values(Shape.HEAVY_TAILED, 100_000, new SplittableRandom(4));
        TopK topK = new TopK();
        int[] out = new int[100];
        int count = topK.selectWithFirstThreshold(v, 0, v.length, 100, out, 0f);
        assertEquals(TopK.Path.RETRIED, topK.lastPath());
        assertArrayEquals(reference(v, 0, v.length, 100), Arrays.copyOf(out, count));
    }

    @Test
    void shouldFallBackToAFullQuickselectWhenTheSampleIsUnrepresentative() {
        // Large magnitudes exactly where the sample looks, small ones everywhere else: both thresholds find too few.
        int n = 100_000;
        int k = 1000;
        int from = 11;
        SplittableRandom random = new SplittableRandom(5);
        float[] v = new float[from + n];
        for (int i = 0; i < n; i++) {
            v[from + i] = (float) gaussian(random);
        }
        int runs = TopK.sampleRuns(n, k);
        for (int run = 0; run < runs; run++) {
            int start = TopK.sampleRunStart(n, runs, run);
            for (int j = 0; j < TopK.RUN; j++) {
                v[from + start + j] = 100f + random.nextInt(10);
            }
        }
        TopK topK = new TopK();
        assertArrayEquals(reference(v, from, from + n, k), select(topK, v, from, from + n, k));
        assertEquals(TopK.Path.FULL_SELECT, topK.lastPath());
    }

    @Test
    void shouldBreakTiesAtTheThresholdByLowerIndex() {
        float[] v = {1f, -3f, 2f, 3f, -2f, 2f, 0f, -2f};
        TopK topK = new TopK();
        assertArrayEquals(new int[] {1, 2, 3}, select(topK, v, 0, v.length, 3));
        assertArrayEquals(new int[] {1, 2, 3, 4}, select(topK, v, 0, v.length, 4));
        assertArrayEquals(new int[] {0, 1, 2}, select(topK, v, 1, v.length, 3)); // relative to from = 1
    }

    @Test
    void shouldBreakTiesByLowerIndexOnTheSampledPath() {
        // Every magnitude is 1 or 2; the k-th largest is 1, so the first ones win.
        int n = 200_000;
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = i % 1000 == 999 ? -2f : 1f;
        }
        int k = 500;
        TopK topK = new TopK();
        int[] picked = select(topK, v, 0, n, k);
        assertEquals(TopK.Path.SAMPLED, topK.lastPath());
        int[] expected = new int[k];
        int twos = n / 1000;
        for (int i = 0; i < twos; i++) {
            expected[i] = i * 1000 + 999;
        }
        for (int i = twos; i < k; i++) {
            expected[i] = i - twos;
        }
        Arrays.sort(expected);
        assertArrayEquals(expected, picked);
    }

    @Test
    void shouldRankInfinitiesAboveEveryFiniteMagnitude() {
        SplittableRandom random = new SplittableRandom(23);
        float[] v = values(Shape.HEAVY_TAILED, 100_000, random);
        v[70_001] = Float.NEGATIVE_INFINITY;
        v[3] = Float.POSITIVE_INFINITY;
        v[99_999] = Float.POSITIVE_INFINITY;
        TopK topK = new TopK();
        assertArrayEquals(new int[] {3, 70_001}, select(topK, v, 0, v.length, 2));
        assertArrayEquals(reference(v, 0, v.length, 100), select(topK, v, 0, v.length, 100));
    }

    @Test
    void shouldReturnTheSameIndicesEveryTimeAndFromEveryInstance() {
        SplittableRandom random = new SplittableRandom(9);
        float[] big = values(Shape.MANY_TIES, 300_000, random);
        float[] small = values(Shape.GAUSSIAN, 50_000, random);
        TopK reused = new TopK();
        int[] first = select(reused, big, 5, big.length, 300);
        select(reused, small, 0, small.length, 40_000); // grows and dirties the scratch
        assertArrayEquals(first, select(reused, big, 5, big.length, 300));
        assertArrayEquals(first, select(new TopK(), big, 5, big.length, 300));
    }

    @Test
    void shouldHandleKZeroAndKAtLeastTheLength() {
        float[] v = {3f, -1f, 2f};
        TopK topK = new TopK();
        int[] out = {-1, -1, -1, -1};
        assertEquals(0, topK.select(v, 0, 3, 0, out));
        assertArrayEquals(new int[] {-1, -1, -1, -1}, out);
        assertEquals(3, topK.select(v, 0, 3, 3, out));
        assertArrayEquals(new int[] {0, 1, 2, -1}, out);
        assertEquals(2, topK.select(v, 1, 3, 10, out));
        assertArrayEquals(new int[] {0, 1}, Arrays.copyOf(out, 2));
        assertEquals(0, topK.select(v, 2, 2, 5, new int[0]));
    }

    @Test
    void shouldRejectNaNNamingItsIndexOnEveryPath() {
        TopK topK = new TopK();
        SplittableRandom random = new SplittableRandom(11);
        int n = 100_000;
        int runs = TopK.sampleRuns(n, 100);
        int sampled = 10 + TopK.sampleRunStart(n, runs, 3) + 5;
        // {NaN position, k}: in the sample; missed by the sample (found by the scan); in the scalar tail; on the
        // small-range path; on the k >= n path.
        int[][] cases = {{sampled, 100}, {sampled + 300, 100}, {10 + n - 3, 100}, {10 + 200, 10}, {10 + 5, n}};
        for (int[] c : cases) {
            int nanAt = c[0];
            int k = c[1];
            float[] v = new float[10 + n];
            for (int i = 0; i < v.length; i++) {
                v[i] = (float) gaussian(random);
            }
            v[nanAt] = Float.NaN;
            int to = k == 10 ? 10 + 1000 : 10 + n;
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> topK.select(v, 10, to, k, new int[k]));
            assertEquals("values[" + nanAt + "] is NaN", e.getMessage());
        }
    }

    @Test
    void shouldIgnoreNaNWhenKIsZero() {
        assertEquals(0, new TopK().select(new float[] {Float.NaN}, 0, 1, 0, new int[0]));
    }

    @Test
    void shouldSelectFromEveryKindOfFloatBufferWhatItSelectsFromTheArray() {
        SplittableRandom random = new SplittableRandom(13);
        TopK topK = new TopK();
        for (int n : new int[] {1000, 70_000}) {
            float[] v = values(Shape.HEAVY_TAILED, n, random);
            int from = 7;
            int to = n - 3;
            int k = n / 100;
            int[] expected = select(topK, v, from, to, k);

            FloatBuffer direct = ByteBuffer.allocateDirect(4 * n).order(ByteOrder.nativeOrder()).asFloatBuffer();
            direct.put(v).position(123);
            FloatBuffer bigEndian = ByteBuffer.allocateDirect(4 * n).order(ByteOrder.BIG_ENDIAN).asFloatBuffer();
            bigEndian.put(v).flip();
            float[] shifted = new float[n + 5];
            System.arraycopy(v, 0, shifted, 5, n);
            FloatBuffer heapSlice = FloatBuffer.wrap(shifted, 5, n).slice(); // arrayOffset() == 5
            FloatBuffer readOnly = FloatBuffer.wrap(v).asReadOnlyBuffer();
            for (FloatBuffer buffer : new FloatBuffer[] {direct, bigEndian, heapSlice, readOnly}) {
                int position = buffer.position();
                int[] out = new int[k];
                assertEquals(k, topK.select(buffer, from, to, k, out));
                assertArrayEquals(expected, out, buffer.toString());
                assertEquals(position, buffer.position());
            }
        }
    }

    @Test
    void shouldNameTheBufferIndexOfANaN() {
        float[] shifted = new float[50_005];
        Arrays.fill(shifted, 1f);
        shifted[5 + 40_000] = Float.NaN;
        FloatBuffer heapSlice = FloatBuffer.wrap(shifted, 5, 50_000).slice();
        FloatBuffer direct = ByteBuffer.allocateDirect(4 * 50_000).order(ByteOrder.nativeOrder()).asFloatBuffer();
        direct.put(heapSlice.duplicate());
        for (FloatBuffer buffer : new FloatBuffer[] {heapSlice, direct}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> new TopK().select(buffer, 0, 50_000, 10, new int[10]));
            assertEquals("values[40000] is NaN", e.getMessage());
        }
    }

    @Test
    void shouldRejectBadArgumentsNamingTheValues() {
        TopK topK = new TopK();
        float[] v = new float[10];
        assertEquals("from=3, to=2: need 0 <= from <= to <= values.length=10", assertThrows(
                IllegalArgumentException.class, () -> topK.select(v, 3, 2, 1, new int[1])).getMessage());
        assertEquals("from=0, to=11: need 0 <= from <= to <= values.length=10", assertThrows(
                IllegalArgumentException.class, () -> topK.select(v, 0, 11, 1, new int[1])).getMessage());
        assertEquals("from=0, to=11: need 0 <= from <= to <= values.limit()=10", assertThrows(
                IllegalArgumentException.class,
                () -> topK.select(FloatBuffer.wrap(v), 0, 11, 1, new int[1])).getMessage());
        assertEquals("k=-1 must be >= 0", assertThrows(
                IllegalArgumentException.class, () -> topK.select(v, 0, 10, -1, new int[1])).getMessage());
        assertEquals("out.length=4 < count=5 (k=5, to - from=10)", assertThrows(
                IllegalArgumentException.class, () -> topK.select(v, 0, 10, 5, new int[4])).getMessage());
    }

    @Test
    void shouldCountTheShareOfARangeAsADecimalRatio() {
        assertEquals(1000, TopK.countFor(1_000_000, 0.001));
        assertEquals(25_000, TopK.countFor(25_000_000, 0.001));
        assertEquals(3, TopK.countFor(30, 0.1));
        assertEquals(2, TopK.countFor(1001, 0.001));
        assertEquals(1, TopK.countFor(5, 0.001));
        assertEquals(10, TopK.countFor(10, 1.0));
        assertEquals(0, TopK.countFor(0, 0.5));
        assertEquals("ratio=0.0 must be in (0, 1]", assertThrows(
                IllegalArgumentException.class, () -> TopK.countFor(10, 0.0)).getMessage());
        assertEquals("ratio=1.5 must be in (0, 1]", assertThrows(
                IllegalArgumentException.class, () -> TopK.countFor(10, 1.5)).getMessage());
        assertEquals("ratio=NaN must be in (0, 1]", assertThrows(
                IllegalArgumentException.class, () -> TopK.countFor(10, Double.NaN)).getMessage());
        assertEquals("length=-1 must be >= 0", assertThrows(
                IllegalArgumentException.class, () -> TopK.countFor(-1, 0.5)).getMessage());
    }

    @Test
    void shouldFindTheKthLargestAndCountTheGreaterWithRadixSelect() {
        SplittableRandom random = new SplittableRandom(17);
        TopK topK = new TopK();
        for (int n = 1; n < 300; n += 7) {
            float[] a = new float[n];
            for (int i = 0; i < n; i++) {
                a[i] = n % 3 == 0 ? random.nextInt(4) : (float) Math.abs(gaussian(random) * 1e3);
            }
            float[] original = a.clone();
            float[] sorted = a.clone();
            Arrays.sort(sorted);
            for (int k = 1; k <= n; k += 5) {
                float kth = topK.kthLargest(a, n, k);
                assertEquals(sorted[n - k], kth, "n=" + n + " k=" + k);
                int greater = 0;
                for (float x : a) {
                    greater += x > kth ? 1 : 0;
                }
                assertEquals(greater, topK.kthGreater(), "n=" + n + " k=" + k);
                assertArrayEquals(original, a);
            }
        }
    }

    @Test
    void shouldAllocateNothingOnceTheScratchHasGrown() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().getId();
        SplittableRandom random = new SplittableRandom(19);
        float[] v = values(Shape.GAUSSIAN, 300_000, random);
        FloatBuffer direct = ByteBuffer.allocateDirect(4 * v.length).order(ByteOrder.nativeOrder()).asFloatBuffer();
        direct.put(v);
        TopK topK = new TopK();
        int[] out = new int[300];
        // Early rounds may allocate while the JIT settles (class loading, deoptimisation); a settled round must not.
        long fewest = Long.MAX_VALUE;
        for (int round = 0; round < 10; round++) {
            long start = threads.getThreadAllocatedBytes(thread);
            for (int i = 0; i < 20; i++) {
                topK.select(v, 0, v.length, 300, out);
                topK.select(direct, 0, v.length, 300, out);
            }
            fewest = Math.min(fewest, threads.getThreadAllocatedBytes(thread) - start);
        }
        assertEquals(0, fewest, "bytes allocated by 40 selections in the quietest round");
    }
}

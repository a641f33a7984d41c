package io.lgc4j.core.sparse;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.FloatBuffer;
import java.util.Objects;

/**
 * Exact top-k selection by magnitude: the {@code k} entries of largest {@code |value|} in a range of a
 * {@code float[]} or {@link FloatBuffer}, as indices in ascending order, in expected linear time and without sorting
 * the data.
 *
 * <p>The result is exactly what a full sort by ({@code |v|} descending, index ascending) would pick: ties at the
 * threshold go to the lower indices, so the selection is deterministic. {@code -0.0f} and {@code 0.0f} have the same
 * magnitude. A NaN anywhere in the range is rejected with an {@link IllegalArgumentException} naming its index
 * (whenever {@code k > 0}).
 *
 * <p>How: a deterministic sample of {@code |v|} (runs of 16 floats spread evenly over the range) gives a threshold a
 * little below the expected k-th largest magnitude. One pass over the data collects, in index order, the entries
 * strictly above it and the first {@code k} entries equal to it; the pass copies rows of 256 floats into a scratch
 * row and keeps per-column maxima, which C2 vectorizes, and only re-reads the few columns whose maximum reaches the
 * threshold. A quickselect over the few candidates then finds the exact k-th largest magnitude. When the sample
 * misses (too few candidates, or more than the scratch bound), one retry uses a lower or higher sample order
 * statistic, and the last resort is a quickselect over a copy of all magnitudes followed by the same pass.
 *
 * <p>An instance holds scratch buffers, so after the first calls of a given size selection allocates nothing. It is
 * not thread-safe: use one per thread. The scratch grows with the largest {@code k} and candidate count seen (up to
 * a few floats and ints per entry of the range for a large {@code k / n}, or after a fallback).
 *
 * <pre>{@code
 * TopK topK = new TopK();                          // one per thread, reused every step
 * int k = TopK.countFor(to - from, 0.001);         // 0.1 % of the block
 * int[] indices = new int[k];
 * int count = topK.select(gradient, from, to, k, indices);
 * SparseVector sent = SparseVector.gather(gradient, from, to, indices, count);
 * }</pre>
 */
public final class TopK {

    /** Floats per row of the scan; the column maxima of a chunk live in one row-sized scratch array. */
    static final int ROW = 256;
    /** Rows per chunk: a column is re-read when one of its {@code ROWS} entries reaches the threshold. */
    static final int ROWS = 16;
    /** Floats per sample run (one cache line when aligned). */
    static final int RUN = 16;
    /** Fewest sample entries worth drawing; smaller ranges go straight to the full quickselect. */
    static final int MIN_SAMPLE = 1024;
    /** Sample entries expected above the k-th largest magnitude (the sample size is {@code ~16 n / k}). */
    private static final double SAMPLE_HITS = 16.0;
    /** Largest share of the range sampled: 1 / 32. */
    private static final int SAMPLE_DIVISOR = 32;
    /** Below this many elements, skip the sample and quickselect all magnitudes. */
    static final int MIN_SAMPLED_LENGTH = MIN_SAMPLE * SAMPLE_DIVISOR;
    private static final int SMALL = 16;

    /** How the last selection found its threshold; package-private for tests. */
    enum Path {
        /** k == 0 or k >= n: nothing to select. */
        TRIVIAL,
        /** Small range: quickselect over all magnitudes. */
        DIRECT,
        /** The first sampled threshold was good. */
        SAMPLED,
        /** The first threshold missed; the adjusted one was good. */
        RETRIED,
        /** Both thresholds missed: quickselect over all magnitudes. */
        FULL_SELECT
    }

    private final float[] row = new float[ROW];
    private final float[] columnMax = new float[ROW];
    private final int[] hotColumns = new int[ROW];
    private float[] sample = new float[0];
    private int[] aboveIndex = new int[0];
    private float[] aboveMagnitude = new float[0];
    private int[] tieIndex = new int[0];
    private float[] selectScratch = new float[0];
    private final ArraySource arraySource = new ArraySource();
    private final BufferSource bufferSource = new BufferSource();

    /** Entries strictly above the threshold found by the last scan ({@code -1} after an overflow). */
    private int aboveCount;
    /** Entries equal to the threshold seen by the last scan (only the first {@code tieCapacity} are stored). */
    private int tieCount;
    private Path lastPath = Path.TRIVIAL;

    /** Creates a selector with empty scratch; buffers grow on first use. */
    public TopK() {
    }

    /**
     * The number of entries to keep for a ratio: {@code max(1, ceil(ratio * length))} for {@code length > 0}, and 0
     * for an empty range. The ratio is read as its shortest decimal form, so {@code countFor(30, 0.1) == 3} (binary
     * rounding would give 4).
     *
     * @param length entries in the range, {@code >= 0}
     * @param ratio  share to keep, in {@code (0, 1]}; {@code 0.001} keeps 0.1 %
     */
    public static int countFor(int length, double ratio) {
        if (length < 0) {
            throw new IllegalArgumentException("length=" + length + " must be >= 0");
        }
        if (!(ratio > 0.0 && ratio <= 1.0)) {
            throw new IllegalArgumentException("ratio=" + ratio + " must be in (0, 1]");
        }
        if (length == 0) {
            return 0;
        }
        int count = BigDecimal.valueOf(ratio).multiply(BigDecimal.valueOf(length))
                .setScale(0, RoundingMode.CEILING).intValueExact();
        return Math.max(1, count);
    }

    /**
     * Selects the {@code k} entries of largest magnitude in {@code values[from, to)}.
     *
     * @param out receives the selected indices, relative to {@code from} and ascending, in {@code out[0, count)};
     *            needs room for {@code min(k, to - from)}
     * @return {@code count = min(k, to - from)}
     * @throws IllegalArgumentException on a bad range, a negative {@code k}, a short {@code out}, or a NaN in the
     *                                  range (when {@code k > 0}), naming the offending value or index
     */
    public int select(float[] values, int from, int to, int k, int[] out) {
        Objects.requireNonNull(values, "values");
        checkArguments(from, to, values.length, "values.length", k, out);
        arraySource.bind(values);
        try {
            return select(arraySource, from, to, k, out, Float.NaN);
        } finally {
            arraySource.bind(null);
        }
    }

    /**
     * Selects the {@code k} entries of largest magnitude in {@code values[from, to)}, absolute positions of the
     * buffer (its position is ignored and left unchanged; {@code to <= limit()}). Heap, direct and read-only
     * buffers give the same result as the {@code float[]} overload.
     *
     * @param out receives the selected indices, relative to {@code from} and ascending, in {@code out[0, count)}
     * @return {@code count = min(k, to - from)}
     * @throws IllegalArgumentException as {@link #select(float[], int, int, int, int[])}; a NaN is named by its
     *                                  buffer index
     */
    public int select(FloatBuffer values, int from, int to, int k, int[] out) {
        Objects.requireNonNull(values, "values");
        checkArguments(from, to, values.limit(), "values.limit()", k, out);
        if (values.hasArray()) {
            arraySource.bind(values.array(), values.arrayOffset());
            try {
                return select(arraySource, from, to, k, out, Float.NaN);
            } finally {
                arraySource.bind(null);
            }
        }
        bufferSource.bind(values);
        try {
            return select(bufferSource, from, to, k, out, Float.NaN);
        } finally {
            bufferSource.bind(null);
        }
    }

    /** As {@link #select(float[], int, int, int, int[])}, but the first threshold tried is given (for tests). */
    int selectWithFirstThreshold(float[] values, int from, int to, int k, int[] out, float firstThreshold) {
        checkArguments(from, to, values.length, "values.length", k, out);
        arraySource.bind(values);
        try {
            return select(arraySource, from, to, k, out, firstThreshold);
        } finally {
            arraySource.bind(null);
        }
    }

    /** How the last call found its threshold (for tests and diagnostics). */
    Path lastPath() {
        return lastPath;
    }

    private static void checkArguments(int from, int to, int length, String lengthName, int k, int[] out) {
        if (from < 0 || from > to || to > length) {
            throw new IllegalArgumentException("from=" + from + ", to=" + to + ": need 0 <= from <= to <= "
                    + lengthName + "=" + length);
        }
        if (k < 0) {
            throw new IllegalArgumentException("k=" + k + " must be >= 0");
        }
        Objects.requireNonNull(out, "out");
        int count = Math.min(k, to - from);
        if (out.length < count) {
            throw new IllegalArgumentException("out.length=" + out.length + " < count=" + count
                    + " (k=" + k + ", to - from=" + (to - from) + ")");
        }
    }

    private int select(Source source, int from, int to, int k, int[] out, float firstThreshold) {
        int n = to - from;
        if (k == 0) {
            lastPath = Path.TRIVIAL;
            return 0;
        }
        if (k >= n) {
            lastPath = Path.TRIVIAL;
            scan(source, from, to, Float.POSITIVE_INFINITY, 0, 0); // only to reject NaN
            for (int i = 0; i < n; i++) {
                out[i] = i;
            }
            return n;
        }
        if (n < MIN_SAMPLED_LENGTH) {
            lastPath = Path.DIRECT;
            return selectAll(source, from, to, k, out);
        }
        int runs = sampleRuns(n, k);
        int sampleSize = runs * RUN;
        drawSample(source, from, n, runs);
        double expectedHits = (double) sampleSize * k / n;
        int rank = (int) Math.min(sampleSize, Math.ceil(expectedHits + 4.0 * Math.sqrt(expectedHits) + 1.0));
        float threshold = Float.isNaN(firstThreshold) ? kthLargest(sample, sampleSize, rank) : firstThreshold;
        int capacity = candidateCapacity(n, rank, sampleSize);

        for (int attempt = 0; attempt < 2; attempt++) {
            scan(source, from, to, threshold, capacity, k);
            if (aboveCount >= 0 && aboveCount + tieCount >= k) {
                lastPath = attempt == 0 ? Path.SAMPLED : Path.RETRIED;
                return finish(threshold, k, out);
            }
            if (attempt == 1) {
                break;
            }
            if (aboveCount < 0) {
                // Far more entries above the threshold than the sample promised: raise it.
                rank = rank / 4;
                if (rank < 1) {
                    break;
                }
                float higher = kthLargest(sample, sampleSize, rank);
                if (!(higher > threshold)) {
                    break;
                }
                threshold = higher;
            } else {
                // Too few entries at or above the threshold: lower it and make room for the extra candidates.
                rank = 4 * rank + SMALL;
                if (rank >= sampleSize) {
                    break;
                }
                float lower = kthLargest(sample, sampleSize, rank);
                if (!(lower < threshold)) {
                    break;
                }
                threshold = lower;
                capacity = Math.max(capacity, candidateCapacity(n, rank, sampleSize));
            }
        }
        lastPath = Path.FULL_SELECT;
        return selectAll(source, from, to, k, out);
    }

    /**
     * Sample runs of {@link #RUN} floats for a range of {@code n >= MIN_SAMPLED_LENGTH} and {@code 0 < k < n}: about
     * {@code 16 n / k} floats, so some 16 of them are expected above the k-th largest magnitude, but at least
     * {@link #MIN_SAMPLE} and at most {@code n / 32}.
     */
    static int sampleRuns(int n, int k) {
        long wanted = Math.max(MIN_SAMPLE, (long) Math.ceil(SAMPLE_HITS * n / k));
        return (int) (Math.min(n / SAMPLE_DIVISOR, wanted) / RUN);
    }

    /** First position, relative to the range start, of sample run {@code run}: the middle of its stride. */
    static int sampleRunStart(int n, int runs, int run) {
        int stride = n / runs;
        return (stride - RUN) / 2 + run * stride;
    }

    /** Room for the entries strictly above a threshold at sample rank {@code rank}: three times the expectation. */
    private static int candidateCapacity(int n, int rank, int sampleSize) {
        long expected = (long) Math.ceil((double) n * rank / sampleSize);
        return (int) Math.min(n, 3 * expected + 1024);
    }

    /** Copies {@code |v|} of {@code runs} evenly spaced runs of {@link #RUN} floats into {@link #sample}. */
    private void drawSample(Source source, int from, int n, int runs) {
        int size = runs * RUN;
        if (sample.length < size) {
            sample = new float[size];
        }
        float[] s = sample;
        for (int run = 0; run < runs; run++) {
            int position = from + sampleRunStart(n, runs, run);
            int at = run * RUN;
            source.copy(position, s, at, RUN);
            for (int j = at; j < at + RUN; j++) {
                float magnitude = Math.abs(s[j]);
                if (magnitude != magnitude) {
                    throw nan(position + j - at);
                }
                s[j] = magnitude;
            }
        }
    }

    /**
     * Exact selection over all magnitudes: a quickselect on a copy finds the k-th largest, then one scan collects
     * the entries above it (fewer than k) and the lowest-index ties.
     */
    private int selectAll(Source source, int from, int to, int k, int[] out) {
        int n = to - from;
        if (selectScratch.length < n) {
            selectScratch = new float[n];
        }
        float[] all = selectScratch;
        source.copy(from, all, 0, n);
        for (int i = 0; i < n; i++) {
            float magnitude = Math.abs(all[i]);
            if (magnitude != magnitude) {
                throw nan(from + i);
            }
            all[i] = magnitude;
        }
        float kth = kthLargest(all, n, k);
        scan(source, from, to, kth, k, k);
        return finish(kth, k, out);
    }

    /**
     * Writes the selection given a scan at {@code threshold} that saw at least {@code k} entries at or above it.
     */
    private int finish(float threshold, int k, int[] out) {
        int above = aboveCount;
        int[] aboveIdx = aboveIndex;
        if (above >= k) {
            // The k-th largest is strictly above the threshold: find it among the candidates.
            if (selectScratch.length < above) {
                selectScratch = new float[Math.max(above, selectScratch.length * 3 / 2)];
            }
            float[] scratch = selectScratch;
            System.arraycopy(aboveMagnitude, 0, scratch, 0, above);
            float kth = kthLargest(scratch, above, k);
            int greater = 0;
            for (int i = 0; i < k; i++) {
                if (scratch[i] > kth) {
                    greater++;
                }
            }
            int ties = k - greater;
            float[] magnitudes = aboveMagnitude;
            int count = 0;
            for (int i = 0; count < k; i++) {
                float magnitude = magnitudes[i];
                if (magnitude > kth) {
                    out[count++] = aboveIdx[i];
                } else if (magnitude == kth && ties > 0) {
                    out[count++] = aboveIdx[i];
                    ties--;
                }
            }
            return k;
        }
        // The k-th largest is the threshold itself: all entries above it, then the lowest-index ties, merged.
        int ties = k - above;
        int[] tieIdx = tieIndex;
        int a = 0;
        int t = 0;
        int count = 0;
        while (count < k) {
            if (t == ties || (a < above && aboveIdx[a] < tieIdx[t])) {
                out[count++] = aboveIdx[a++];
            } else {
                out[count++] = tieIdx[t++];
            }
        }
        return k;
    }

    /**
     * One pass over {@code [from, to)}: stores, in index order and relative to {@code from}, the entries with
     * {@code |v| > threshold} (at most {@code aboveCapacity}; one more sets {@link #aboveCount} to -1 and stops) and
     * the first {@code tieCapacity} entries with {@code |v| == threshold}, counting all of them in
     * {@link #tieCount}. Throws on a NaN.
     */
    private void scan(Source source, int from, int to, float threshold, int aboveCapacity, int tieCapacity) {
        if (aboveIndex.length < aboveCapacity) {
            aboveIndex = new int[aboveCapacity];
            aboveMagnitude = new float[aboveCapacity];
        }
        if (tieIndex.length < tieCapacity) {
            tieIndex = new int[tieCapacity];
        }
        aboveCount = 0;
        tieCount = 0;
        int position = from;
        int chunk = ROW * ROWS;
        for (; position + chunk <= to; position += chunk) {
            if (!scanRows(source, from, position, ROWS, threshold, aboveCapacity, tieCapacity)) {
                return;
            }
        }
        int rows = (to - position) / ROW;
        if (rows > 0) {
            if (!scanRows(source, from, position, rows, threshold, aboveCapacity, tieCapacity)) {
                return;
            }
            position += rows * ROW;
        }
        for (; position < to; position++) {
            float magnitude = Math.abs(source.get(position));
            if (!(magnitude < threshold)
                    && !take(source, from, position, magnitude, threshold, aboveCapacity, tieCapacity)) {
                return;
            }
        }
    }

    /**
     * Scans {@code rows} rows of {@link #ROW} floats from {@code start}: the column maxima come from a vectorized
     * pass over row copies, then only the columns whose maximum reaches the threshold are read again, row by row so
     * that candidates arrive in index order. Returns false after an overflow.
     */
    private boolean scanRows(Source source, int from, int start, int rows, float threshold, int aboveCapacity,
                             int tieCapacity) {
        float[] r = row;
        float[] max = columnMax;
        source.copy(start, r, 0, ROW);
        absInto(max, r);
        for (int i = 1; i < rows; i++) {
            source.copy(start + i * ROW, r, 0, ROW);
            maxAbsInto(max, r);
        }
        int[] hot = hotColumns;
        int hotCount = 0;
        for (int j = 0; j < ROW; j++) {
            if (!(max[j] < threshold)) { // also true for NaN
                hot[hotCount++] = j;
            }
        }
        if (hotCount == 0) {
            return true;
        }
        for (int i = 0; i < rows; i++) {
            int base = start + i * ROW;
            for (int h = 0; h < hotCount; h++) {
                int position = base + hot[h];
                float magnitude = Math.abs(source.get(position));
                if (!(magnitude < threshold)
                        && !take(source, from, position, magnitude, threshold, aboveCapacity, tieCapacity)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Records an entry with {@code !(magnitude < threshold)}; false after an overflow. */
    private boolean take(Source source, int from, int position, float magnitude, float threshold, int aboveCapacity,
                         int tieCapacity) {
        if (magnitude > threshold) {
            if (aboveCount == aboveCapacity) {
                aboveCount = -1;
                return false;
            }
            aboveIndex[aboveCount] = position - from;
            aboveMagnitude[aboveCount] = magnitude;
            aboveCount++;
        } else if (magnitude == threshold) {
            if (tieCount < tieCapacity) {
                tieIndex[tieCount] = position - from;
            }
            tieCount++;
        } else {
            throw nan(position);
        }
        return true;
    }

    // Same-index loops over two distinct arrays: the shape C2's superword vectorizes (an offset on one side stops it).
    private static void absInto(float[] max, float[] r) {
        for (int j = 0; j < ROW; j++) {
            max[j] = Math.abs(r[j]);
        }
    }

    private static void maxAbsInto(float[] max, float[] r) {
        for (int j = 0; j < ROW; j++) {
            max[j] = Math.max(max[j], Math.abs(r[j]));
        }
    }

    private static IllegalArgumentException nan(int position) {
        return new IllegalArgumentException("values[" + position + "] is NaN");
    }

    /**
     * Quickselect: rearranges {@code a[0, n)} so that {@code a[0, k)} holds the {@code k} largest values and
     * returns the k-th largest ({@code 1 <= k <= n}; no NaN). Hoare partitioning around the median of three
     * pseudo-random entries keeps runs of equal values balanced; expected linear time.
     */
    static float kthLargest(float[] a, int n, int k) {
        int target = k - 1;
        int lo = 0;
        int hi = n - 1;
        long seed = 0x9E3779B97F4A7C15L;
        while (hi - lo > SMALL) {
            seed = seed * 6364136223846793005L + 1442695040888963407L;
            int span = hi - lo + 1;
            float x = a[lo + (int) (((seed >>> 33) * span) >>> 31)];
            float y = a[lo + (int) ((((seed >>> 2) & 0x7FFFFFFFL) * span) >>> 31)];
            float z = a[lo + span / 2];
            float pivot = Math.max(Math.min(x, y), Math.min(Math.max(x, y), z));
            int i = lo;
            int j = hi;
            while (i <= j) {
                while (a[i] > pivot) {
                    i++;
                }
                while (a[j] < pivot) {
                    j--;
                }
                if (i <= j) {
                    float swap = a[i];
                    a[i] = a[j];
                    a[j] = swap;
                    i++;
                    j--;
                }
            }
            // Now a[lo, j] >= pivot, a(j, i) == pivot, a[i, hi] <= pivot.
            if (target <= j) {
                hi = j;
            } else if (target >= i) {
                lo = i;
            } else {
                return pivot;
            }
        }
        for (int i = lo + 1; i <= hi; i++) {
            float v = a[i];
            int j = i - 1;
            while (j >= lo && a[j] < v) {
                a[j + 1] = a[j];
                j--;
            }
            a[j + 1] = v;
        }
        return a[target];
    }

    /** Where the floats come from: bulk copies for the vectorized pass, single reads for hot columns. */
    private abstract static class Source {
        abstract void copy(int position, float[] dst, int dstOffset, int length);

        abstract float get(int position);
    }

    private static final class ArraySource extends Source {
        private float[] array;
        private int offset;

        void bind(float[] values) {
            bind(values, 0);
        }

        void bind(float[] values, int arrayOffset) {
            array = values;
            offset = arrayOffset;
        }

        @Override
        void copy(int position, float[] dst, int dstOffset, int length) {
            System.arraycopy(array, offset + position, dst, dstOffset, length);
        }

        @Override
        float get(int position) {
            return array[offset + position];
        }
    }

    private static final class BufferSource extends Source {
        private FloatBuffer buffer;

        void bind(FloatBuffer values) {
            buffer = values;
        }

        @Override
        void copy(int position, float[] dst, int dstOffset, int length) {
            buffer.get(position, dst, dstOffset, length);
        }

        @Override
        float get(int position) {
            return buffer.get(position);
        }
    }
}

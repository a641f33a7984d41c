package io.lgc4j.core.sparse;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.FloatBuffer;
import java.util.Arrays;
import java.util.Objects;

/**
 * Exact top-k selection by magnitude: the {@code k} entries of largest {@code |value|} in a range of a
 * {@code float[]} or {@link FloatBuffer}, as ascending indices, in expected linear time without sorting. The result is
 * what a full sort by ({@code |v|} descending, index ascending) would pick, so ties go to lower indices and the
 * selection is deterministic; {@code -0.0f} equals {@code 0.0f}. A NaN in the range (with {@code k > 0}) is an
 * {@link IllegalArgumentException} naming its index.
 *
 * <p>An instance holds scratch that grows with the largest {@code k} seen, so it allocates nothing once warm; not
 * thread-safe: one per thread.
 *
 * <pre>{@code
 * TopK topK = new TopK();                          // one per thread, reused every step
 * int count = topK.select(gradient, from, to, TopK.countFor(to - from, 0.001), indices);
 * }</pre>
 */
public final class TopK {

    /** Floats per chunk of the scan. */
    static final int CHUNK = 4096;
    /** Levels of the max tree over a chunk; the top level has {@code CHUNK >> TOP_LEVEL = 64} entries. */
    private static final int TOP_LEVEL = 6;
    private static final int LEVEL_1 = CHUNK;
    private static final int LEVEL_2 = LEVEL_1 + (CHUNK >> 1);
    private static final int LEVEL_3 = LEVEL_2 + (CHUNK >> 2);
    private static final int LEVEL_4 = LEVEL_3 + (CHUNK >> 3);
    private static final int LEVEL_5 = LEVEL_4 + (CHUNK >> 4);
    private static final int LEVEL_6 = LEVEL_5 + (CHUNK >> 5);
    /** Where each level of the max tree starts in the chunk scratch; level 0 is the chunk itself. */
    private static final int[] LEVEL = {0, LEVEL_1, LEVEL_2, LEVEL_3, LEVEL_4, LEVEL_5, LEVEL_6};
    /** Floats per sample run (one cache line when aligned). */
    static final int RUN = 16;
    /** Fewest sample entries worth drawing. */
    static final int MIN_SAMPLE = 1024;
    /** Sample entries expected above the k-th largest magnitude (the sample size is {@code ~16 n / k}). */
    private static final double SAMPLE_HITS = 16.0;
    /** Largest share of the range sampled: 1 / 32. */
    private static final int SAMPLE_DIVISOR = 32;
    /** Below this many elements, skip the sample and radix-select all magnitudes. */
    static final int MIN_SAMPLED_LENGTH = MIN_SAMPLE * SAMPLE_DIVISOR;
    /** Radix select digits of the magnitude bits (sign bit always 0): bits 30..19, 18..7, 6..0. */
    private static final int[] DIGIT_SHIFT = {19, 7, 0};
    private static final int[] DIGIT_MASK = {0xFFF, 0xFFF, 0x7F};
    /** Added to four times the sample rank when a threshold found too few entries. */
    private static final int RETRY_RANK_SLACK = 16;

    /** How the last selection found its threshold; package-private for tests. */
    enum Path {
        /** k == 0 or k >= n: nothing to select. */
        TRIVIAL,
        /** Small range: radix select over all magnitudes. */
        DIRECT,
        /** The first sampled threshold was good. */
        SAMPLED,
        /** The first threshold missed; the adjusted one was good. */
        RETRIED,
        /** Both thresholds missed: radix select over all magnitudes. */
        FULL_SELECT
    }

    private final float[] chunk = new float[LEVEL_6 + (CHUNK >> TOP_LEVEL)];
    private final int[] hotA = new int[CHUNK + 1]; // branch-free compaction writes one past the last entry
    private final int[] hotB = new int[CHUNK + 1];
    private final int[] histogram = new int[DIGIT_MASK[0] + 1];
    private float[] sample = new float[0];
    private int[] aboveIndex = new int[0];
    private float[] aboveMagnitude = new float[0];
    private int[] tieIndex = new int[0];
    private float[] allMagnitudes = new float[0];
    private int[] memberBits = new int[0];
    private final ArraySource arraySource = new ArraySource();
    private final BufferSource bufferSource = new BufferSource();

    /** Entries strictly above the threshold found by the last scan ({@code -1} after an overflow). */
    private int aboveCount;
    /** Entries equal to the threshold seen by the last scan (only the first {@code tieCapacity} are stored). */
    private int tieCount;
    /** Start of the range the current scan reports indices from. */
    private int scanStart;
    /** Entries strictly greater than the value the last {@link #kthLargest} returned. */
    private int kthGreater;
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

    /** Entries strictly greater than the value the last {@link #kthLargest} call returned (for tests). */
    int kthGreater() {
        return kthGreater;
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
                rank = 4 * rank + RETRY_RANK_SLACK;
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
     * Exact selection over all magnitudes: a radix select on a copy finds the k-th largest, then one scan collects
     * the entries above it (fewer than k) and the lowest-index ties.
     */
    private int selectAll(Source source, int from, int to, int k, int[] out) {
        int n = to - from;
        if (allMagnitudes.length < n) {
            allMagnitudes = new float[n];
        }
        float[] all = allMagnitudes;
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
            float kth = kthLargest(aboveMagnitude, above, k);
            int ties = k - kthGreater;
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
        scanStart = from;
        float[] c = chunk;
        int position = from;
        for (; to - position >= CHUNK; position += CHUNK) { // not position + CHUNK <= to: it may overflow
            source.copy(position, c, 0, CHUNK);
            foldMaxima(c);
            if (!descend(c, position, threshold, aboveCapacity, tieCapacity)) {
                return;
            }
        }
        int rest = to - position;
        source.copy(position, c, 0, rest);
        for (int at = 0; at < rest; at++) {
            float magnitude = Math.abs(c[at]);
            if (!(magnitude < threshold)
                    && !take(position + at, magnitude, threshold, aboveCapacity, tieCapacity)) {
                return;
            }
        }
    }

    /**
     * Builds the max tree of the chunk {@code c[0, CHUNK)}: level {@code L} holds {@code CHUNK >> L} maxima at
     * {@code LEVEL[L]}, entry {@code j} the larger of entries {@code j} and {@code j + (CHUNK >> L)} of the level
     * below (level 0: the magnitudes of the chunk). One array and constant offsets: the shape C2's superword
     * vectorizes (two arrays at different offsets might alias, and it gives up).
     */
    private static void foldMaxima(float[] c) {
        for (int j = 0; j < CHUNK >> 1; j++) {
            c[LEVEL_1 + j] = Math.max(Math.abs(c[j]), Math.abs(c[(CHUNK >> 1) + j]));
        }
        for (int j = 0; j < CHUNK >> 2; j++) {
            c[LEVEL_2 + j] = Math.max(c[LEVEL_1 + j], c[LEVEL_1 + (CHUNK >> 2) + j]);
        }
        for (int j = 0; j < CHUNK >> 3; j++) {
            c[LEVEL_3 + j] = Math.max(c[LEVEL_2 + j], c[LEVEL_2 + (CHUNK >> 3) + j]);
        }
        for (int j = 0; j < CHUNK >> 4; j++) {
            c[LEVEL_4 + j] = Math.max(c[LEVEL_3 + j], c[LEVEL_3 + (CHUNK >> 4) + j]);
        }
        for (int j = 0; j < CHUNK >> 5; j++) {
            c[LEVEL_5 + j] = Math.max(c[LEVEL_4 + j], c[LEVEL_4 + (CHUNK >> 5) + j]);
        }
        for (int j = 0; j < CHUNK >> 6; j++) {
            c[LEVEL_6 + j] = Math.max(c[LEVEL_5 + j], c[LEVEL_5 + (CHUNK >> 6) + j]);
        }
    }

    /**
     * Walks the max tree from the top down through the entries that reach the threshold, and takes the chunk's
     * candidates in index order: each level's list is sorted, and its children are the list itself followed by the
     * list shifted by the level's size. False after an overflow.
     */
    private boolean descend(float[] c, int position, float threshold, int aboveCapacity, int tieCapacity) {
        // Branch-free compaction throughout: whether a child reaches the threshold is a coin toss for the predictor.
        int[] hot = hotA;
        int[] next = hotB;
        int count = 0;
        for (int j = 0; j < CHUNK >> TOP_LEVEL; j++) {
            hot[count] = j;
            count += c[LEVEL_6 + j] < threshold ? 0 : 1; // NaN counts as reaching it
        }
        for (int level = TOP_LEVEL; level > 1 && count > 0; level--) {
            int size = CHUNK >> level;
            int below = LEVEL[level - 1];
            int nextCount = 0;
            for (int h = 0; h < count; h++) {
                int j = hot[h];
                next[nextCount] = j;
                nextCount += c[below + j] < threshold ? 0 : 1;
            }
            for (int h = 0; h < count; h++) {
                int j = hot[h] + size;
                next[nextCount] = j;
                nextCount += c[below + j] < threshold ? 0 : 1;
            }
            int[] swap = hot;
            hot = next;
            next = swap;
            count = nextCount;
        }
        int candidates = 0;
        for (int half = 0; half <= CHUNK >> 1; half += CHUNK >> 1) {
            for (int h = 0; h < count; h++) {
                int at = hot[h] + half;
                next[candidates] = at;
                candidates += Math.abs(c[at]) < threshold ? 0 : 1;
            }
        }
        for (int h = 0; h < candidates; h++) {
            int at = next[h];
            if (!take(position + at, Math.abs(c[at]), threshold, aboveCapacity, tieCapacity)) {
                return false;
            }
        }
        return true;
    }

    /** Records the entry at {@code position} with {@code !(magnitude < threshold)}; false after an overflow. */
    private boolean take(int position, float magnitude, float threshold, int aboveCapacity, int tieCapacity) {
        int index = position - scanStart;
        if (magnitude > threshold) {
            if (aboveCount == aboveCapacity) {
                aboveCount = -1;
                return false;
            }
            aboveIndex[aboveCount] = index;
            aboveMagnitude[aboveCount] = magnitude;
            aboveCount++;
        } else if (magnitude == threshold) {
            if (tieCount < tieCapacity) {
                tieIndex[tieCount] = index;
            }
            tieCount++;
        } else {
            throw nan(position);
        }
        return true;
    }

    private static IllegalArgumentException nan(int position) {
        return new IllegalArgumentException("values[" + position + "] is NaN");
    }

    /**
     * The k-th largest of {@code a[0, n)} ({@code 1 <= k <= n}; magnitudes: no NaN, no negative), leaving {@code a}
     * as it is, and the number of entries strictly greater in {@link #kthGreater}. A radix select: non-negative
     * floats order as their bit patterns, so three histogram passes over 12, 12 and 7 bits narrow the entries down
     * to those equal to the answer; each pass keeps only the entries of the bucket holding the k-th.
     */
    float kthLargest(float[] a, int n, int k) {
        int[] counts = histogram;
        int shift = DIGIT_SHIFT[0];
        Arrays.fill(counts, 0);
        for (int i = 0; i < n; i++) {
            counts[Float.floatToRawIntBits(a[i]) >>> shift]++;
        }
        int bucket = DIGIT_MASK[0];
        int rank = k; // of the answer among the entries still in play
        while (counts[bucket] < rank) {
            rank -= counts[bucket--];
        }
        int members = counts[bucket];
        if (memberBits.length <= members) { // the compaction writes one past the last member
            memberBits = new int[Math.max(members + 1, memberBits.length * 3 / 2)];
        }
        int[] bits = memberBits;
        int m = 0;
        for (int i = 0; i < n; i++) { // branch-free compaction: the bucket may hold any share of the entries
            int b = Float.floatToRawIntBits(a[i]);
            bits[m] = b;
            m += (b >>> shift) == bucket ? 1 : 0;
        }
        for (int digit = 1; digit < DIGIT_SHIFT.length; digit++) {
            shift = DIGIT_SHIFT[digit];
            int mask = DIGIT_MASK[digit];
            Arrays.fill(counts, 0, mask + 1, 0);
            for (int i = 0; i < members; i++) {
                counts[(bits[i] >>> shift) & mask]++;
            }
            bucket = mask;
            while (counts[bucket] < rank) {
                rank -= counts[bucket--];
            }
            int kept = 0;
            for (int i = 0; i < members; i++) {
                int b = bits[i];
                bits[kept] = b;
                kept += ((b >>> shift) & mask) == bucket ? 1 : 0;
            }
            members = kept;
        }
        kthGreater = k - rank;
        return Float.intBitsToFloat(bits[0]);
    }

    /** Where the floats come from: bulk copies into scratch. */
    private abstract static class Source {
        abstract void copy(int position, float[] dst, int dstOffset, int length);
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
    }
}

package io.lgc4j.core.compress;

import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.protocol.Sketch;
import io.lgc4j.core.sparse.SparseVector;
import io.lgc4j.core.sparse.TopK;

import java.util.Arrays;

/**
 * Decodes one block of a summed S2 sketch into the estimated mean of the ranks' selections: candidates are the
 * elements of the groups the summed bitmap marks; with at least three rows, candidates whose readings agree in a
 * strict majority of rows are certified and peeled from the sketch until nothing changes; the rest get the median
 * of their readings. It keeps at most {@code min(candidates, workers · k)} entries, certified first, then the largest
 * medians, ties to lower indices, so every rank decodes the same sum to the same set.
 *
 * <p>Readings agree within {@link #AGREEMENT} of the larger; readings within {@link #FLOOR} of the block's largest
 * counter count as empty. Holds scratch: one per rank state, not thread-safe.
 */
final class S2Decoder {
    /** Largest relative difference of two readings that agree. */
    static final float AGREEMENT = 1e-5f;
    /** Readings at most this share of the block's largest |counter| are empty. */
    static final float FLOOR = 1e-5f;

    private final S2CountSketch sketch;
    private final S2SketchLayout layout;
    private final int rows;
    /** Rows that must agree to certify a candidate; 0 when there are too few rows to tell (rows = 1). */
    private final int majority;
    private final TopK topK = new TopK();
    private final float[] readings;
    private int[] candidates = new int[0];
    private int[] cells = new int[0];
    private float[] signs = new float[0];
    private float[] values = new float[0];
    private boolean[] certified = new boolean[0];
    private boolean[] queued = new boolean[0];
    private int[] queue = new int[0];
    private float[] work = new float[0];
    private int[] memberStart = new int[0];
    private int[] members = new int[0];
    private float[] scores = new float[0];
    private int[] positions = new int[0];
    private int[] picked = new int[0];

    S2Decoder(S2CountSketch sketch) {
        this.sketch = sketch;
        this.layout = sketch.layout();
        this.rows = layout.rows();
        this.majority = rows >= 3 ? rows / 2 + 1 : 0;
        this.readings = new float[rows];
    }

    /** The summed selections of block {@code b} divided by {@code workers}: the estimated mean. */
    SparseVector decode(Sketch sum, int b, int workers) {
        int n = gatherCandidates(sum.bitmap(), b);
        int cellCount = rows * layout.columns(b);
        if (work.length < cellCount) {
            work = new float[cellCount];
        }
        System.arraycopy(sum.counters(), layout.counterStart(b), work, 0, cellCount);
        float scale = 0f;
        for (int c = 0; c < cellCount; c++) {
            scale = Math.max(scale, Math.abs(work[c]));
        }
        Arrays.fill(certified, 0, n, false);
        if (majority > 0 && scale > 0f) {
            peel(n, cellCount, scale * FLOOR);
        }
        for (int j = 0; j < n; j++) {
            if (!certified[j]) {
                values[j] = median(j);
            }
        }
        int count = select(n, (int) Math.min(n, (long) workers * layout.selected(b)));
        int[] indices = new int[count];
        float[] mean = new float[count];
        for (int i = 0; i < count; i++) {
            indices[i] = candidates[picked[i]];
            mean[i] = values[picked[i]] / workers;
        }
        return new SparseVector(layout.region().block(b).length(), indices, mean);
    }

    /**
     * Fills {@code candidates} with the elements of block {@code b} in the groups {@code bitmap} marks (ascending),
     * and {@code cells}/{@code signs} with their counters; returns how many.
     */
    private int gatherCandidates(long[] bitmap, int b) {
        ParamBlock block = layout.region().block(b);
        int length = block.length();
        int groupSize = layout.groupSize();
        long groups = layout.groups(length);
        int firstWord = layout.bitmapStart(b);
        int words = (int) ((groups + 63) / 64);
        int n = 0;
        for (int w = 0; w < words; w++) {
            long bits = bitmap[firstWord + w];
            while (bits != 0) {
                long group = 64L * w + Long.numberOfTrailingZeros(bits);
                bits &= bits - 1;
                if (group >= groups) {
                    throw new IllegalArgumentException("bitmap bit " + group + " of block " + block.qualifiedName()
                            + " is past its " + groups + " groups");
                }
                int from = (int) (group * groupSize);
                int to = (int) Math.min(length, (long) from + groupSize);
                ensureCandidates(n + to - from);
                for (int i = from; i < to; i++) {
                    candidates[n] = i;
                    sketch.cells(b, i, cells, signs, n * rows);
                    n++;
                }
            }
        }
        return n;
    }

    private void ensureCandidates(int needed) {
        if (candidates.length >= needed) {
            return;
        }
        int size = (int) Math.min(Integer.MAX_VALUE / rows - 8,
                Math.max(needed, 3L * candidates.length / 2));
        candidates = Arrays.copyOf(candidates, size);
        cells = Arrays.copyOf(cells, size * rows);
        signs = Arrays.copyOf(signs, size * rows);
        values = Arrays.copyOf(values, size);
        certified = Arrays.copyOf(certified, size);
        queued = Arrays.copyOf(queued, size);
        queue = Arrays.copyOf(queue, size);
        scores = Arrays.copyOf(scores, size);
        positions = Arrays.copyOf(positions, size);
        picked = Arrays.copyOf(picked, size);
    }

    /** Certifies and subtracts candidates alone in a majority of their counters until none is left to peel. */
    private void peel(int n, int cellCount, float floor) {
        indexMembers(n, cellCount);
        for (int j = 0; j < n; j++) {
            queue[j] = j;
            queued[j] = true;
        }
        int head = 0;
        int size = n;
        while (size > 0) {
            int j = queue[head];
            head = head + 1 == n ? 0 : head + 1;
            size--;
            queued[j] = false;
            int row = agreeingRow(j, floor);
            if (row < 0) {
                continue;
            }
            float value = readings[row];
            certified[j] = true;
            values[j] = value;
            for (int r = 0; r < rows; r++) {
                int cell = cells[j * rows + r];
                work[cell] -= signs[j * rows + r] * value;
                for (int m = memberStart[cell]; m < memberStart[cell + 1]; m++) {
                    int other = members[m];
                    if (!certified[other] && !queued[other]) { // the queue holds each candidate at most once
                        queue[(head + size) % n] = other;
                        queued[other] = true;
                        size++;
                    }
                }
            }
        }
    }

    /** For every counter of the block, the candidates hashed to it (counting sort into {@code members}). */
    private void indexMembers(int n, int cellCount) {
        if (memberStart.length < cellCount + 1) {
            memberStart = new int[cellCount + 1];
        }
        if (members.length < n * rows) {
            members = new int[n * rows];
        }
        Arrays.fill(memberStart, 0, cellCount + 1, 0);
        for (int e = 0; e < n * rows; e++) {
            memberStart[cells[e] + 1]++;
        }
        for (int c = 0; c < cellCount; c++) {
            memberStart[c + 1] += memberStart[c];
        }
        // Fill from the back so each counter's members end up in ascending candidate order.
        for (int e = n * rows - 1; e >= 0; e--) {
            members[--memberStart[cells[e] + 1]] = e / rows;
        }
        // memberStart[c + 1] now points at counter c's first member; shift back to starts.
        System.arraycopy(memberStart, 1, memberStart, 0, cellCount);
        memberStart[cellCount] = n * rows;
    }

    /**
     * Reads candidate {@code j}'s counters into {@link #readings}; returns a row whose non-empty reading a strict
     * majority of rows share, or −1 if there is none.
     */
    private int agreeingRow(int j, float floor) {
        for (int r = 0; r < rows; r++) {
            readings[r] = signs[j * rows + r] * work[cells[j * rows + r]];
        }
        for (int a = 0; a < rows; a++) {
            float x = readings[a];
            if (Math.abs(x) <= floor) {
                continue;
            }
            int agreeing = 1;
            for (int r = 0; r < rows; r++) {
                float y = readings[r];
                if (r != a && Math.abs(y) > floor
                        && Math.abs(x - y) <= AGREEMENT * Math.max(Math.abs(x), Math.abs(y))) {
                    agreeing++;
                }
            }
            if (agreeing >= majority) {
                return a;
            }
        }
        return -1;
    }

    /** S2's query on the peeled counters: the median over rows of candidate {@code j}'s readings. */
    private float median(int j) {
        float[] v = readings;
        for (int r = 0; r < rows; r++) {
            float x = signs[j * rows + r] * work[cells[j * rows + r]];
            int at = r;
            while (at > 0 && v[at - 1] > x) { // insertion sort: rows is a handful
                v[at] = v[at - 1];
                at--;
            }
            v[at] = x;
        }
        return v[rows >>> 1];
    }

    /**
     * Keeps at most {@code cap} candidates, certified ones first, then the largest medians; writes their candidate
     * positions, ascending, into {@link #picked} and returns how many.
     */
    private int select(int n, int cap) {
        int certifiedCount = 0;
        for (int j = 0; j < n; j++) {
            certifiedCount += certified[j] ? 1 : 0;
        }
        // positions/scores: certified candidates in [0, certifiedCount), the others after, each part ascending.
        int c = 0;
        int u = certifiedCount;
        for (int j = 0; j < n; j++) {
            int at = certified[j] ? c++ : u++;
            positions[at] = j;
            scores[at] = values[j];
        }
        int keepCertified = Math.min(certifiedCount, cap);
        int keepOthers = Math.min(n - certifiedCount, cap - keepCertified);
        int[] first = new int[keepCertified];
        int[] second = new int[keepOthers];
        topK.select(scores, 0, certifiedCount, keepCertified, first);
        topK.select(scores, certifiedCount, n, keepOthers, second);
        // Merge the two ascending lists of candidate positions.
        int i = 0;
        int k = 0;
        int out = 0;
        while (i < keepCertified || k < keepOthers) {
            int a = i < keepCertified ? positions[first[i]] : Integer.MAX_VALUE;
            int o = k < keepOthers ? positions[certifiedCount + second[k]] : Integer.MAX_VALUE;
            if (a < o) {
                picked[out++] = a;
                i++;
            } else {
                picked[out++] = o;
                k++;
            }
        }
        return out;
    }
}

package io.lgc4j.core.compress;

import io.lgc4j.core.protocol.Sketch;
import io.lgc4j.core.protocol.SparseSet;
import io.lgc4j.core.sparse.SparseVector;

/**
 * The seeded hash functions of an S2 sketch over a {@link S2SketchLayout}: inserts values and queries estimates.
 *
 * <p>Row {@code r} of block {@code b} has a key derived from (seed, r, the block's layout index); element {@code i}
 * hashes to {@code h = SplitMix64(key + (i + 1) · γ)}, output {@code i + 1} of a SplitMix64 generator seeded with
 * the key. The high 32 bits of {@code h} pick the bucket (multiply-shift onto {@code [0, columns)}) and its lowest
 * bit the sign. Nothing per element is stored, so a block of millions of elements costs {@code rows} longs; every
 * rank given the same seed and blocks computes the same hashes.
 */
final class S2CountSketch {
    /** SplitMix64's increment: the odd integer closest to 2^64 / φ. */
    private static final long GAMMA = 0x9E3779B97F4A7C15L;

    private final S2SketchLayout layout;
    /** {@code keys[b * rows + r]}: the stream start of row r of block b. */
    private final long[] keys;
    private final float[] rowScratch;

    S2CountSketch(S2SketchLayout layout, long seed) {
        this.layout = layout;
        int rows = layout.rows();
        Region region = layout.region();
        this.keys = new long[region.blockCount() * rows];
        long seedKey = mix(seed);
        for (int b = 0; b < region.blockCount(); b++) {
            long blockKey = mix(seedKey ^ mix(GAMMA * (region.block(b).index() + 1L)));
            for (int r = 0; r < rows; r++) {
                keys[b * rows + r] = mix(blockKey + GAMMA * (r + 1L));
            }
        }
        this.rowScratch = new float[rows];
    }

    /** SplitMix64's finaliser (Stafford's variant 13): a bijection of 64-bit words with full avalanche. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    S2SketchLayout layout() {
        return layout;
    }

    /** The hash of element {@code index} under row {@code row} of block {@code b}. */
    private long hash(int b, int row, int index) {
        return mix(keys[b * layout.rows() + row] + GAMMA * (index + 1L));
    }

    /** The column of a hash: its high 32 bits scaled onto {@code [0, columns)} (Lemire's multiply-shift). */
    private static int bucket(long hash, int columns) {
        return (int) (((hash >>> 32) * columns) >>> 32);
    }

    /** The sign of a hash: +1 or −1 from its lowest bit. */
    private static float sign(long hash) {
        return (hash & 1L) == 0 ? 1f : -1f;
    }

    /**
     * Writes, for every row {@code r}, the counter element {@code index} of block {@code b} maps to (relative to the
     * block's first counter: {@code r * columns + bucket}) into {@code cells[at + r]} and its sign into
     * {@code signs[at + r]}.
     */
    void cells(int b, int index, int[] cells, float[] signs, int at) {
        int columns = layout.columns(b);
        for (int r = 0; r < layout.rows(); r++) {
            long h = hash(b, r, index);
            cells[at + r] = r * columns + bucket(h, columns);
            signs[at + r] = sign(h);
        }
    }

    /**
     * Adds {@code value} at element {@code index} of block {@code b}: {@code sign · value} into one counter of every
     * row, in row order, and sets the bit of the element's group.
     */
    void add(int b, int index, float value, float[] counters, long[] bitmap) {
        int rows = layout.rows();
        int columns = layout.columns(b);
        int base = layout.counterStart(b);
        for (int r = 0; r < rows; r++) {
            long h = hash(b, r, index);
            counters[base + r * columns + bucket(h, columns)] += sign(h) * value;
        }
        int group = index / layout.groupSize();
        bitmap[layout.bitmapStart(b) + (group >>> 6)] |= 1L << (group & 63);
    }

    /**
     * S2's query for element {@code index} of block {@code b}: the median over rows of {@code sign · counter}
     * ({@code rows} is odd, so the median is one of them). {@link S2Decoder} takes the same median of the peeled
     * counters, through cells it caches; this direct form serves tests and analysis.
     */
    float estimate(float[] counters, int b, int index) {
        int rows = layout.rows();
        int columns = layout.columns(b);
        int base = layout.counterStart(b);
        float[] v = rowScratch;
        for (int r = 0; r < rows; r++) {
            long h = hash(b, r, index);
            float x = sign(h) * counters[base + r * columns + bucket(h, columns)];
            int at = r;
            while (at > 0 && v[at - 1] > x) { // insertion sort: rows is a handful
                v[at] = v[at - 1];
                at--;
            }
            v[at] = x;
        }
        return v[rows >>> 1];
    }

    /** The sketch of {@code selected} (one sparse vector per block, block-relative indices), inserted in order. */
    Sketch sketch(SparseSet selected) {
        Region region = layout.region();
        if (selected.blocks().size() != region.blockCount()) {
            throw new IllegalArgumentException("selection of " + selected.blocks().size() + " blocks, layout has "
                    + region.blockCount());
        }
        Sketch out = layout.emptySketch();
        for (int b = 0; b < region.blockCount(); b++) {
            SparseVector v = selected.blocks().get(b);
            if (v.length() != region.block(b).length()) {
                throw new IllegalArgumentException("selection for block " + region.block(b).qualifiedName()
                        + " has length " + v.length() + ", the block " + region.block(b).length());
            }
            for (int j = 0; j < v.nnz(); j++) {
                add(b, v.indices()[j], v.values()[j], out.counters(), out.bitmap());
            }
        }
        return out;
    }
}

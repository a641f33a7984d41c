package io.lgc4j.core.compress;

import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.protocol.Sketch;
import io.lgc4j.core.sparse.TopK;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;

/**
 * Where each block's part of an S2 sketch lives (no seed, no hashes: the same on every rank by construction).
 *
 * <p>Counters: block after block, block {@code b} taking {@code rows × columns(b)} floats from
 * {@link #counterStart(int)}, row-major (row {@code r}, column {@code c} at
 * {@code counterStart(b) + r * columns(b) + c}). {@code columns(b) = max(1, ceil(columnsPerSelected × k(b)))} with
 * {@code k(b) = TopK.countFor(length, ratio)}, so the sketch grows with what is selected, not with the block; an
 * empty block has no columns.
 *
 * <p>Bitmap: block after block, each starting on a word boundary at {@link #bitmapStart(int)}; bit {@code g} of a
 * block (word {@code bitmapStart(b) + g / 64}, bit {@code g % 64}, least significant first) marks elements
 * {@code [g × groupSize, (g + 1) × groupSize)} of the block; {@code ceil(length / groupSize)} bits per block.
 */
final class S2SketchLayout {
    private static final BigDecimal INT_MAX = BigDecimal.valueOf(Integer.MAX_VALUE);
    private final Region region;
    private final int rows;
    private final int groupSize;
    private final int[] selected;
    private final int[] columns;
    private final int[] counterStarts;
    private final int[] bitmapStarts;
    private final int counterLength;
    private final int bitmapWords;

    S2SketchLayout(List<ParamBlock> blocks, double ratio, int rows, double columnsPerSelected, int groupSize) {
        this.region = new Region(blocks);
        this.rows = rows;
        this.groupSize = groupSize;
        int n = region.blockCount();
        this.selected = new int[n];
        this.columns = new int[n];
        this.counterStarts = new int[n];
        this.bitmapStarts = new int[n];
        long counters = 0;
        long words = 0;
        BigDecimal perSelected = BigDecimal.valueOf(columnsPerSelected);
        for (int b = 0; b < n; b++) {
            int length = region.block(b).length();
            int k = TopK.countFor(length, ratio);
            long c = k == 0 ? 0 : Math.max(1L, perSelected.multiply(BigDecimal.valueOf(k))
                    .setScale(0, RoundingMode.CEILING).min(INT_MAX).longValueExact());
            selected[b] = k;
            counterStarts[b] = (int) Math.min(counters, Integer.MAX_VALUE);
            bitmapStarts[b] = (int) Math.min(words, Integer.MAX_VALUE);
            counters += rows * c;
            words += (groups(length) + 63) / 64;
            if (counters > Integer.MAX_VALUE - 8) {
                throw new IllegalArgumentException("sketch of " + counters + " counters after block "
                        + region.block(b).qualifiedName() + " does not fit a float[] (rows=" + rows
                        + ", columnsPerSelected=" + columnsPerSelected + ")");
            }
            columns[b] = (int) c;
        }
        this.counterLength = (int) counters;
        this.bitmapWords = (int) words;
    }

    Region region() {
        return region;
    }

    int rows() {
        return rows;
    }

    int groupSize() {
        return groupSize;
    }

    /** Entries block {@code b} selects per step on each rank. */
    int selected(int b) {
        return selected[b];
    }

    int columns(int b) {
        return columns[b];
    }

    int counterStart(int b) {
        return counterStarts[b];
    }

    int bitmapStart(int b) {
        return bitmapStarts[b];
    }

    /** Bitmap bits of a block of {@code length} elements. */
    long groups(int length) {
        return ((long) length + groupSize - 1) / groupSize;
    }

    int counterLength() {
        return counterLength;
    }

    int bitmapWords() {
        return bitmapWords;
    }

    /** An all-zero sketch of this shape. */
    Sketch emptySketch() {
        return new Sketch(new float[counterLength], new long[bitmapWords]);
    }

    /** Rejects a sketch of another shape (another layout or other settings), naming both shapes. */
    void requireShape(Sketch sketch) {
        if (sketch.counters().length != counterLength || sketch.bitmap().length != bitmapWords) {
            throw new IllegalArgumentException("sketch of " + sketch.counters().length + " counters and "
                    + sketch.bitmap().length + " bitmap words does not match the layout's " + counterLength
                    + " counters and " + bitmapWords + " bitmap words");
        }
    }
}

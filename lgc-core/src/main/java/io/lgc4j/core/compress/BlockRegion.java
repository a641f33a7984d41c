package io.lgc4j.core.compress;

import io.lgc4j.core.layout.ParamBlock;

import java.util.List;

/**
 * Some blocks of a flattened vector laid end to end (the DENSE blocks of a layout, say): gathers them into one
 * contiguous array for a dense exchange and scatters the result back.
 */
public final class BlockRegion {
    private final List<ParamBlock> blocks;
    private final int length;

    /** A region of {@code blocks}, in the given order. */
    public BlockRegion(List<ParamBlock> blocks) {
        this.blocks = List.copyOf(blocks);
        this.length = Compressor.regionLength(blocks);
    }

    /** Elements in the region. */
    public int length() {
        return length;
    }

    /** The blocks, in region order. */
    public List<ParamBlock> blocks() {
        return blocks;
    }

    /** Copies the region's elements of {@code flat} into {@code into[0, length)}. */
    public void gather(float[] flat, float[] into) {
        int at = 0;
        for (ParamBlock b : blocks) {
            System.arraycopy(flat, b.offset(), into, at, b.length());
            at += b.length();
        }
    }

    /** Copies {@code region[0, length)} back to the blocks' places in {@code flat}. */
    public void scatter(float[] region, float[] flat) {
        int at = 0;
        for (ParamBlock b : blocks) {
            System.arraycopy(region, at, flat, b.offset(), b.length());
            at += b.length();
        }
    }

    /**
     * Where the blocks lying in elements {@code from..to} of the flattened vector sit in the region: {@code {lo, hi}},
     * contiguous because the region keeps its blocks in the vector's order ({@code {0, 0}} when none lies there).
     *
     * @throws IllegalArgumentException when a block straddles {@code from} or {@code to}, or the blocks are not in
     *                                  the vector's order
     */
    public int[] span(int from, int to) {
        int at = 0;
        int lo = -1;
        int hi = -1;
        int previous = -1;
        for (ParamBlock b : blocks) {
            if (b.offset() < previous) {
                throw new IllegalArgumentException("a region's span needs its blocks in the vector's order; "
                        + b.qualifiedName() + " at " + b.offset() + " comes after a block at " + previous);
            }
            previous = b.offset();
            int end = b.offset() + b.length();
            boolean inside = b.offset() >= from && end <= to;
            if (!inside && b.offset() < to && end > from && b.length() > 0) {
                throw new IllegalArgumentException("block " + b.qualifiedName() + " (elements " + b.offset() + ".."
                        + end + ") straddles the range " + from + ".." + to);
            }
            if (inside) {
                lo = lo < 0 ? at : lo;
                hi = at + b.length();
            }
            at += b.length();
        }
        return lo < 0 ? new int[] {0, 0} : new int[] {lo, hi};
    }

    /** {@link #gather(float[], float[])} of the blocks lying in elements {@code from..to} of {@code flat} only. */
    public void gather(float[] flat, float[] into, int from, int to) {
        int at = 0;
        for (ParamBlock b : blocks) {
            if (b.offset() >= from && b.offset() + b.length() <= to) {
                System.arraycopy(flat, b.offset(), into, at, b.length());
            }
            at += b.length();
        }
    }

    /** {@link #scatter(float[], float[])} of the blocks lying in elements {@code from..to} of {@code flat} only. */
    public void scatter(float[] region, float[] flat, int from, int to) {
        int at = 0;
        for (ParamBlock b : blocks) {
            if (b.offset() >= from && b.offset() + b.length() <= to) {
                System.arraycopy(region, at, flat, b.offset(), b.length());
            }
            at += b.length();
        }
    }
}

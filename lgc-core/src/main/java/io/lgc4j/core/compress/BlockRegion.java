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
}

package io.lgc4j.core.compress;

import io.lgc4j.core.layout.ParamBlock;

import java.util.List;

/**
 * The compressible blocks of a layout laid end to end: block i occupies {@code [start(i), start(i) + length(i))}
 * of a region vector. Compressor memories live in region coordinates.
 */
final class Region {
    private final List<ParamBlock> blocks;
    private final int[] starts;
    private final int length;

    Region(List<ParamBlock> blocks) {
        this.blocks = List.copyOf(blocks);
        this.starts = new int[blocks.size()];
        int n = 0;
        for (int i = 0; i < blocks.size(); i++) {
            starts[i] = n;
            n += blocks.get(i).length();
        }
        this.length = n;
    }

    int blockCount() {
        return blocks.size();
    }

    ParamBlock block(int i) {
        return blocks.get(i);
    }

    int start(int i) {
        return starts[i];
    }

    int length() {
        return length;
    }
}

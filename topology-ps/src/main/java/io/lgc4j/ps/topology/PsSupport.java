package io.lgc4j.ps.topology;

import io.lgc4j.core.compress.Compressor;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.sparse.TopK;

import java.util.List;

/** Bounds a receiver of the parameter server puts on decoded supports. */
final class PsSupport {
    private PsSupport() {
    }

    /** Per block, the most indices one rank may send at {@code step}. */
    static int[] maxCounts(List<ParamBlock> blocks, Compressor compressor, int step) {
        int[] max = new int[blocks.size()];
        for (int b = 0; b < max.length; b++) {
            max[b] = TopK.countFor(blocks.get(b).length(), compressor.density(step));
        }
        return max;
    }

    /** Per block, its length: the bound of a union of supports. */
    static int[] blockLengths(List<ParamBlock> blocks) {
        return blocks.stream().mapToInt(ParamBlock::length).toArray();
    }
}

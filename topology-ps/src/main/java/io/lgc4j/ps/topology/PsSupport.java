package io.lgc4j.ps.topology;

import io.lgc4j.core.compress.Compressor;
import io.lgc4j.core.layout.ParamBlock;

import java.util.List;

/** Bounds a receiver of the parameter server puts on decoded supports. */
final class PsSupport {
    private PsSupport() {
    }

    /** Per block, the most indices one rank may send at {@code step} (each block by its own density). */
    static int[] maxCounts(List<ParamBlock> blocks, Compressor compressor, int step) {
        int[] max = new int[blocks.size()];
        for (int b = 0; b < max.length; b++) {
            max[b] = compressor.count(step, blocks.get(b));
        }
        return max;
    }

    /** The number of values on a support of {@code support}'s per-block lengths. */
    static int total(int[][] support) {
        int total = 0;
        for (int[] s : support) {
            total += s.length;
        }
        return total;
    }

    /** Per block, its length: the bound of a union of supports. */
    static int[] blockLengths(List<ParamBlock> blocks) {
        return blocks.stream().mapToInt(ParamBlock::length).toArray();
    }
}

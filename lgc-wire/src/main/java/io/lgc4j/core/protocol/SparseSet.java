package io.lgc4j.core.protocol;

import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.sparse.SparseVector;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One sparse vector per compressible block, indices relative to the block's first element: what one rank sends,
 * or the aggregate it receives.
 *
 * @param blocks in layout order, {@code blocks.get(i).length()} equal to the i-th block's length
 */
public record SparseSet(List<SparseVector> blocks) {

    /** Copies the list. */
    public SparseSet {
        blocks = List.copyOf(blocks);
    }

    /**
     * Values concatenated in block order laid on a support: block {@code b} takes the next {@code support[b].length}
     * values at {@code support[b]} (indices relative to the block).
     */
    public static SparseSet onSupport(List<ParamBlock> blocks, int[][] support, float[] values) {
        List<SparseVector> out = new ArrayList<>(support.length);
        int at = 0;
        for (int b = 0; b < support.length; b++) {
            out.add(new SparseVector(blocks.get(b).length(), support[b],
                    Arrays.copyOfRange(values, at, at + support[b].length)));
            at += support[b].length;
        }
        return new SparseSet(out);
    }

    /** Non-zeros sent over all blocks. */
    public int nnz() {
        int n = 0;
        for (SparseVector v : blocks) {
            n += v.nnz();
        }
        return n;
    }

    /** Writes every block's values into the flattened {@code gradient}, zeroing the rest of those blocks. */
    public void writeInto(float[] gradient, List<ParamBlock> layoutBlocks) {
        for (int b = 0; b < blocks.size(); b++) {
            ParamBlock block = layoutBlocks.get(b);
            Arrays.fill(gradient, block.offset(), block.end(), 0f);
            blocks.get(b).scatterInto(gradient, block.offset());
        }
    }
}

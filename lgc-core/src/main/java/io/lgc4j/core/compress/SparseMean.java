package io.lgc4j.core.compress;

import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.protocol.SparseSet;
import io.lgc4j.core.sparse.SparseVector;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Averages sparse sets of several ranks: sums them in the order they are added (callers add in rank order, so
 * the result does not depend on arrival), and returns the mean on the union of their supports.
 */
public final class SparseMean {
    private final List<ParamBlock> blocks;
    private final float[][] sums;
    private final boolean[][] touched;

    /** An accumulator for sets over {@code blocks}. */
    public SparseMean(List<ParamBlock> blocks) {
        this.blocks = List.copyOf(blocks);
        this.sums = new float[blocks.size()][];
        this.touched = new boolean[blocks.size()][];
        for (int b = 0; b < blocks.size(); b++) {
            sums[b] = new float[blocks.get(b).length()];
            touched[b] = new boolean[blocks.get(b).length()];
        }
    }

    /** Starts a new aggregate. */
    public void reset() {
        for (int b = 0; b < blocks.size(); b++) {
            Arrays.fill(sums[b], 0f);
            Arrays.fill(touched[b], false);
        }
    }

    /** Adds one rank's set. */
    public void add(SparseSet set) {
        for (int b = 0; b < blocks.size(); b++) {
            SparseVector v = set.blocks().get(b);
            int[] idx = v.indices();
            float[] val = v.values();
            for (int i = 0; i < idx.length; i++) {
                sums[b][idx[i]] += val[i];
                touched[b][idx[i]] = true;
            }
        }
    }

    /** The sum divided by {@code ranks}, on the union of the supports added since {@link #reset()}. */
    public SparseSet mean(int ranks) {
        List<SparseVector> out = new ArrayList<>(blocks.size());
        float k = ranks;
        for (int b = 0; b < blocks.size(); b++) {
            int count = 0;
            for (boolean t : touched[b]) {
                if (t) {
                    count++;
                }
            }
            int[] idx = new int[count];
            float[] val = new float[count];
            int at = 0;
            for (int i = 0; i < touched[b].length; i++) {
                if (touched[b][i]) {
                    idx[at] = i;
                    val[at++] = sums[b][i] / k;
                }
            }
            out.add(new SparseVector(blocks.get(b).length(), idx, val));
        }
        return new SparseSet(out);
    }
}

package io.lgc4j.lgc.support;

import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.protocol.SparseSet;
import io.lgc4j.core.sparse.SparseVector;
import io.lgc4j.core.sparse.TopK;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Where the values of one rank's step sit: the compressible blocks in layout order, how many values each sends
 * (⌈ratio·n_l⌉), and which of them are LEARNED. The values of a step are concatenated in block order; the LEARNED
 * blocks' values, concatenated in the same order, are the compact vector g̃ of length μ that the autoencoder reads,
 * and the TOP_K blocks' values are the "plain" part that always travels as values. Shared by LGC-PS and LGC-RAR.
 */
public final class CompactLayout {
    private final List<ParamBlock> blocks;
    private final int[] counts;
    private final boolean[] learned;
    private final int mu;
    private final int total;

    /**
     * @throws IllegalArgumentException if the layout has no LEARNED block (there would be nothing to encode)
     */
    public CompactLayout(GradientLayout layout, double ratio) {
        this.blocks = layout.compressibleBlocks();
        this.counts = new int[blocks.size()];
        this.learned = new boolean[blocks.size()];
        int m = 0;
        int t = 0;
        for (int b = 0; b < blocks.size(); b++) {
            learned[b] = blocks.get(b).policy() == LayerPolicy.LEARNED;
            counts[b] = TopK.countFor(blocks.get(b).length(), ratio);
            m += learned[b] ? counts[b] : 0;
            t += counts[b];
        }
        if (m == 0) {
            throw new IllegalArgumentException("LGC needs at least one LEARNED block for the autoencoder to carry; "
                    + "the layout's policies are " + layout.blocks().stream()
                    .map(b -> b.qualifiedName() + "=" + b.policy()).toList());
        }
        this.mu = m;
        this.total = t;
    }

    /** The compressible blocks (TOP_K and LEARNED), in layout order. */
    public List<ParamBlock> blocks() {
        return blocks;
    }

    /** Per compressible block, the number of values one rank sends. */
    public int[] counts() {
        return counts.clone();
    }

    /** μ: the length of the compact vector. */
    public int mu() {
        return mu;
    }

    /** The number of values one rank sends per step over all compressible blocks. */
    public int total() {
        return total;
    }

    /** The number of values of the TOP_K blocks (the part that never goes through the autoencoder). */
    public int plainLength() {
        return total - mu;
    }

    /**
     * Checks that a support decoded from the wire has exactly the per-block counts (the decoder only bounds them),
     * so that a rank's values and compact vector have their fixed lengths.
     */
    public void requireFullSupport(int[][] support, String source, int step) {
        for (int b = 0; b < counts.length; b++) {
            if (support[b].length != counts[b]) {
                throw new FrameException("indices of step " + step + " from " + source + ", block " + b + " ("
                        + blocks.get(b).qualifiedName() + "): expected " + counts[b] + " indices, found "
                        + support[b].length);
            }
        }
    }

    /** The compact vector: the LEARNED blocks' values of {@code values}, in block order. */
    public float[] learnedPart(float[] values) {
        return part(values, true, mu);
    }

    /** The TOP_K blocks' values of {@code values}, in block order. */
    public float[] plainPart(float[] values) {
        return part(values, false, total - mu);
    }

    /** The inverse of {@link #learnedPart} and {@link #plainPart}: one rank's values in block order. */
    public float[] merge(float[] plain, float[] compact) {
        float[] values = new float[total];
        int at = 0;
        int p = 0;
        int c = 0;
        for (int b = 0; b < counts.length; b++) {
            if (learned[b]) {
                System.arraycopy(compact, c, values, at, counts[b]);
                c += counts[b];
            } else {
                System.arraycopy(plain, p, values, at, counts[b]);
                p += counts[b];
            }
            at += counts[b];
        }
        return values;
    }

    /** {@code values} (concatenated in block order) laid on {@code support}. */
    public SparseSet toSparse(int[][] support, float[] values) {
        return SparseSet.onSupport(blocks, support, values);
    }

    private float[] part(float[] values, boolean wantLearned, int length) {
        float[] out = new float[length];
        int at = 0;
        int o = 0;
        for (int b = 0; b < counts.length; b++) {
            if (learned[b] == wantLearned) {
                System.arraycopy(values, at, out, o, counts[b]);
                o += counts[b];
            }
            at += counts[b];
        }
        return out;
    }
}

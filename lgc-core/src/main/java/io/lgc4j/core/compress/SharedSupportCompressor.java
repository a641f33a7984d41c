package io.lgc4j.core.compress;

import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.comm.ValueEncoding;

import java.util.List;

/**
 * A compressor whose ranks all send values on one support chosen by a leader rank each step (ScaleCom's cyclic
 * local top-k): the value vectors line up, so they sum element-wise and can ride a ring allreduce; the leader's
 * indices travel once (broadcast) per step. A {@link SeededSupportCompressor} (random-k) has a support every rank
 * computes by itself, so its indices never travel.
 */
public non-sealed interface SharedSupportCompressor extends Compressor {

    @Override
    default boolean summable() {
        return true;
    }

    /** The rank that chooses the support at {@code step}. Deterministic: every rank computes the same. */
    int leader(int step, int workers);

    /** A fresh per-rank state for {@code blocks} (the compressible blocks, in layout order). */
    State newRank(List<ParamBlock> blocks);

    /**
     * The memory ScaleCom keeps, for a shared-support compressor of another module: per step m' = (1−β)·m + β·(m + g −
     * sent), β = {@code lowPass} (1: error feedback); its support is the leader's top-k of the compensated vector by
     * magnitude, {@code compressor}'s count per block.
     *
     * @param blocks     the compressible blocks, in layout order
     * @param compressor whose {@link Compressor#count} sizes each block's support
     * @param lowPass    β in (0, 1]
     */
    static State lowPassMemory(List<ParamBlock> blocks, Compressor compressor, double lowPass) {
        return new SupportMemory(new Region(blocks), compressor, lowPass);
    }

    /** One rank's memory; per step: {@link #compensate}, then (leader) {@link #chooseSupport}, then {@link #take}. */
    interface State extends CompressorState {
        /** Adds the rank's gradient to its memory (the compensated vector the step works on). */
        void compensate(float[] gradient, int step);

        /** The leader's support: per block, ascending indices relative to the block. */
        int[][] chooseSupport(int step);

        /**
         * The compensated values on {@code support}, concatenated over blocks in block order (one frame), rounded to
         * the {@link #values(ValueEncoding) value encoding}; updates the memory for what was sent.
         */
        float[] take(int[][] support);

        /**
         * Error feedback of what a lossy stage after {@link #take} lost: {@code amounts} (concatenated over blocks in
         * block order, one per index of {@code support}) go into the memory at {@code support} the way the memory
         * takes in what is not sent — whole for plain error feedback, times β for a low-pass filtered memory, so that
         * the filter sees {@code sent − amounts} as what was sent.
         */
        default void feedBack(int[][] support, float[] amounts) {
            throw new UnsupportedOperationException(getClass().getSimpleName() + " does not take feedback");
        }

        /** The memory of the compressible region, concatenated in block order, for inspection. */
        float[] residual();
    }
}

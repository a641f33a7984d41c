package io.lgc4j.core.compress;

import io.lgc4j.core.layout.ParamBlock;

import java.util.List;

/**
 * A shared-support compressor whose support is a function of the run's seed, the step and the block (random-k):
 * every rank, and a parameter server, computes the same support by itself. No rank leads and no indices cross the
 * wire; the ranks' values line up as for any shared support, so they are summed (ring allreduce) or averaged (the
 * server) like ScaleCom's, and only the values frames travel.
 *
 * <pre>{@code
 * SeededSupportCompressor randomk = new RandomKCompressor(0.001, seed);
 * int[][] support = randomk.support(step, layout.compressibleBlocks());   // the same on every rank
 * }</pre>
 */
public interface SeededSupportCompressor extends SharedSupportCompressor {

    /**
     * The support of {@code step}: per block of {@code blocks}, {@link #count} ascending indices relative to the
     * block. A pure function of the seed, the step and each block's {@link ParamBlock#index()}; a rank state's
     * {@link State#chooseSupport} returns the same.
     */
    int[][] support(int step, List<ParamBlock> blocks);

    /** No rank leads: the topologies never ask. Rank 0, for a caller that does. */
    @Override
    default int leader(int step, int workers) {
        return 0;
    }
}

package io.lgc4j.core.compress;

import io.lgc4j.core.layout.ParamBlock;

import io.lgc4j.core.protocol.SparseSet;
import java.util.List;

/**
 * A compressor whose payload is each rank's own sparse set (its own supports): payloads of different ranks do not
 * line up, so they are not summable and travel by gather (to a server) or all-gather (around a ring).
 */
public non-sealed interface GatherCompressor extends Compressor {

    @Override
    default boolean summable() {
        return false;
    }

    /** A fresh per-rank state for {@code blocks} (the compressible blocks, in layout order). */
    State newRank(List<ParamBlock> blocks);

    /** One rank's memory. Used by that rank's thread only. */
    interface State extends CompressorState {
        /**
         * Compensates the rank's gradient with its memory, selects what to send, and updates the memory so that
         * memory = compensated input − sent (exactly, element by element).
         *
         * @param gradient the rank's flattened gradient (only the compressible blocks are read; it is not modified)
         * @return what this rank sends, per block
         */
        SparseSet compress(float[] gradient, int step);
    }
}

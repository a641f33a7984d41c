package io.lgc4j.core.compress;

import io.lgc4j.core.layout.ParamBlock;

import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.protocol.Sketch;
import io.lgc4j.core.protocol.SparseSet;
import java.util.List;

/**
 * A compressor whose payload is a linear sketch plus a support bitmap (S2 Reducer's sparse sketch): sketches of
 * different ranks add element-wise and bitmaps combine by OR, so they ride a ring allreduce; each rank then
 * decompresses the summed sketch at the positions the summed bitmap marks.
 */
public non-sealed interface SketchCompressor extends Compressor {

    @Override
    default boolean summable() {
        return true;
    }

    /**
     * A fresh per-rank state for {@code blocks} (the compressible blocks, in layout order). {@code seed} fixes the
     * hash functions and must be the same on every rank.
     */
    State newRank(List<ParamBlock> blocks, long seed);

    /** One rank's memory. */
    interface State extends CompressorState {
        /**
         * Compensates the gradient with the memory, selects the top entries, and sketches them; the memory becomes
         * compensated input − selected (exactly).
         */
        Sketch compress(float[] gradient, int step);

        /** The estimated mean over {@code workers} ranks from the sum of their sketches (OR of their bitmaps). */
        SparseSet decompress(Sketch sum, int workers, int step);

        /**
         * Refuses a diagnostic tap: a sketch's rank state selects inside its sketch and has no offer to show in the
         * form {@link OfferTap} reads.
         *
         * @throws UnsupportedOperationException always
         */
        default void tap(OfferTap tap) {
            throw new UnsupportedOperationException("the diagnostic mode does not support sketch compressors ("
                    + getClass().getSimpleName() + "): their rank state has no compensated vector to show");
        }

        /** Any encoding: S2's counters always travel in float32, whatever the run's values. */
        @Override
        default void values(ValueEncoding encoding) {
        }
    }
}

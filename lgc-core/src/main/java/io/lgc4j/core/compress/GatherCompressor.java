package io.lgc4j.core.compress;

import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.protocol.ValueEncoding;

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
    interface State extends io.lgc4j.core.checkpoint.Persistent {
        /**
         * Compensates the rank's gradient with its memory, selects what to send, and updates the memory so that
         * memory = compensated input − sent (exactly, element by element).
         *
         * @param gradient the rank's flattened gradient (only the compressible blocks are read; it is not modified)
         * @return what this rank sends, per block
         */
        SparseSet compress(float[] gradient, int step);

        /**
         * Shows {@code tap} what each later step offers (diagnostics; {@code null} removes it). Taking a tap changes
         * nothing the state computes.
         */
        void tap(OfferTap tap);

        /**
         * The encoding the values this state hands out travel in, from the next step on (fp32 until it is set): the
         * state rounds them to what the receivers decode, as the one frame they travel in, and keeps the rounding
         * error in its memory (memory = compensated − decoded, exactly). Exchanges set it every step from
         * {@link io.lgc4j.core.train.StepTag#values()}. The default refuses anything but fp32, so a state that does not
         * round never sends half-precision values its memory does not know of.
         *
         * @throws UnsupportedOperationException when the state cannot round to {@code encoding}
         */
        default void values(ValueEncoding encoding) {
            if (encoding != ValueEncoding.FP32) {
                throw new UnsupportedOperationException(getClass().getName() + " cannot send " + encoding
                        + " values: it does not round what it sends to what the receivers decode, so its memory would"
                        + " lose the rounding; use compressor.values fp32, or override values(ValueEncoding)");
            }
        }

        /** The memory (residual) of the compressible region, concatenated in block order, for inspection. */
        float[] residual();
    }
}

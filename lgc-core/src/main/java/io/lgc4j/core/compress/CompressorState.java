package io.lgc4j.core.compress;

import io.lgc4j.core.checkpoint.Persistent;
import io.lgc4j.core.comm.ValueEncoding;

/**
 * One rank's compressor state, whatever way its payloads aggregate: the parent of {@link GatherCompressor.State},
 * {@link SharedSupportCompressor.State}, {@link SketchCompressor.State} and {@link LowRankCompressor.State}. What every
 * kind has — its memory saved in checkpoints, a diagnostic tap, the encoding its values travel in, the memory for
 * inspection — is declared once here, so an exchange reaches it without asking which kind it holds.
 */
public interface CompressorState extends Persistent {

    /**
     * Shows {@code tap} what each later step offers (diagnostics; {@code null} removes it). Taking a tap changes
     * nothing the state computes.
     *
     * @throws UnsupportedOperationException for a state with no offer to show (a sketch's)
     */
    void tap(OfferTap tap);

    /**
     * The encoding the values this state hands out travel in, from the next step on (fp32 until it is set): a state
     * that sends values rounds them to what the receivers decode and keeps the rounding in its memory. Exchanges set
     * it every step from {@link io.lgc4j.core.comm.StepTag#values()}. The default refuses anything but fp32, so a state
     * that does not round never sends half-precision values its memory does not know of.
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

    /**
     * Adds {@code residual} (the compressible region, concatenated in block order, as {@link #residual()} gives it)
     * into this state's error-feedback memory: at the end of a compressed warm-up ({@code warmup.carryMemory}) the
     * warm-up compressor's residual is sent by the main compressor's error feedback. The default keeps no memory and
     * drops it.
     *
     * @return whether the residual was absorbed; {@code false}: this state keeps no memory, and the residual is lost
     *         (as with {@code carryMemory: false})
     */
    default boolean absorb(float[] residual) {
        return false;
    }

    /** The memory of the compressible region, concatenated in block order, for inspection. */
    float[] residual();
}

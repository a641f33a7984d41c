package io.lgc4j.core.compress;

import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.checkpoint.Persistent.Regrouping;
import io.lgc4j.core.checkpoint.Persistent;

import java.util.Optional;

/**
 * An exchange (or a PS worker's step) whose memory across steps is one compressor state: what it shows a diagnostic
 * tap, the memory a warm-up hands over, the checkpoint part — written once here, for every topology's exchange of
 * a compressed method. A subclass names the state ({@link #carried()}); one that keeps more (LGC's autoencoder and
 * protocol flags) saves and restores the state here and its own parts after it.
 *
 * <pre>{@code
 * final class CompressedRingExchange extends CarriedState implements GradientExchange {
 *     protected CompressorState carried() { return state.state(); }
 * }
 * }</pre>
 */
public abstract class CarriedState implements Persistent {

    /** The compressor state this exchange keeps from one step to the next. */
    protected abstract CompressorState carried();

    /** Shows {@code tap} the state's offers (a sketch state has none: it throws). */
    public void tap(OfferTap tap) {
        carried().tap(tap);
    }

    /** The state's error-feedback memory. */
    public Optional<float[]> memory() {
        return Optional.of(carried().residual());
    }

    /** Adds a warm-up's residual into the state's memory, if it keeps one. */
    public boolean absorb(float[] residual) {
        return carried().absorb(residual);
    }

    /** The state's memory under {@code prefix}. */
    @Override
    public void save(CheckpointPart.Builder part, String prefix) {
        carried().save(part, prefix);
    }

    @Override
    public Regrouping regrouping(String prefix) {
        return carried().regrouping(prefix);
    }

    @Override
    public void restore(CheckpointPart part, String prefix) throws CheckpointException {
        carried().restore(part, prefix);
    }
}

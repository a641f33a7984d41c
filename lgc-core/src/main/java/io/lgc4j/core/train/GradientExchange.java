package io.lgc4j.core.train;

import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.checkpoint.Persistent;
import io.lgc4j.core.comm.StepTag;
import io.lgc4j.core.compress.OfferTap;
import io.lgc4j.core.link.GradientPieces;
import io.lgc4j.core.metrics.PhaseClock;

import java.util.Optional;

/**
 * One worker rank's side of a topology's gradient aggregation. Every rank calls {@link #allReduceMean} once per
 * step from its own thread; the call returns when this rank holds the aggregate. A method that averages models rather
 * than gradients (local SGD) leaves a local step's gradient as it is, and averages the parameters after the update of
 * the steps {@link #averagesParameters} names.
 *
 * <p>An exchange whose method keeps state from one step to the next (a compressor's memory, an autoencoder, protocol
 * flags) saves and restores it as a {@link Persistent}, called between steps; the defaults are for an exchange that
 * keeps none (dense).
 */
public interface GradientExchange extends Persistent {

    /**
     * Replaces {@code gradient} (this rank's flattened gradient) with the mean over all ranks' gradients of this
     * step. Every rank ends with bit-identical contents.
     *
     * @param clock this rank's clock; implementations time their encode, communicate and decode phases on it
     */
    void allReduceMean(StepTag tag, float[] gradient, PhaseClock clock);

    /**
     * Whether the ranks' parameters are averaged after step {@code tag}'s update ({@link #averageParameters}): true
     * for a method whose ranks apply gradients of their own and average their models now and then (local SGD). By
     * default false: every rank applied the mean, so the replicas are equal already.
     */
    default boolean averagesParameters(StepTag tag) {
        return false;
    }

    /**
     * Replaces {@code parameters} (this rank's flattened parameters, after step {@code tag}'s update) with their mean
     * over all ranks; called after the update of a step {@link #averagesParameters} says averages, never while a
     * computation runs ahead. Every rank ends with bit-identical contents; the updater's state stays each rank's.
     *
     * @param clock this rank's clock; the averaging's phases are timed on it as an exchange's are
     * @throws UnsupportedOperationException by default: an exchange that never averages parameters
     */
    default void averageParameters(StepTag tag, float[] parameters, PhaseClock clock) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " does not average parameters");
    }

    /**
     * Whether step {@code tag}'s exchange can start on the gradient's last layers while the backward pass still
     * computes the first ({@code training.overlap: backward}, {@link #allReduceMean(StepTag, float[], PhaseClock,
     * GradientPieces)}); by default false: the exchange needs the whole gradient.
     */
    default boolean streams(StepTag tag) {
        return false;
    }

    /**
     * {@link #allReduceMean(StepTag, float[], PhaseClock)} on a gradient the backward pass is still writing: a piece of
     * {@code gradient} is read only after {@code pieces} has handed it over. Runs on a thread of its own while the
     * rank's thread computes, and is the only thread that sends or receives until it returns. An exchange that
     * {@linkplain #streams streams} the step gives every rank the same bits as the whole-gradient call wherever its
     * value encoding rounds element by element (fp32, bf16); by default it waits for the whole gradient and makes
     * that call.
     *
     * @param clock the exchange thread's clock (its phases are traced, not reported: the rank's clock reports the
     *              time the exchange was not hidden)
     */
    default void allReduceMean(StepTag tag, float[] gradient, PhaseClock clock, GradientPieces pieces) {
        for (GradientPieces.Piece p : pieces.pieces()) {
            pieces.await(p);
        }
        allReduceMean(tag, gradient, clock);
    }

    /**
     * Shows {@code tap} what this rank's compressor offers in each later compressed step (the diagnostic mode). The
     * default is for an exchange that sends the gradient as it is: it has no compressor and nothing to show.
     *
     * @throws UnsupportedOperationException when the method's compressor cannot show its offer (a sketch)
     */
    default void tap(OfferTap tap) {
    }

    /**
     * Whether notes of a step may still be in the making when {@link #allReduceMean} returns (written by work the step
     * left on a thread of the exchange's own: LGC-RAR's rank 0 trains its autoencoder so). Rank 0 then completes a
     * step's metrics at the end of the next step (or at once when a checkpoint is due after it), after
     * {@link #awaitNotes}; by default false.
     */
    default boolean notesLag() {
        return false;
    }

    /** Waits until every note of step {@code step} this exchange writes is written; by default nothing to wait for. */
    default void awaitNotes(int step) {
    }

    /**
     * This rank's error-feedback memory over the compressible blocks (concatenated in block order, a copy), for a
     * compressed warm-up to hand to the main method at the switch ({@code warmup.carryMemory}); empty for an exchange
     * that keeps none (dense). Between steps only.
     */
    default Optional<float[]> memory() {
        return Optional.empty();
    }

    /**
     * Adds {@code residual} (as {@link #memory()} gives it) into this rank's error-feedback memory, at the switch from
     * a compressed warm-up ({@link io.lgc4j.core.compress.CompressorState#absorb}). Between steps only.
     *
     * @return whether it was absorbed; {@code false}: this exchange keeps no memory (dense, or a compressor without
     *         error feedback) and the residual is dropped
     */
    default boolean absorb(float[] residual) {
        return false;
    }

    @Override
    default void save(CheckpointPart.Builder part, String prefix) {
    }

    @Override
    default void restore(CheckpointPart part, String prefix) throws CheckpointException {
    }
}

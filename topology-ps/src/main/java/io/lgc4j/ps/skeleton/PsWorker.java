package io.lgc4j.ps.skeleton;

import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.checkpoint.Persistent.Regrouping;
import io.lgc4j.core.checkpoint.Persistent;
import io.lgc4j.core.comm.StepTag;
import io.lgc4j.core.compress.OfferTap;
import io.lgc4j.core.link.GradientPieces;
import io.lgc4j.core.metrics.PhaseClock;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.train.GradientExchange;

import java.util.Objects;
import java.util.Optional;

/**
 * A worker of the parameter server, for every method: FULL steps are dense (the whole gradient up, the mean down);
 * the other stages go to the method's {@link Step}, or are dense too when the method has none.
 */
public final class PsWorker implements GradientExchange {

    /** A method's worker side of a TOP_K or COMPRESSED step. */
    public interface Step extends Persistent {
        /** Replaces {@code gradient} with the step's aggregate, as {@link GradientExchange#allReduceMean}. */
        void run(StepTag tag, float[] gradient, PhaseClock clock);

        /** As {@link GradientExchange#tap}: shows {@code tap} this rank's compressor's offers. */
        void tap(OfferTap tap);

        /** As {@link GradientExchange#memory()}: this rank's error-feedback memory; by default none. */
        default Optional<float[]> memory() {
            return Optional.empty();
        }

        /** As {@link GradientExchange#absorb}: by default no memory, the residual dropped. */
        default boolean absorb(float[] residual) {
            return false;
        }
    }

    /**
     * An exchange that runs {@code step} at every stage, FULL included: a compressed warm-up's
     * ({@link io.lgc4j.core.warmup.WarmupExchange}), whose FULL steps travel as the warm-up compressor's payload.
     */
    public static GradientExchange everyStage(Step step) {
        Objects.requireNonNull(step, "step");
        return new GradientExchange() {
            @Override
            public void allReduceMean(StepTag tag, float[] gradient, PhaseClock clock) {
                step.run(tag, gradient, clock);
            }

            @Override
            public void tap(OfferTap tap) {
                step.tap(tap);
            }

            @Override
            public Optional<float[]> memory() {
                return step.memory();
            }

            @Override
            public boolean absorb(float[] residual) {
                return step.absorb(residual);
            }

            @Override
            public void save(CheckpointPart.Builder part, String prefix) {
                step.save(part, prefix);
            }

            @Override
            public void restore(CheckpointPart part, String prefix) throws CheckpointException {
                step.restore(part, prefix);
            }

            @Override
            public Regrouping regrouping(String prefix) {
                return step.regrouping(prefix);
            }
        };
    }

    private final PsWorkerEnd end;
    private final Step compressed;

    /**
     * @param end        this worker's end of the server
     * @param compressed the method's non-FULL step, or {@code null} for the dense server
     */
    public PsWorker(PsWorkerEnd end, Step compressed) {
        this.end = end;
        this.compressed = compressed;
    }

    /** A dense step takes the gradient piece by piece. */
    @Override
    public boolean streams(StepTag tag) {
        return compressed == null || tag.stage() == Stage.FULL;
    }

    @Override
    public void allReduceMean(StepTag tag, float[] gradient, PhaseClock clock, GradientPieces pieces) {
        if (streams(tag)) {
            end.fullStep(tag, gradient, clock, pieces);
        } else {
            GradientExchange.super.allReduceMean(tag, gradient, clock, pieces);
        }
    }

    @Override
    public void allReduceMean(StepTag tag, float[] gradient, PhaseClock clock) {
        if (compressed == null || tag.stage() == Stage.FULL) {
            end.fullStep(tag, gradient, clock);
        } else {
            compressed.run(tag, gradient, clock);
        }
    }

    @Override
    public void save(CheckpointPart.Builder part, String prefix) {
        if (compressed != null) {
            compressed.save(part, prefix);
        }
    }

    @Override
    public void restore(CheckpointPart part, String prefix) throws CheckpointException {
        if (compressed != null) {
            compressed.restore(part, prefix);
        }
    }

    @Override
    public Regrouping regrouping(String prefix) {
        return compressed == null ? Regrouping.NONE : compressed.regrouping(prefix);
    }

    @Override
    public void tap(OfferTap tap) {
        if (compressed != null) {
            compressed.tap(tap);
        }
    }

    @Override
    public Optional<float[]> memory() {
        return compressed == null ? Optional.empty() : compressed.memory();
    }

    @Override
    public boolean absorb(float[] residual) {
        return compressed != null && compressed.absorb(residual);
    }
}

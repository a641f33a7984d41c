package io.lgc4j.core.warmup;

import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.checkpoint.Persistent.Regrouping;
import io.lgc4j.core.comm.StepTag;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.compress.OfferTap;
import io.lgc4j.core.link.GradientPieces;
import io.lgc4j.core.metrics.PhaseClock;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.train.GradientExchange;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * One rank's exchange with a compressed warm-up: FULL steps go to the warm-up exchange (or, for a dense warm-up in
 * another encoding, to the main exchange in that encoding); every later step to the main exchange. {@link #wrap}
 * returns the main exchange itself for {@link Warmup#NONE}.
 *
 * <p>Before the first non-FULL step, with {@code carryMemory}, the warm-up's residual is absorbed into the main
 * exchange's memory ({@link GradientExchange#absorb}) exactly once, unless the main method keeps no memory; the
 * warm-up exchange is not used again. Checkpoints: the main exchange saves under the prefix, the warm-up under
 * {@code prefix/warmup} with {@code prefix/warmup/switched}, so a resume before or after the switch is exact.
 */
public final class WarmupExchange implements GradientExchange {

    private final GradientExchange warmup;
    private final GradientExchange main;
    private final ValueEncoding values;
    private final boolean carryMemory;
    private boolean switched;

    private WarmupExchange(GradientExchange warmup, GradientExchange main, ValueEncoding values, boolean carryMemory) {
        this.warmup = warmup;
        this.main = Objects.requireNonNull(main, "main");
        this.values = values;
        this.carryMemory = carryMemory;
    }

    /**
     * {@code main} with the FULL stage {@code warmup} describes.
     *
     * @param main          the method's exchange, which runs every stage but FULL (and FULL, for a dense warm-up)
     * @param warmup        the warm-up
     * @param warmupExchange builds the exchange of {@code warmup.compressor()} (called only when there is one): it must
     *                      compress every step it is given, FULL ones included
     * @return {@code main} itself for {@link Warmup#NONE}, else the exchange with the warm-up
     */
    public static GradientExchange wrap(GradientExchange main, Warmup warmup,
                                        Supplier<? extends GradientExchange> warmupExchange) {
        if (warmup.isNone()) {
            return main;
        }
        return new WarmupExchange(warmup.compressor() == null ? null : warmupExchange.get(), main, warmup.values(),
                warmup.carryMemory());
    }

    @Override
    public void allReduceMean(StepTag tag, float[] gradient, PhaseClock clock) {
        if (tag.stage() == Stage.FULL) {
            StepTag full = values == null ? tag : tag.withValues(values);
            (warmup == null ? main : warmup).allReduceMean(full, gradient, clock);
            return;
        }
        if (!switched) {
            switched = true;
            if (carryMemory && warmup != null) {
                warmup.memory().ifPresent(main::absorb);
            }
        }
        main.allReduceMean(tag, gradient, clock);
    }

    /** A FULL step streams as the exchange that runs it does; any other as the main exchange does. */
    @Override
    public boolean streams(StepTag tag) {
        if (tag.stage() == Stage.FULL) {
            return (warmup == null ? main : warmup).streams(values == null ? tag : tag.withValues(values));
        }
        return main.streams(tag) && switched; // the switch (absorbing the residual) comes first
    }

    @Override
    public void allReduceMean(StepTag tag, float[] gradient, PhaseClock clock, GradientPieces pieces) {
        if (tag.stage() == Stage.FULL) {
            StepTag full = values == null ? tag : tag.withValues(values);
            (warmup == null ? main : warmup).allReduceMean(full, gradient, clock, pieces);
        } else if (streams(tag)) {
            main.allReduceMean(tag, gradient, clock, pieces);
        } else {
            GradientExchange.super.allReduceMean(tag, gradient, clock, pieces);
        }
    }

    /** @return whether the first step after FULL has begun (the residual, if carried, is in the main memory) */
    public boolean switched() {
        return switched;
    }

    @Override
    public void tap(OfferTap tap) {
        main.tap(tap);
    }

    @Override
    public boolean notesLag() {
        return main.notesLag();
    }

    @Override
    public void awaitNotes(int step) {
        main.awaitNotes(step);
    }

    @Override
    public Optional<float[]> memory() {
        return main.memory();
    }

    @Override
    public boolean absorb(float[] residual) {
        return main.absorb(residual);
    }

    @Override
    public void save(CheckpointPart.Builder part, String prefix) {
        main.save(part, prefix);
        if (warmup != null) {
            warmup.save(part, prefix + "/" + Warmup.SECTION);
            part.section(prefix + "/" + Warmup.SECTION + "/switched").putBoolean(switched);
        }
    }

    @Override
    public Regrouping regrouping(String prefix) {
        Regrouping rules = main.regrouping(prefix);
        if (warmup == null) {
            return rules;
        }
        return rules.and(warmup.regrouping(prefix + "/" + Warmup.SECTION))
                .and(prefix + "/" + Warmup.SECTION + "/switched", Regrouping.Rule.REPLICATED);
    }

    @Override
    public void restore(CheckpointPart part, String prefix) throws CheckpointException {
        main.restore(part, prefix);
        if (warmup != null) {
            warmup.restore(part, prefix + "/" + Warmup.SECTION);
            var s = part.section(prefix + "/" + Warmup.SECTION + "/switched");
            switched = s.getBoolean();
            s.end();
        }
    }
}

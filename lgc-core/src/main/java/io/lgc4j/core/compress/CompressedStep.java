package io.lgc4j.core.compress;

import io.lgc4j.core.comm.StepTag;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.metrics.Phase;
import io.lgc4j.core.metrics.PhaseClock;
import io.lgc4j.core.protocol.Sketch;
import io.lgc4j.core.protocol.SparseSet;

import java.util.List;

/**
 * One rank's compressed step, written once for every topology: what the rank's compressor state does with the step's
 * gradient for each of the four payload kinds, around the rounds its topology runs ({@link Rounds}: a parameter
 * server's pushes and means, a ring's allreduces and all-gathers). Each round that ends the step carries the DENSE
 * blocks' mean with it; the means land in the gradient.
 *
 * <pre>{@code
 * CompressedStep step = new CompressedStep(RankState.of(compressor, blocks), blocks, workers);
 * end.pushDense(tag, gradient, clock);                       // a topology's own start, if any
 * step.run(rounds, tag, gradient, clock);
 * }</pre>
 */
public final class CompressedStep {
    private final RankState state;
    private final List<ParamBlock> blocks;
    private final int workers;

    /**
     * @param state   this rank's compressor state
     * @param blocks  the gradient's compressible blocks, in layout order: where a kind's mean lands
     * @param workers the ranks taking part
     */
    public CompressedStep(RankState state, List<ParamBlock> blocks, int workers) {
        this.state = state;
        this.blocks = List.copyOf(blocks);
        this.workers = workers;
    }

    /** This rank's compressor state. */
    public RankState state() {
        return state;
    }

    /**
     * What a topology does with one rank's payload in a compressed step: the rounds that make a mean (or a sum) over
     * the ranks. A round named "…WithDense" or one that ends a kind's step ({@link #meanOfSets},
     * {@link #meanOnSupport}, {@link #sumOfSketches}) also brings the DENSE blocks' mean into {@code gradient}.
     */
    public interface Rounds {
        /**
         * Gather kind: this rank's sparse set out, every rank's in; their mean over the ranks (on the union of their
         * supports) written into {@code gradient}'s compressible blocks.
         */
        void meanOfSets(SparseSet own, GatherCompressor compressor, StepTag tag, float[] gradient, PhaseClock clock);

        /** Shared kind: the support the step's leader chooses from its state, as every rank learns it. */
        int[][] leadersSupport(RankState.Shared shared, StepTag tag, PhaseClock clock);

        /** Shared kind: this rank's values on {@code support}; their mean over the ranks written into the gradient. */
        void meanOnSupport(int[][] support, float[] values, StepTag tag, float[] gradient, PhaseClock clock);

        /** Sketch kind: the sum of every rank's sketch (counters added, bitmaps OR-ed); {@code own} may be reused. */
        Sketch sumOfSketches(Sketch own, StepTag tag, float[] gradient, PhaseClock clock);

        /** A low-rank step's first round: the mean over the ranks of {@code values} ({@code values} may be reused). */
        float[] mean(float[] values, StepTag tag, PhaseClock clock);

        /** A low-rank step's last round: as {@link #mean}, with the DENSE blocks' mean. */
        float[] meanWithDense(float[] values, StepTag tag, float[] gradient, PhaseClock clock);
    }

    /**
     * Step {@code tag}: the state's values' encoding set, then its kind's step around {@code rounds}; the gradient
     * holds the step's mean after it.
     */
    public void run(Rounds rounds, StepTag tag, float[] gradient, PhaseClock clock) {
        state.values(tag.values());
        state.onKind(g -> gather(g, rounds, tag, gradient, clock), s -> shared(s, rounds, tag, gradient, clock),
                k -> sketch(k, rounds, tag, gradient, clock), l -> lowRank(l, rounds, tag, gradient, clock));
    }

    private void gather(RankState.Gather g, Rounds rounds, StepTag tag, float[] gradient, PhaseClock clock) {
        clock.enter(Phase.SELECT);
        SparseSet own = g.state().compress(gradient, tag.step());
        rounds.meanOfSets(own, g.compressor(), tag, gradient, clock);
    }

    /** The step's support (drawn by every rank when seeded, else the leader's), the rank's values on it, their mean. */
    private void shared(RankState.Shared shared, Rounds rounds, StepTag tag, float[] gradient,
                               PhaseClock clock) {
        clock.enter(Phase.SELECT);
        shared.state().compensate(gradient, tag.step());
        int[][] support = shared.compressor() instanceof SeededSupportCompressor
                ? shared.state().chooseSupport(tag.step()) // every rank draws it: no indices travel
                : rounds.leadersSupport(shared, tag, clock);
        clock.enter(Phase.SELECT);
        float[] values = shared.state().take(support);
        rounds.meanOnSupport(support, values, tag, gradient, clock);
    }

    private void sketch(RankState.Sketch k, Rounds rounds, StepTag tag, float[] gradient, PhaseClock clock) {
        clock.enter(Phase.SELECT);
        Sketch own = k.state().compress(gradient, tag.step());
        Sketch sum = rounds.sumOfSketches(own, tag, gradient, clock);
        clock.enter(Phase.DECODE);
        k.state().decompress(sum, workers, tag.step()).writeInto(gradient, blocks);
    }

    /** PowerSGD: P (with the blocks it leaves plain) to its mean, then Q to its mean with the DENSE blocks'. */
    private void lowRank(RankState.LowRank l, Rounds rounds, StepTag tag, float[] gradient,
                                PhaseClock clock) {
        clock.enter(Phase.ENCODE);
        float[] first = rounds.mean(l.state().project(gradient, tag.step()), tag, clock);
        clock.enter(Phase.ENCODE);
        float[] second = rounds.meanWithDense(l.state().back(first, tag.step()), tag, gradient, clock);
        clock.enter(Phase.DECODE);
        l.state().finish(second, tag.step(), gradient);
    }
}

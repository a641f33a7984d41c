package io.lgc4j.ring.topology;

import io.lgc4j.core.comm.StepTag;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.metrics.PhaseClock;
import io.lgc4j.core.train.GradientExchange;
import io.lgc4j.ring.skeleton.RingEnd;

/**
 * A local SGD rank ({@link LocalSgdTopology}): the dense ring's step before {@code localFrom}, nothing after (the
 * rank applies its own gradient), and the parameters' mean by the dense ring's allreduce in fp32 after the steps the
 * {@link LocalSgdTopology.Settings} name.
 */
final class LocalSgdExchange implements GradientExchange {
    private final RingEnd end;
    private final DenseRingExchange dense;
    private final LocalSgdTopology.Settings settings;

    LocalSgdExchange(RingEnd end, LocalSgdTopology.Settings settings) {
        this.end = end;
        this.dense = new DenseRingExchange(end);
        this.settings = settings;
    }

    /** Before {@code localFrom} the dense ring's mean; from there on the gradient stays this rank's own. */
    @Override
    public void allReduceMean(StepTag tag, float[] gradient, PhaseClock clock) {
        if (settings.averagesGradients(tag.step())) {
            dense.allReduceMean(tag, gradient, clock);
        }
    }

    @Override
    public boolean averagesParameters(StepTag tag) {
        return settings.averagesParameters(tag.step());
    }

    /** The dense ring's mean of the parameters, always in fp32 (a model is not rounded to the run's encoding). */
    @Override
    public void averageParameters(StepTag tag, float[] parameters, PhaseClock clock) {
        end.fullStep(tag.withValues(ValueEncoding.FP32), parameters, clock);
    }
}

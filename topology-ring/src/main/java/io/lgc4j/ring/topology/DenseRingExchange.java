package io.lgc4j.ring.topology;

import io.lgc4j.core.comm.StepTag;
import io.lgc4j.core.link.GradientPieces;
import io.lgc4j.core.metrics.PhaseClock;
import io.lgc4j.core.train.GradientExchange;
import io.lgc4j.ring.skeleton.RingEnd;

/**
 * A dense ring rank: every step's mean around the ring ({@link RingEnd#fullStep}); under backward overlap piece by
 * piece as the backward pass finishes them.
 */
final class DenseRingExchange implements GradientExchange {
    private final RingEnd end;

    DenseRingExchange(RingEnd end) {
        this.end = end;
    }

    @Override
    public void allReduceMean(StepTag tag, float[] gradient, PhaseClock clock) {
        end.fullStep(tag, gradient, clock);
    }

    @Override
    public boolean streams(StepTag tag) {
        return true;
    }

    @Override
    public void allReduceMean(StepTag tag, float[] gradient, PhaseClock clock, GradientPieces pieces) {
        end.fullStep(tag, gradient, clock, pieces);
    }
}

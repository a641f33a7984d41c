package io.lgc4j.core.train;

import io.lgc4j.core.link.GradientPieces;
import io.lgc4j.core.metrics.Phase;
import io.lgc4j.core.metrics.PhaseClock;
import io.lgc4j.core.metrics.Timeline;
import io.lgc4j.core.metrics.TracedTransport;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * {@link Overlap#BACKWARD}: a thread runs a step's exchange while the rank's thread runs its backward pass. The
 * exchange reads a piece of the gradient only once the pass has finished it ({@link StreamedGradient}); it is the only
 * thread that sends or receives until the rank's thread has its result, and it touches neither the replica nor the
 * control plane. Its phases are traced on their own track; the rank's clock reports the pass as compute and the wait
 * for the exchange after it as communicate (the part the pass did not hide). A step whose exchange cannot stream
 * ({@link GradientExchange#streams}) runs in turn.
 */
final class ExchangeBeside extends StepOrder.Immediate {
    private final RankLoop.Run run;
    private final ExecutorService thread;
    private final List<GradientPieces.Piece> pieces;
    private final PhaseClock own = new PhaseClock(Timeline.NOOP, Timeline.EXCHANGE_THREAD);

    ExchangeBeside(RankLoop.Run run, RankCompute compute, GradientExchange exchange, ControlPlane link) {
        super(compute, exchange, link);
        this.run = run;
        this.pieces = GradientPieces.plan(run.plan().layout(), run.spec().aggregation().bucketBytes());
        this.thread = besideTheRank("lgc-exchange-rank-" + compute.rank(),
                () -> TracedTransport.trackThisThread(Timeline.EXCHANGE_THREAD));
        compute.timeline().threadName(Timeline.EXCHANGE_THREAD, "exchange beside the backward pass");
    }

    /** The step's pass with its exchange beside it; returns once this rank holds the step's mean. */
    @Override
    RankCompute.Computed gradient(Step step, PhaseClock clock) {
        if (!exchange.streams(step.tag())) {
            return super.gradient(step, clock);
        }
        int s = step.s();
        float[] into = gradient != null ? gradient : new float[compute.gradientLength()];
        StreamedGradient streamed = new StreamedGradient(pieces, run.plan().layout(), compute.replica()::gradient,
                into, compute.rank(), s);
        Timeline timeline = compute.timeline();
        Future<?> exchanged = thread.submit(() -> {
            own.timeline(step.traced() ? timeline : Timeline.NOOP);
            own.reset();
            exchange.allReduceMean(step.tag(), into, own, streamed);
            own.stop();
        });
        RankCompute.Computed computed;
        try {
            computed = compute.pass(s, clock, into, null, streamed);
        } catch (RuntimeException | Error e) {
            streamed.fail();
            throw e;
        }
        clock.enter(Phase.COMMUNICATE);
        outcome(exchanged, compute.rank(), s, "exchange");
        gradient = computed.gradient();
        return new RankCompute.Computed(s, computed.loss(), gradient, true);
    }

    /** Stops the thread; an exchange still running (a failed step's) ends when the links close. */
    @Override
    public void close() {
        thread.shutdownNow();
    }
}

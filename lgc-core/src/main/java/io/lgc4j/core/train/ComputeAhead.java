package io.lgc4j.core.train;

import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.metrics.Phase;
import io.lgc4j.core.metrics.PhaseClock;
import io.lgc4j.core.metrics.Timeline;

import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Delayed application ({@link Overlap#DELAYED}, {@link Overlap#PREDICTED}): a thread computes step s + 1's gradient
 * while the rank's thread exchanges step s's, and step s's mean is applied once step s + 1's gradient is taken (it
 * shares the model's gradient view). The thread touches only the replica's forward and backward pass, the batch
 * reader and its own gradient array; the rank's thread does not touch them until it has taken the result, and every
 * send and receive stays on the rank's thread. After the last step the mean is kept in its checkpoint only, so that
 * the state after step s is the same however long the run (a table's capped runs, an extended resume).
 */
final class ComputeAhead extends StepOrder {
    private final RankCompute compute;
    /** {@link Overlap#PREDICTED}: the pass runs at the parameters the mean applied last would give once more. */
    private final boolean predicts;
    private final ExecutorService thread;
    private Future<RankCompute.Computed> next;
    /** The mean of the last exchanged step, not yet applied (null when none is due). */
    private float[] pending;
    /** A gradient array free for the next step computed ahead. */
    private float[] spare;
    /** {@link Overlap#PREDICTED}: the mean applied last, applied once more to predict the parameters (else null). */
    private float[] predictor;
    /** This step's evaluation share, evaluated before its exchange. */
    private RunReport.Evaluated evaluated;

    ComputeAhead(RankCompute compute, boolean predicts) {
        this.compute = compute;
        this.predicts = predicts;
        this.thread = besideTheRank("lgc-compute-ahead-rank-" + compute.rank(), () -> {
        });
        compute.timeline().threadName(Timeline.COMPUTE_THREAD, "compute ahead");
    }

    /**
     * The step's gradient (computed ahead, or now when none was started: the first step, the step after a
     * checkpoint); then the mean of the step before is applied, and the next step's pass started unless a checkpoint
     * is due (it saves the replica: the next pass starts after the save).
     */
    @Override
    RankCompute.Computed gradient(Step step, PhaseClock clock) {
        RankCompute.Computed computed = take(step.s(), clock);
        if (pending != null) {
            compute.apply(pending, clock);
            spare = pending;
            predictor = predicts ? pending : null;
            pending = null;
        }
        if (step.epochEnd()) {
            compute.replica().endEpoch();
        }
        evaluated = step.evaluates() ? compute.evaluate(clock) : null;
        if (!step.last() && !step.saves()) {
            start(step.s() + 1);
        }
        return computed;
    }

    @Override
    RunReport.Evaluated update(Step step, float[] mean, PhaseClock clock) {
        pending = mean;
        RunReport.Evaluated share = evaluated;
        evaluated = null;
        return share;
    }

    @Override
    void afterReport(Step step) {
        if (step.saves() && !step.last()) {
            start(step.s() + 1);
        }
    }

    @Override
    void save(CheckpointPart.Builder part) {
        if (pending != null) {
            // the mean of this step, applied after the next step's gradient is taken
            part.section(Checkpointing.PENDING).putFloats(pending);
        }
        if (predictor != null) {
            // the mean applied in this step, which predicts the parameters of the next step's pass
            part.section(Checkpointing.PREDICTOR).putFloats(predictor);
        }
    }

    @Override
    void restore(CheckpointPart rank0) throws CheckpointException {
        if (rank0.has(Checkpointing.PENDING)) {
            pending = rank0.floats(Checkpointing.PENDING, compute.gradientLength());
        }
        if (predicts && rank0.has(Checkpointing.PREDICTOR)) {
            predictor = rank0.floats(Checkpointing.PREDICTOR, compute.gradientLength());
        }
    }

    /** Starts computing step {@code s}'s gradient into the spare array, at the predicted parameters when predicting. */
    private void start(int s) {
        float[] into = spare;
        float[] at = predictor;
        spare = null;
        Timeline timeline = compute.timeline();
        next = thread.submit(() -> {
            long start = System.nanoTime();
            PhaseClock own = new PhaseClock(Timeline.NOOP, Timeline.COMPUTE_THREAD);
            RankCompute.Computed c = compute.pass(s, own, into, at, null);
            if (timeline.covers(s)) {
                timeline.span(Timeline.COMPUTE_THREAD, "compute", "compute", start, System.nanoTime(),
                        Map.of("step", s));
            }
            return c;
        });
    }

    /** Step {@code s}'s gradient computed ahead (the wait timed as compute), or computed now when none was started. */
    private RankCompute.Computed take(int s, PhaseClock clock) {
        if (next == null) {
            RankCompute.Computed c = compute.pass(s, clock, spare, predictor, null);
            spare = null;
            return c;
        }
        clock.enter(Phase.COMPUTE);
        Future<RankCompute.Computed> f = next;
        next = null;
        RankCompute.Computed c = outcome(f, compute.rank(), s, "gradient");
        if (c.step() != s) {
            throw new IllegalStateException("rank " + compute.rank() + " expected step " + s + "'s gradient, got step "
                    + c.step() + "'s");
        }
        return c;
    }

    @Override
    public void close() {
        thread.shutdown();
        try {
            if (!thread.awaitTermination(60, TimeUnit.SECONDS)) {
                thread.shutdownNow();
            }
        } catch (InterruptedException e) {
            thread.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}

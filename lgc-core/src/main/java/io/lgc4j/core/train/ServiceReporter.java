package io.lgc4j.core.train;

import io.lgc4j.core.comm.ForwardingTransport;
import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.TrafficMeter;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.comm.TransportClosedException;
import io.lgc4j.core.metrics.StepNotes;
import io.lgc4j.core.metrics.TraceClock;
import io.lgc4j.core.stage.Stage;

import java.util.Objects;
import java.util.function.IntConsumer;
import java.util.function.IntFunction;

/**
 * The transport of a service endpoint (a parameter server) that reports each step to rank 0 without the service's
 * code knowing. After each {@link io.lgc4j.core.train.ServiceLoop#serveStep} the runtime calls {@link #endStep},
 * which saves the service's checkpoint part when due and sends rank 0 one {@link RunReport.StepReport} (the step's
 * bytes, setup traffic in step 0, its notes). Rank 0's {@link RunReport.Stop} makes it report the totals and end the
 * loop with a {@link TransportClosedException} and {@link #stopped()} set. It sits under the endpoint's
 * {@link io.lgc4j.core.comm.MeteredTransport}, so a report counts exactly the frames of its step.
 *
 * <pre>{@code
 * reporter.awaitAgreement();
 * try { while (true) reporter.endStep(loop.serveStep()); }
 * catch (TransportClosedException e) { if (!reporter.stopped()) throw e; }
 * reporter.awaitDone();
 * }</pre>
 */
final class ServiceReporter extends ForwardingTransport {
    private static final int RANK0 = 0;

    private final TrafficMeter meter;
    private final StepNotes notes;
    private final IntFunction<Stage> stages;
    private long[] reported = new long[TrafficMeter.ROW_LENGTH];
    private int open;
    private int totalSteps = -1;
    private boolean stopped;
    private Saver saver;
    private IntConsumer awaitNotes;
    /** With {@link #lagNotes}: the step served last, whose report waits until the next is served. */
    private Ended lagging;

    /** A step ended: its traffic, counted when it ended, and the checkpoint part saved after it. */
    private record Ended(int step, long[] traffic, RunReport.Saved saved) {
    }
    private TraceClock probeClock;
    private int probeRounds;

    /** Saves the service's part of a checkpoint after a step, when one is due. */
    @FunctionalInterface
    public interface Saver {
        /**
         * Called between steps, on the service's thread, before the step is reported.
         *
         * @param step       the step just ended
         * @param trafficRow the endpoint's counters at the end of it
         * @return what to tell rank 0 about the part written, or null when no checkpoint is due after {@code step}
         */
        RunReport.Saved afterStep(int step, long[] trafficRow);
    }

    /**
     * @param inner  the endpoint's plain transport
     * @param meter  the meter of the endpoint's training frames (counted above this decorator)
     * @param notes  where the service writes its notes
     * @param stages the stage of each step
     */
    public ServiceReporter(Transport inner, TrafficMeter meter, StepNotes notes, IntFunction<Stage> stages) {
        super(inner);
        this.meter = Objects.requireNonNull(meter, "meter");
        this.notes = Objects.requireNonNull(notes, "notes");
        this.stages = Objects.requireNonNull(stages, "stages");
    }

    /**
     * Saves the service between steps with {@code saver}: at {@link #endStep}, when the service has finished the step
     * and started nothing of the next.
     */
    public void checkpoints(Saver saver) {
        this.saver = Objects.requireNonNull(saver, "saver");
    }

    /**
     * Reports each step once the next is served and {@code awaitNotes} has returned for it, for a service whose
     * notes of a step are written on a thread of its own after the step is served
     * ({@link io.lgc4j.core.train.ServiceLoop#notesLag()}); a step after which a checkpoint is saved is still reported
     * at once, its notes awaited, since rank 0 completes the checkpoint before its next step. Rank 0 completes other
     * steps one step later anyway, so it waits for nothing it did not wait for before.
     */
    public void lagNotes(IntConsumer awaitNotes) {
        this.awaitNotes = Objects.requireNonNull(awaitNotes, "awaitNotes");
    }

    /**
     * A traced cluster run: answers rank 0's {@code rounds} clock probes after its agreement and any probes before its
     * Done, with {@code clock}'s time ({@link RunReport.ClockEcho}).
     */
    public void clockProbes(TraceClock clock, int rounds) {
        this.probeClock = Objects.requireNonNull(clock, "clock");
        this.probeRounds = rounds;
    }

    /** A resumed run: the service's first step is {@code step}, and its counters so far are {@code trafficRow}. */
    public void resumeAt(int step, long[] trafficRow) {
        this.open = step;
        this.reported = trafficRow.clone();
    }

    /**
     * The service has served step {@code step} whole (sent its last frame): reports the step before it if that waited
     * ({@link #lagNotes}), saves the service's part when a checkpoint is due after the step, then reports it to rank
     * 0 (with {@link #lagNotes}, once the next step is served). Steps before it that the service served no frame of
     * are reported with it, empty.
     *
     * @throws IllegalStateException if {@code step} was already ended
     */
    public void endStep(int step) {
        if (step < open) {
            throw new IllegalStateException("service endpoint " + endpoint() + " ended step " + step
                    + ", already reported (the next step to end is " + open + ")");
        }
        while (open <= step) {
            reportOpenStep();
        }
    }

    @Override
    public Frame receive(int peer) {
        Frame f = inner.receive(peer);
        if (f.kind() == TrafficKind.REPORT) {
            if (peer != RANK0 || !(RunReport.decode(f) instanceof RunReport.Stop)) {
                throw new FrameException("service endpoint " + endpoint() + " expected training frames or rank 0's"
                        + " Stop, found a report from endpoint " + peer);
            }
            if (open <= f.step()) {
                throw new IllegalStateException("service endpoint " + endpoint() + " was stopped by rank 0 after step "
                        + f.step() + " but has not ended step " + open);
            }
            reportLagging();
            inner.send(RANK0, new RunReport.FinalReport("", meter.snapshot().row(endpoint()))
                    .encode(f.step(), f.stage()));
            stopped = true;
            throw new TransportClosedException("service endpoint " + endpoint() + " stopped by rank 0 after step "
                    + f.step());
        }
        return f;
    }

    /**
     * Waits for rank 0's {@link RunReport.Agreed}, its first frame to every service (before step 0): the run's length,
     * which a service learns from rank 0 because it holds no data.
     *
     * @return the run's total steps
     */
    public int awaitAgreement() {
        Frame f = inner.receive(RANK0);
        RunReport report = f.kind() == TrafficKind.REPORT ? RunReport.decode(f) : null;
        if (!(report instanceof RunReport.Agreed agreed)) {
            throw new FrameException("service endpoint " + endpoint() + " expected rank 0's agreement on the data"
                    + " before step 0, found a " + (report != null ? report.getClass().getSimpleName() : f.kind())
                    + " frame of step " + f.step());
        }
        totalSteps = agreed.totalSteps();
        for (int i = 0; i < probeRounds; i++) {
            Frame probe = inner.receive(RANK0);
            RunReport r = probe.kind() == TrafficKind.REPORT ? RunReport.decode(probe) : null;
            if (!(r instanceof RunReport.ClockProbe p)) {
                throw new FrameException("service endpoint " + endpoint() + " expected rank 0's clock probe "
                        + (i + 1) + " of " + probeRounds + " before step 0 (is --trace given to every process?),"
                        + " found a " + (r != null ? r.getClass().getSimpleName() : probe.kind()) + " frame");
            }
            echo(p, probe);
        }
        return totalSteps;
    }

    /** The run's total steps from rank 0's agreement; -1 before {@link #awaitAgreement}. */
    public int totalSteps() {
        return totalSteps;
    }

    /** Whether rank 0 stopped the service after the last step (its loop then ended normally). */
    public boolean stopped() {
        return stopped;
    }

    /**
     * Waits for rank 0's {@link RunReport.Done} after the stop, so that no link closes before every endpoint has
     * what it needs.
     *
     * @return rank 0's word, with the run's outcome
     */
    public RunReport.Done awaitDone() {
        Frame f = inner.receive(RANK0);
        while (probeClock != null && f.kind() == TrafficKind.REPORT
                && RunReport.decode(f) instanceof RunReport.ClockProbe p) {
            echo(p, f);
            f = inner.receive(RANK0);
        }
        if (f.kind() != TrafficKind.REPORT || !(RunReport.decode(f) instanceof RunReport.Done done)) {
            throw new FrameException("service endpoint " + endpoint() + " expected rank 0's Done, found a " + f.kind()
                    + " frame of step " + f.step());
        }
        return done;
    }

    private void echo(RunReport.ClockProbe probe, Frame frame) {
        inner.send(RANK0, new RunReport.ClockEcho(probe.rank0Nanos(), System.nanoTime() - probeClock.anchorNanos())
                .encode(frame.step(), frame.stage()));
    }

    /**
     * Saves the open step when a checkpoint is due after it, reports it to rank 0 (or keeps its report until the next
     * step is served, see {@link #lagNotes}), and opens the next.
     */
    private void reportOpenStep() {
        reportLagging();
        long[] now = meter.snapshot().row(endpoint());
        long[] delta = new long[now.length];
        for (int i = 0; i < now.length; i++) {
            delta[i] = now[i] - reported[i];
        }
        reported = now;
        RunReport.Saved saved = saver == null ? null : saver.afterStep(open, now);
        Ended ended = new Ended(open, delta, saved);
        if (awaitNotes == null || saved != null) {
            report(ended);
        } else {
            lagging = ended;
        }
        open++;
    }

    /** Reports the step whose report waited for the next one to be served, if one did. */
    private void reportLagging() {
        if (lagging != null) {
            Ended ended = lagging;
            lagging = null;
            report(ended);
        }
    }

    private void report(Ended ended) {
        int step = ended.step();
        if (awaitNotes != null) {
            awaitNotes.accept(step);
        }
        if (ended.saved() != null) {
            inner.send(RANK0, ended.saved().encode(step, stages.apply(step)));
        }
        inner.send(RANK0, new RunReport.StepReport(Double.NaN, new long[0], notes.take(step), ended.traffic())
                .encode(step, stages.apply(step)));
    }
}

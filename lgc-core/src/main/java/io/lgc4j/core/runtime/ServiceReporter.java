package io.lgc4j.core.runtime;

import io.lgc4j.core.comm.ForwardingTransport;
import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameBuffer;
import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.TrafficMeter;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.comm.TransportClosedException;
import io.lgc4j.core.metrics.StepNotes;
import io.lgc4j.core.stage.Stage;

import java.util.Objects;
import java.util.function.IntFunction;

/**
 * The transport of a service endpoint (a parameter server) that reports each step to rank 0 without the service's
 * code knowing: a service serves steps in order, so the first frame of a later step it sends or receives closes its
 * earlier steps, and this decorator sends rank 0 one {@link RunReport.StepReport} per closed step (the bytes the
 * endpoint counted in it, setup traffic in step 0, and the notes written for it). Rank 0's {@link RunReport.Stop}
 * closes the last step: the decorator reports it and the endpoint's totals, then ends the service's loop with a
 * {@link TransportClosedException} and {@link #stopped()} set.
 *
 * <p>It sits under the {@link io.lgc4j.core.comm.MeteredTransport} of the endpoint, so a step's report counts
 * exactly the frames of that step.
 *
 * <pre>{@code
 * ServiceReporter reporter = new ServiceReporter(raw, meter, notes, stages::stageAt);
 * Transport transport = new MeteredTransport(reporter, meter, control);
 * try { loop.run(); } catch (TransportClosedException e) { if (!reporter.stopped()) throw e; }
 * reporter.awaitDone();
 * }</pre>
 */
public final class ServiceReporter extends ForwardingTransport {
    private static final int RANK0 = 0;

    private final TrafficMeter meter;
    private final StepNotes notes;
    private final IntFunction<Stage> stages;
    private long[] reported = new long[TrafficMeter.ROW_LENGTH];
    private int open;
    private boolean stopped;
    private Saver saver;

    /** Saves the service's part of a checkpoint after a step, when one is due. */
    @FunctionalInterface
    public interface Saver {
        /**
         * Called between steps, on the service's thread, before the step is reported.
         *
         * @param step       the step just closed
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
     * Saves the service between steps with {@code saver}: a step closes when the service receives the first frame of
     * a later step (or rank 0's Stop), at which point it has finished the step and started nothing of the next.
     */
    public void checkpoints(Saver saver) {
        this.saver = Objects.requireNonNull(saver, "saver");
    }

    /** A resumed run: the service's first step is {@code step}, and its counters so far are {@code trafficRow}. */
    public void resumeAt(int step, long[] trafficRow) {
        this.open = step;
        this.reported = trafficRow.clone();
    }

    @Override
    public void send(int peer, FrameBuffer frame) {
        try {
            int step = frame.peek().step();
            if (saver != null && step > open) {
                // a service that sends in a step before receiving in it would have moved past the step boundary
                throw new IllegalStateException("service endpoint " + endpoint() + " sent a frame of step " + step
                        + " before receiving one: it cannot be saved between steps " + open + " and " + step);
            }
            closeStepsBefore(step);
        } catch (RuntimeException e) {
            frame.releaseIfHeld();
            throw e;
        }
        inner.send(peer, frame);
    }

    @Override
    public Frame receive(int peer) {
        Frame f = inner.receive(peer);
        if (f.kind() == TrafficKind.REPORT) {
            if (peer != RANK0 || !(RunReport.decode(f) instanceof RunReport.Stop)) {
                throw new FrameException("service endpoint " + endpoint() + " expected training frames or rank 0's"
                        + " Stop, found a report from endpoint " + peer);
            }
            closeStepsBefore(f.step() + 1);
            inner.send(RANK0, new RunReport.FinalReport("", meter.snapshot().row(endpoint()))
                    .encode(f.step(), f.stage()));
            stopped = true;
            throw new TransportClosedException("service endpoint " + endpoint() + " stopped by rank 0 after step "
                    + f.step());
        }
        closeStepsBefore(f.step());
        return f;
    }

    /** Whether rank 0 stopped the service after the last step (its loop then ended normally). */
    public boolean stopped() {
        return stopped;
    }

    /**
     * Waits for rank 0's {@link RunReport.Done} after the stop, so that no link closes before every endpoint has
     * what it needs.
     */
    public void awaitDone() {
        Frame f = inner.receive(RANK0);
        if (f.kind() != TrafficKind.REPORT || !(RunReport.decode(f) instanceof RunReport.Done)) {
            throw new FrameException("service endpoint " + endpoint() + " expected rank 0's Done, found a " + f.kind()
                    + " frame of step " + f.step());
        }
    }

    /** Reports every open step before {@code step}; frames outside steps (-1) close nothing. */
    private void closeStepsBefore(int step) {
        while (open < step) {
            long[] now = meter.snapshot().row(endpoint());
            long[] delta = new long[now.length];
            for (int i = 0; i < now.length; i++) {
                delta[i] = now[i] - reported[i];
            }
            reported = now;
            RunReport.Saved saved = saver == null ? null : saver.afterStep(open, now);
            if (saved != null) {
                inner.send(RANK0, saved.encode(open, stages.apply(open)));
            }
            inner.send(RANK0, new RunReport.StepReport(Double.NaN, new long[0], notes.take(open), delta)
                    .encode(open, stages.apply(open)));
            open++;
        }
    }

}

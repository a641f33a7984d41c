package io.lgc4j.core.train;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.ForwardingTransport;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.stage.Stage;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * A worker's transport with the run's control plane beside its training traffic. Reports and training frames
 * share each link, in order; a receive of one sort sets aside frames of the other sort that come first (a service's
 * report of step s follows its last frame of step s, and rank 0 may read it only in the middle of step s + 1's
 * exchange). Per peer, each sort stays in order. A frame set aside is copied to the heap: the training loop releases
 * its receive buffers once per step ({@link Transport#releaseReceived()}), and a set-aside frame may be read after.
 *
 * <pre>{@code
 * ControlPlane plane = new ControlPlane(metered);
 * exchange = topology.worker(rank, workers, plane, layout);   // sees training frames only
 * RunReport.StepReport r = (RunReport.StepReport) plane.receiveReport(2, step).report();
 * }</pre>
 */
final class ControlPlane extends ForwardingTransport {

    /**
     * A report as received.
     *
     * @param step   the step its frame carries
     * @param stage  the stage its frame carries
     * @param report the report
     */
    public record Received(int step, Stage stage, RunReport report) {
    }

    private final List<Deque<Frame>> heldTraining = new ArrayList<>();
    private final List<Deque<Frame>> heldReports = new ArrayList<>();
    /** Per peer: the next training receive waits as long as a first receive ({@link #extendNextReceive}). */
    private final boolean[] extended;

    /** Wraps {@code inner} (normally a metered transport). */
    public ControlPlane(Transport inner) {
        super(inner);
        extended = new boolean[inner.endpointCount()];
        for (int e = 0; e < inner.endpointCount(); e++) {
            heldTraining.add(new ArrayDeque<>());
            heldReports.add(new ArrayDeque<>());
        }
    }

    /**
     * Extends the wait for the next training frame from {@code peer}: nothing if one is held here already, else every
     * receive from the network until it comes (reports that come first use up one receive each).
     */
    @Override
    public void extendNextReceive(int peer) {
        if (heldTraining.get(peer).isEmpty()) {
            extended[peer] = true;
        }
    }

    /** The next training frame from {@code peer}; reports that come first are kept for {@link #receiveReport}. */
    @Override
    public Frame receive(int peer) {
        Deque<Frame> held = heldTraining.get(peer);
        if (!held.isEmpty()) {
            return held.poll();
        }
        boolean patient = extended[peer];
        extended[peer] = false;
        while (true) {
            if (patient) {
                inner.extendNextReceive(peer);
            }
            Frame f = inner.receive(peer);
            if (f.kind() != TrafficKind.REPORT) {
                return f;
            }
            heldReports.get(peer).add(FrameCodec.copy(f));
        }
    }

    /** Sends {@code report} as a frame of {@code step} in {@code stage}. */
    public void sendReport(int peer, int step, Stage stage, RunReport report) {
        inner.send(peer, report.encode(step, stage));
    }

    /** The next report from {@code peer}; training frames that come first are kept for {@link #receive}. */
    public Received receiveReport(int peer) {
        Deque<Frame> held = heldReports.get(peer);
        Frame f = held.poll();
        while (f == null) {
            Frame next = inner.receive(peer);
            if (next.kind() == TrafficKind.REPORT) {
                f = next;
            } else {
                heldTraining.get(peer).add(FrameCodec.copy(next));
            }
        }
        return new Received(f.step(), f.stage(), RunReport.decode(f));
    }

    /**
     * The next report from {@code peer}, which must be of {@code type} and {@code step}.
     *
     * @param who how to name the peer in a message ("rank 2", "the server")
     * @throws FrameException naming what was expected and found
     */
    public <R extends RunReport> R receiveReport(int peer, Class<R> type, int step, String who) {
        Received r = receiveReport(peer);
        if (!type.isInstance(r.report()) || r.step() != step) {
            throw new FrameException("rank " + endpoint() + " expected a " + type.getSimpleName() + " of step " + step
                    + " from " + who + ", found a " + r.report().getClass().getSimpleName() + " of step " + r.step());
        }
        return type.cast(r.report());
    }
}

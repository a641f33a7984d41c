package io.lgc4j.core.comm;

import java.util.Objects;

/**
 * Counts every frame that crosses a {@link Transport}, whatever carries it (the in-process cluster, TCP): training
 * frames on the run's {@link TrafficMeter}, {@link TrafficKind#REPORT} frames (the run's control plane: step reports
 * to rank 0, the end of the run) on a meter of their own, so that control traffic never shows up as training bytes.
 * The sender counts a frame once its transport took it; the receiver once it was checked.
 *
 * <pre>{@code
 * Transport counted = new MeteredTransport(tcp.transport(), training, control);
 * }</pre>
 */
public final class MeteredTransport extends ForwardingTransport {
    private final TrafficMeter training;
    private final TrafficMeter control;

    /**
     * @param inner    the transport that moves the frames
     * @param training counts training frames (every kind but REPORT) at {@code inner.endpoint()}
     * @param control  counts REPORT frames at {@code inner.endpoint()}
     */
    public MeteredTransport(Transport inner, TrafficMeter training, TrafficMeter control) {
        super(inner);
        this.training = Objects.requireNonNull(training, "training");
        this.control = Objects.requireNonNull(control, "control");
        for (TrafficMeter m : new TrafficMeter[] {training, control}) {
            if (m.endpoints() != inner.endpointCount()) {
                throw new IllegalArgumentException("meter counts " + m.endpoints() + " endpoints, the transport has "
                        + inner.endpointCount());
            }
        }
    }

    @Override
    public void send(int peer, FrameBuffer frame) {
        // the header is read back rather than trusted from the caller, so a frame that would not decode is caught
        // here, at its source
        Frame sent;
        try {
            sent = frame.peek();
        } catch (RuntimeException e) {
            frame.releaseIfHeld();
            throw e;
        }
        inner.send(peer, frame);
        meterOf(sent.kind()).record(inner.endpoint(), Direction.SENT, sent.stage(), sent.kind(), sent.payloadLength());
    }

    @Override
    public Frame receive(int peer) {
        Frame frame = inner.receive(peer);
        meterOf(frame.kind()).record(inner.endpoint(), Direction.RECEIVED, frame.stage(), frame.kind(),
                frame.payloadLength());
        return frame;
    }

    private TrafficMeter meterOf(TrafficKind kind) {
        return kind == TrafficKind.REPORT ? control : training;
    }
}

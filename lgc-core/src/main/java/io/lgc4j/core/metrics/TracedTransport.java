package io.lgc4j.core.metrics;

import io.lgc4j.core.comm.ForwardingTransport;
import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameBuffer;
import io.lgc4j.core.comm.Transport;

import java.util.Map;
import java.util.Objects;

/**
 * Records every training frame an exchange sends and receives on a {@link Timeline}: a span per send ({@code send
 * VALUES→4}, the time the transport took to take the frame) and per receive ({@code recv VALUES←4}, the time this
 * endpoint was blocked waiting for it), joined by a flow arrow from the send to its receive. It sits where the
 * exchange meets its transport, above the control plane on a worker and above the meter on a service, so no
 * exchange's code changes and the spans show what the exchange waited for.
 *
 * <p>The arrows need nothing on the wire: every link is FIFO per direction, so the n-th training frame from A to B is
 * the n-th on both ends, and both ends name it {@code (A << 40) | (B << 24) | n} (n modulo 2^24). Only frames that
 * pass through this decorator count (REPORT and LINK frames are consumed below it), on both ends alike. The counters
 * advance also outside the recorded steps, so ids stay paired when {@code --trace-steps} bounds the trace.
 *
 * <pre>{@code
 * Transport exchangeSide = new TracedTransport(plane, timeline, Timeline.RANK_THREAD);
 * GradientExchange exchange = topology.worker(rank, workers, exchangeSide, layout);
 * }</pre>
 */
public final class TracedTransport extends ForwardingTransport {
    private static final long SEQUENCE_MASK = (1L << 24) - 1;
    /** The track a thread other than the one the transport was made for records its frames on (none: {@code tid}). */
    private static final ThreadLocal<Integer> TRACK = new ThreadLocal<>();

    private final Timeline timeline;
    private final int tid;
    private final long[] sent;
    private final long[] received;

    /** Traces {@code inner}'s training frames on {@code timeline}'s thread {@code tid}. */
    public TracedTransport(Transport inner, Timeline timeline, int tid) {
        super(inner);
        this.timeline = Objects.requireNonNull(timeline, "timeline");
        this.tid = tid;
        this.sent = new long[inner.endpointCount()];
        this.received = new long[inner.endpointCount()];
    }

    /**
     * The timeline a traced transport records on, {@link Timeline#NOOP} for any other: how a service finds where to
     * record its own spans without another parameter on the topology's factory methods.
     */
    public static Timeline timelineOf(Transport transport) {
        return transport instanceof TracedTransport t ? t.timeline : Timeline.NOOP;
    }

    /**
     * Records the frames the calling thread sends and receives, through any traced transport, on track {@code tid}
     * (an exchange on a thread of its own, {@link Timeline#EXCHANGE_THREAD}).
     */
    public static void trackThisThread(int tid) {
        TRACK.set(tid);
    }

    private int track() {
        Integer own = TRACK.get();
        return own == null ? tid : own;
    }

    /** The id both ends give the {@code n}-th training frame from {@code from} to {@code to}. */
    public static long flowId(int from, int to, long n) {
        return ((long) from << 40) | ((long) to << 24) | (n & SEQUENCE_MASK);
    }

    @Override
    public void send(int peer, FrameBuffer frame) {
        Frame header;
        try {
            header = frame.peek();
        } catch (RuntimeException e) {
            frame.releaseIfHeld();
            throw e;
        }
        long n = sent[peer]++;
        long start = System.nanoTime();
        inner.send(peer, frame);
        if (timeline.covers(header.step())) {
            long end = System.nanoTime();
            int tid = track();
            timeline.span(tid, "send " + header.kind() + "→" + peer, "send", start, end, Map.of("peer", peer,
                    "kind", header.kind().name(), "stage", header.stage().name(), "step", header.step(),
                    "bytes", header.payloadLength(), "seq", n));
            timeline.flow(tid, flowId(endpoint(), peer, n), true, start);
        }
    }

    @Override
    public Frame receive(int peer) {
        long start = System.nanoTime();
        Frame frame = inner.receive(peer);
        long end = System.nanoTime();
        long n = received[peer]++;
        if (timeline.covers(frame.step())) {
            long waited = end - start;
            int tid = track();
            timeline.span(tid, "recv " + frame.kind() + "←" + peer, "recv", start, end, Map.of("peer", peer,
                    "kind", frame.kind().name(), "stage", frame.stage().name(), "step", frame.step(),
                    "bytes", frame.payloadLength(), "seq", n, "waited_us", waited / 1_000));
            // a nanosecond inside the span, so the arrow binds to it and not to the slice that follows
            timeline.flow(tid, flowId(peer, endpoint(), n), false, Math.max(start, end - 1));
        }
        return frame;
    }
}

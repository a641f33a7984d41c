package io.lgc4j.core.comm;

/**
 * One endpoint's view of the cluster: sends sealed frames to peers and receives checked frames, in order per peer,
 * counting each on the {@link TrafficMeter} at both ends. Used by one thread at a time (its endpoint's).
 *
 * <p>A receive blocks until a frame arrives, the transport closes, or (on a network) its deadline passes or the peer
 * is lost ({@link PeerLostException}). A send returns once the transport took the frame and never queues without
 * bound. Implementations: {@link InProcessCluster}'s endpoints, {@code io.lgc4j.net.TcpCluster}'s; decorators extend
 * {@link ForwardingTransport}. Frames go out in memory from {@link #allocate}; a received {@link Frame}'s payload is
 * valid until {@link #releaseReceived()} (once per step), so copy one that must live longer ({@link FrameCodec#copy}).
 *
 * <pre>{@code
 * transport.send(right, out.seal(TrafficKind.VALUES, stage, step));   // out = transport.allocate(4 * n), filled
 * FloatFrames.addInto(transport.receive(left, TrafficKind.VALUES), sum, 0, sum.length);
 * transport.releaseReceived();                     // the step is over: its receive buffers go back
 * }</pre>
 */
public interface Transport extends FrameAllocator {

    /** This endpoint's id, in 0..{@link #endpointCount()}-1. */
    int endpoint();

    /** Number of endpoints in the cluster (workers and any server roles). */
    int endpointCount();

    /**
     * A frame to fill and send on this transport, holding one reference: on the heap by default, in a pooled
     * direct buffer on a network.
     */
    @Override
    default FrameBuffer allocate(int payloadLength) {
        return FrameBuffer.heap(payloadLength);
    }

    /**
     * Sends a sealed frame, taking one of its references (given back once the bytes are written, or when the send
     * throws). The frame must
     * not change afterwards: to send the same bytes to n peers, {@link FrameBuffer#retain} it n − 1 times
     * before the first send (a send may give its reference back at once).
     *
     * @throws TransportClosedException if the cluster was shut down
     * @throws PeerLostException         on a network, if the peer is gone or did not read within the deadline
     */
    void send(int peer, FrameBuffer frame);

    /**
     * Sends a frame sealed by {@link FrameCodec#seal} on the heap. The caller must not modify {@code frame}
     * afterwards: a broadcast may send the same bytes to several peers.
     */
    default void send(int peer, byte[] frame) {
        send(peer, FrameBuffer.of(frame));
    }

    /**
     * Frames received so far will not be read again: a network transport reuses their buffers. Frames received
     * after this call are not affected. Nothing on the heap.
     */
    default void releaseReceived() {
    }

    /**
     * Receives the next frame from {@code peer}, checked by {@link FrameCodec#decode}.
     *
     * @throws TransportClosedException if the cluster was shut down while waiting
     * @throws PeerLostException         on a network, if the peer is gone, another endpoint reported a loss, or the
     *                                   deadline passed
     * @throws FrameException           if the bytes are not a valid frame
     */
    Frame receive(int peer);

    /**
     * The next {@link #receive} from {@code peer} waits as long as a first receive does (on TCP its
     * {@code firstReceiveTimeout}, 10 minutes by default, instead of the steady-state deadline): the peer does a
     * one-off computation before it sends, e.g. fitting a code at a stage switch. Its liveness is still watched by
     * heartbeats. Later receives are back on the steady-state deadline. Nothing on a transport without deadlines.
     */
    default void extendNextReceive(int peer) {
    }

    /**
     * Receives the next frame from {@code peer} and checks that it carries {@code expected}.
     *
     * @throws FrameException naming the expected and found kind on a mismatch
     */
    default Frame receive(int peer, TrafficKind expected) {
        Frame frame = receive(peer);
        if (frame.kind() != expected) {
            throw new FrameException("endpoint " + endpoint() + " expected a " + expected + " frame from endpoint "
                    + peer + ", found " + frame.kind());
        }
        return frame;
    }
}

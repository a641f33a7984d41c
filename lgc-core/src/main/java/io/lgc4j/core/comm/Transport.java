package io.lgc4j.core.comm;

/**
 * One endpoint's view of the cluster: sends sealed frames to peers and receives checked frames from them, in
 * order per peer. Implementations count every frame on the {@link TrafficMeter} at both ends.
 *
 * <p>Receives block until a frame from that peer arrives, the transport closes, or (on a network) the receive's
 * deadline passes or the peer is lost ({@link PeerLostException}). Sends return once the transport took the frame:
 * the in-process cluster queues it; TCP ({@code lgc-net}) blocks while the link is back-pressured (the peer does not
 * read), up to the deadline, and never queues without bound. A {@link Transport} is used by one thread at a time
 * (its endpoint's). Implementations: {@link InProcessCluster}'s endpoints, {@code io.lgc4j.net.TcpCluster}'s;
 * decorators extend {@link ForwardingTransport}.
 *
 * <pre>{@code
 * ByteBuffer payload = FrameCodec.allocate(4 * chunk.length);
 * payload.asFloatBuffer().put(chunk);
 * transport.send(right, FrameCodec.seal(payload, TrafficKind.VALUES, stage, step));
 * Frame in = transport.receive(left, TrafficKind.VALUES);
 * }</pre>
 */
public interface Transport {

    /** This endpoint's id, in 0..{@link #endpointCount()}-1. */
    int endpoint();

    /** Number of endpoints in the cluster (workers and any server roles). */
    int endpointCount();

    /**
     * Sends a frame sealed by {@link FrameCodec}. The caller must not modify {@code frame} afterwards: a broadcast
     * may send the same bytes to several peers.
     *
     * @throws TransportClosedException if the cluster was shut down
     * @throws PeerLostException         on a network, if the peer is gone or did not read within the deadline
     */
    void send(int peer, byte[] frame);

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

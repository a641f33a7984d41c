package io.lgc4j.core.link;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameAllocator;
import io.lgc4j.core.comm.FrameBuffer;
import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.protocol.FloatFrames;
import io.lgc4j.core.comm.StepTag;

import java.util.function.IntFunction;

/**
 * One endpoint's links to its peers within a training step: every frame it receives must carry the kind, step and
 * stage the protocol expects, and a frame that does not stops the step with one message naming both ends, e.g.
 * {@code "worker 2 expected a VALUES frame of step 17 (TOP_K) from the server, found step 16 (TOP_K)"}.
 *
 * <pre>{@code
 * StepLink link = StepLink.worker(rank, transport);       // peers named "rank r", the server "the server"
 * link.send(server, frame);
 * Frame mean = link.receive(server, TrafficKind.VALUES, tag);
 * }</pre>
 */
public final class StepLink {
    private final Transport transport;
    private final String self;
    private final IntFunction<String> names;

    /**
     * @param transport this endpoint's transport
     * @param self      how messages name this endpoint ("worker 2", "the server")
     * @param names     how messages name a peer, by endpoint
     */
    public StepLink(Transport transport, String self, IntFunction<String> names) {
        this.transport = transport;
        this.self = self;
        this.names = names;
    }

    /** A worker of a parameter server: endpoints below {@code workers} are workers, the rest the server. */
    public static StepLink psWorker(int rank, int workers, Transport transport) {
        return psWorker(rank, workers, 1, transport);
    }

    /**
     * A worker of a parameter server of {@code shards} shards: endpoints below {@code workers} are workers, endpoint
     * {@code workers + s} is "server shard s" ("the server" when there is one).
     */
    public static StepLink psWorker(int rank, int workers, int shards, Transport transport) {
        return new StepLink(transport, "worker " + rank, e -> e < workers ? "worker " + e
                : serverName(shards, e - workers));
    }

    /** The parameter server: its peers are the workers. */
    public static StepLink psServer(int workers, Transport transport) {
        return psServer(workers, 1, 0, transport);
    }

    /** Shard {@code shard} of a parameter server of {@code shards} shards: its peers are the workers. */
    public static StepLink psServer(int workers, int shards, int shard, Transport transport) {
        return new StepLink(transport, serverName(shards, shard), e -> e < workers ? "worker " + e
                : e - workers < shards ? serverName(shards, e - workers) : "endpoint " + e);
    }

    /** "the server" when there is one shard, else "server shard s". */
    public static String serverName(int shards, int shard) {
        return shards == 1 ? "the server" : "server shard " + shard;
    }

    /** A rank of a ring: its peers are ranks. */
    public static StepLink ringRank(int rank, Transport transport) {
        return new StepLink(transport, "rank " + rank, e -> "rank " + e);
    }

    /** The transport underneath. */
    public Transport transport() {
        return transport;
    }

    /** This endpoint's id. */
    public int endpoint() {
        return transport.endpoint();
    }

    /** Sends a sealed frame to {@code peer}. */
    public void send(int peer, byte[] frame) {
        transport.send(peer, frame);
    }

    /** Sends a sealed frame to {@code peer}, taking its reference. */
    public void send(int peer, FrameBuffer frame) {
        transport.send(peer, frame);
    }

    /** Sends the same bytes to endpoints {@code 0..count-1}. */
    public void sendToAll(int count, byte[] frame) {
        sendToAllBut(count, -1, FrameBuffer.of(frame));
    }

    /** Sends the same bytes to endpoints {@code 0..count-1}, taking the frame's reference. */
    public void sendToAll(int count, FrameBuffer frame) {
        sendToAllBut(count, -1, frame);
    }

    /** Sends the same bytes to endpoints {@code 0..count-1} but {@code except}. */
    public void sendToAllBut(int count, int except, byte[] frame) {
        sendToAllBut(count, except, FrameBuffer.of(frame));
    }

    /**
     * Sends the same bytes to endpoints {@code 0..count-1} but {@code except} (none when negative), taking the
     * frame's reference: one more is taken for each further peer before the first send. When a send throws, the
     * references of the peers not reached are not given back (a pooled frame is then left to the collector).
     */
    public void sendToAllBut(int count, int except, FrameBuffer frame) {
        int targets = except >= 0 && except < count ? count - 1 : count;
        if (targets == 0) {
            frame.release(); // nobody to send to: the reference is ours to give back
            return;
        }
        // every reference is taken before the first send: a send may give its back at once (in-process)
        for (int i = 1; i < targets; i++) {
            frame.retain();
        }
        for (int peer = 0; peer < count; peer++) {
            if (peer != except) {
                transport.send(peer, frame);
            }
        }
    }

    /**
     * The next frame from {@code peer}, which must be of {@code kind} and of the tag's step and stage.
     *
     * @throws FrameException naming this endpoint, the peer, and what was expected and found
     */
    public Frame receive(int peer, TrafficKind kind, StepTag tag) {
        Frame f = transport.receive(peer);
        if (f.kind() != kind || f.step() != tag.step() || f.stage() != tag.stage()) {
            throw new FrameException(self + " expected a " + kind + " frame of step " + tag.step() + " ("
                    + tag.stage() + ") from " + names.apply(peer) + ", found a " + f.kind() + " frame of step "
                    + f.step() + " (" + f.stage() + ")");
        }
        return f;
    }

    /**
     * As {@link #receive(int, TrafficKind, StepTag)}, for a frame the peer sends only after a one-off computation
     * whose length the steady-state receive deadline does not bound (fitting a code at the stage switch): the wait is
     * as long as a first receive's ({@link Transport#extendNextReceive}).
     */
    public Frame receiveAfterWork(int peer, TrafficKind kind, StepTag tag) {
        transport.extendNextReceive(peer);
        return receive(peer, kind, tag);
    }

    /**
     * Receives one float frame of {@code kind} from each of the peers {@code 0..count-1} in rank order and leaves
     * their sum in {@code sum[0, length)}: the first copied, the others added, always in that order, so the sum does
     * not depend on arrival.
     */
    public void receiveSum(int count, TrafficKind kind, StepTag tag, float[] sum, int length) {
        FloatFrames.copyInto(receive(0, kind, tag), sum, 0, length);
        for (int peer = 1; peer < count; peer++) {
            FloatFrames.addInto(receive(peer, kind, tag), sum, 0, length);
        }
    }

    /**
     * A received frame re-sealed for forwarding: the same kind, stage, flags, step, stream and payload; the forwarding
     * endpoint's transport stamps itself as the sender.
     */
    public static byte[] forward(Frame frame) {
        return forward(FrameAllocator.HEAP, frame).arrayOrNull();
    }

    /** As {@link #forward(Frame)}, in a frame from {@code memory}. */
    public static FrameBuffer forward(FrameAllocator memory, Frame frame) {
        FrameBuffer copy = memory.allocate(frame.payloadLength());
        copy.payload().put(frame.payload().duplicate());
        return copy.seal(frame.kind(), frame.stage(), frame.step(), frame.stream(), frame.flags());
    }

    /** A copy of a received frame's payload. */
    public static byte[] payloadBytes(Frame frame) {
        byte[] bytes = new byte[frame.payloadLength()];
        frame.payload().duplicate().get(bytes);
        return bytes;
    }
}

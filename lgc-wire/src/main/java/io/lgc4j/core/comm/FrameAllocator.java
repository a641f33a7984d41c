package io.lgc4j.core.comm;

/**
 * Lends the memory frames are written in. Every {@link Transport} is one: the in-process cluster lends heap arrays,
 * TCP pooled direct buffers its sockets write from, so an encoder that takes its buffer from the transport it
 * sends on writes each payload byte once on its way to the wire. {@link #HEAP} serves encoders without a transport.
 *
 * <pre>{@code
 * FrameBuffer frame = FloatFrames.encode(transport, gradient, 0, n, TrafficKind.VALUES, stage, step);
 * transport.send(peer, frame);
 * }</pre>
 */
@FunctionalInterface
public interface FrameAllocator {

    /** Plain heap frames. */
    FrameAllocator HEAP = FrameBuffer::heap;

    /** A frame with room for {@code payloadLength} payload bytes, holding one reference. */
    FrameBuffer allocate(int payloadLength);
}

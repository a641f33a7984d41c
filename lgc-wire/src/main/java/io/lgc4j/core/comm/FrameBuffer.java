package io.lgc4j.core.comm;

import io.lgc4j.core.stage.Stage;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicInteger;

import static io.lgc4j.core.comm.FrameDescriptor.HEADER_LENGTH;
import static io.lgc4j.core.comm.FrameDescriptor.MAX_PAYLOAD_LENGTH;
import static io.lgc4j.core.comm.FrameDescriptor.frameLength;

/**
 * A frame on its way out, in memory lent by a {@link FrameAllocator}: fill its {@link #payload()}, {@link #seal}
 * it, hand it to {@link Transport#send(int, FrameBuffer)}. On a network the memory is a pooled direct buffer the
 * socket writes from, so the payload is written once, from the gradient's array straight into the bytes the kernel
 * sends; on the heap ({@link #heap}, the in-process cluster) it is an ordinary array.
 *
 * <p>Counted references, Netty's convention: a new buffer holds one, every {@code send} takes one (the transport
 * gives it back once the bytes are written), so a frame sent once needs nothing more and a frame sent to n peers is
 * {@link #retain}ed n − 1 times first. A frame never sent is {@link #release}d by its owner. Using a buffer after its
 * last reference is gone throws, on the heap as on a network, so a missing {@code retain} shows in-process tests.
 *
 * <pre>{@code
 * FrameBuffer frame = transport.allocate(4 * n);
 * frame.payload().asFloatBuffer().put(gradient, 0, n);     // the one copy
 * transport.send(peer, frame.seal(TrafficKind.VALUES, stage, step));
 * }</pre>
 */
public final class FrameBuffer {
    private final ByteBuffer frame;
    private final ByteBuffer payload;
    private final Runnable recycle;
    private final AtomicInteger references = new AtomicInteger(1);
    private volatile boolean sealed;

    private FrameBuffer(ByteBuffer frame, Runnable recycle, boolean sealed) {
        this.frame = frame.slice().order(ByteOrder.LITTLE_ENDIAN);
        this.payload = this.frame.slice(HEADER_LENGTH, this.frame.capacity() - FrameDescriptor.OVERHEAD)
                .order(ByteOrder.LITTLE_ENDIAN);
        this.recycle = recycle;
        this.sealed = sealed;
    }

    /** A frame on the heap with room for {@code payloadLength} payload bytes (nothing to give back). */
    public static FrameBuffer heap(int payloadLength) {
        return new FrameBuffer(ByteBuffer.wrap(new byte[frameLength(checkLength(payloadLength))]), null, false);
    }

    /**
     * A frame in {@code memory}'s first {@link FrameDescriptor#frameLength} bytes, for a transport's pool:
     * {@code recycle} runs once, when the last reference is released.
     */
    public static FrameBuffer lease(ByteBuffer memory, int payloadLength, Runnable recycle) {
        int length = frameLength(checkLength(payloadLength));
        if (memory.capacity() < length) {
            throw new IllegalArgumentException("a frame of " + payloadLength + " payload bytes needs " + length
                    + " bytes, the memory has " + memory.capacity());
        }
        return new FrameBuffer(memory.duplicate().clear().limit(length), recycle, false);
    }

    /** A frame already sealed by {@link FrameCodec#seal}: its bytes as they are, nothing to give back. */
    public static FrameBuffer of(byte[] sealedFrame) {
        if (sealedFrame.length < FrameDescriptor.OVERHEAD) {
            throw new FrameException("truncated frame: " + sealedFrame.length + " bytes, a frame needs at least "
                    + FrameDescriptor.OVERHEAD);
        }
        return new FrameBuffer(ByteBuffer.wrap(sealedFrame), null, true);
    }

    private static int checkLength(int payloadLength) {
        if (payloadLength < 0 || payloadLength > MAX_PAYLOAD_LENGTH) {
            throw new IllegalArgumentException("payload length must be in [0, " + MAX_PAYLOAD_LENGTH + "], found "
                    + payloadLength);
        }
        return payloadLength;
    }

    /**
     * The payload to fill: little-endian, position 0, capacity the payload length. Its position is ignored by
     * {@link #seal}: the whole capacity is the payload.
     *
     * @throws IllegalStateException once sealed or released
     */
    public ByteBuffer payload() {
        live();
        if (sealed) {
            throw new IllegalStateException("the frame is sealed: its payload cannot change");
        }
        return payload.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Writes the header and CRC; the payload is final from now on. */
    public FrameBuffer seal(TrafficKind kind, Stage stage, int step) {
        return seal(kind, stage, step, 0);
    }

    /** As {@link #seal(TrafficKind, Stage, int)}, for one of a step's parallel {@code stream}s. */
    public FrameBuffer seal(TrafficKind kind, Stage stage, int step, int stream) {
        return seal(kind, stage, step, stream, 0);
    }

    /**
     * As {@link #seal(TrafficKind, Stage, int, int)}, with the header's {@code flags} byte (a float payload's value
     * encoding, {@link FrameDescriptor#FLAGS_VALUE_ENCODING_MASK}).
     */
    public FrameBuffer seal(TrafficKind kind, Stage stage, int step, int stream, int flags) {
        live();
        if (sealed) {
            throw new IllegalStateException("the frame is sealed already");
        }
        FrameCodec.sealFrame(frame, kind, stage, step, stream, flags);
        sealed = true;
        return this;
    }

    /** Bytes of the whole frame (header, payload, trailer). */
    public int length() {
        return frame.capacity();
    }

    /** Payload bytes. */
    public int payloadLength() {
        return payload.capacity();
    }

    /** Whether the bytes live outside the Java heap (a pooled direct buffer a socket writes from). */
    public boolean isDirect() {
        return frame.isDirect();
    }

    /**
     * The sealed frame's bytes, read-only, position 0, limit its length: for transports, which write them to a link
     * or hand the array to a peer in the same JVM.
     */
    public ByteBuffer bytes() {
        checkSealed();
        return frame.asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * The array that holds exactly this sealed frame (offset 0, length {@link #length()}), or null when the frame is
     * direct or a slice of a larger array. For the in-process cluster, which passes the array on without a copy.
     */
    public byte[] arrayOrNull() {
        checkSealed();
        if (frame.hasArray() && frame.arrayOffset() == 0 && frame.array().length == frame.capacity()) {
            return frame.array();
        }
        return null;
    }

    /** Writes the sender and the job id, as a transport does when the frame goes on a link ({@link FrameCodec#stamp}). */
    public void stamp(int sender, int job) {
        checkSealed();
        FrameCodec.stamp(frame, sender, job);
    }

    /** The decoded header and a view of the payload, without checking the CRC (the sender's own frame). */
    public Frame peek() {
        checkSealed();
        return FrameCodec.peek(frame);
    }

    /** Takes one more reference: for each further {@code send} of the same frame. */
    public FrameBuffer retain() {
        int before = references.getAndUpdate(n -> n == 0 ? 0 : n + 1);
        if (before == 0) {
            throw new IllegalStateException("frame buffer retained after its last release");
        }
        return this;
    }

    /** Gives one reference back; the last gives the memory back to its pool. */
    public void release() {
        int after = references.updateAndGet(n -> n == 0 ? -1 : n - 1);
        if (after < 0) {
            references.set(0);
            throw new IllegalStateException("frame buffer released more often than retained");
        }
        if (after == 0 && recycle != null) {
            recycle.run();
        }
    }

    /**
     * Gives one reference back unless none is left: how a transport's {@code send}, which takes a reference also when
     * it throws, ends — where a frame used after its last release is the error it is about to report.
     */
    public void releaseIfHeld() {
        if (references() > 0) {
            release();
        }
    }

    /** References held now (0 once released). */
    public int references() {
        return references.get();
    }

    private void checkSealed() {
        live();
        if (!sealed) {
            throw new IllegalStateException("the frame is not sealed: call seal(kind, stage, step) first");
        }
    }

    private void live() {
        if (references.get() <= 0) {
            throw new IllegalStateException("frame buffer used after its last release");
        }
    }
}

package io.lgc4j.core.protocol;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameAllocator;
import io.lgc4j.core.comm.FrameBuffer;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.stage.Stage;

import java.nio.ByteBuffer;
import java.nio.FloatBuffer;

/**
 * The values layout: a payload that is a run of float32 values and nothing else. It carries dense values (a whole
 * gradient, the DENSE blocks, a mean), values on a support and a sparse set's values ({@link DenseValues},
 * {@link SupportValues}), the drift guard's {@link Sample}, the ring trainer's {@link AeSample}, the float parts of
 * {@link Code} and {@link Innovation}, a sketch's counters, and every chunk of a ring allreduce whatever its kind.
 * The count is never sent: the receiver knows it from the layout and the step, and checks the length against it.
 *
 * <pre>
 *  offset  size  field
 *  0       4     value 0: float32, IEEE 754, little-endian
 *  4·i     4     value i
 *  4·n           end: the payload is exactly 4·n bytes
 * </pre>
 *
 * <p>One copy from the array to the wire on the way out (the transport's {@link FrameAllocator#allocate} → fill →
 * {@link FrameBuffer#seal}), and reads straight from the received bytes (copy or accumulate) on the way in.
 *
 * <pre>{@code
 * byte[] frame = FloatFrames.encode(gradient, 0, gradient.length, TrafficKind.VALUES, tag.stage(), tag.step());
 * FloatFrames.addInto(received, sum, 0, sum.length);   // throws FrameException unless it holds sum.length floats
 * }</pre>
 */
public final class FloatFrames {
    /** Offset of the first value in the payload. */
    public static final int VALUES_OFFSET = 0;
    /** Bytes per value (float32). */
    public static final int VALUE_SIZE = Float.BYTES;

    private FloatFrames() {
    }

    /** Payload bytes of {@code count} values. */
    public static int payloadLength(int count) {
        return Math.multiplyExact(VALUE_SIZE, count);
    }

    /** Seals a frame carrying {@code values[from, to)}. */
    public static byte[] encode(float[] values, int from, int to, TrafficKind kind, Stage stage, int step) {
        return encode(FrameAllocator.HEAP, values, from, to, kind, stage, step).arrayOrNull();
    }

    /**
     * Seals a frame carrying {@code values[from, to)} in memory from {@code memory} (the transport it goes out on:
     * on TCP the values are written once, into the direct buffer the socket sends from).
     */
    public static FrameBuffer encode(FrameAllocator memory, float[] values, int from, int to, TrafficKind kind,
                                     Stage stage, int step) {
        FrameBuffer frame = memory.allocate(payloadLength(to - from));
        ByteBuffer payload = frame.payload();
        payload.position(VALUES_OFFSET);
        payload.asFloatBuffer().put(values, from, to - from);
        return frame.seal(kind, stage, step);
    }

    /** Copies the frame's floats into {@code dst[from, to)}; the frame must carry exactly {@code to - from}. */
    public static void copyInto(Frame frame, float[] dst, int from, int to) {
        view(frame, to - from).get(dst, from, to - from);
    }

    /**
     * Adds the frame's floats to {@code dst[from, to)}; the frame must carry exactly {@code to - from}. The floats
     * are bulk-read a block at a time into a per-thread scratch array and added from there: a loop over two arrays
     * the JIT vectorizes, where reading a (direct) buffer one float at a time does not. Element by element the same
     * additions, so the same bits.
     */
    public static void addInto(Frame frame, float[] dst, int from, int to) {
        FloatBuffer in = view(frame, to - from);
        float[] block = ADD_SCRATCH.get();
        for (int at = from; at < to; ) {
            int n = Math.min(block.length, to - at);
            in.get(block, 0, n);
            for (int k = 0; k < n; k++) {
                dst[at + k] += block[k];
            }
            at += n;
        }
    }

    /** The scratch of {@link #addInto}: 4 KB, in the first-level cache. */
    private static final ThreadLocal<float[]> ADD_SCRATCH = ThreadLocal.withInitial(() -> new float[1024]);

    /** The frame's floats as a new array; the frame must carry exactly {@code count}. */
    public static float[] read(Frame frame, int count) {
        float[] values = new float[count];
        copyInto(frame, values, 0, count);
        return values;
    }

    private static FloatBuffer view(Frame frame, int expectedCount) {
        int expectedBytes = VALUE_SIZE * expectedCount;
        if (frame.payloadLength() != expectedBytes) {
            throw new FrameException("expected " + expectedCount + " floats (" + expectedBytes + " bytes) in a "
                    + frame.kind() + " frame of step " + frame.step() + ", found " + frame.payloadLength()
                    + " bytes");
        }
        ByteBuffer payload = frame.payload().duplicate().order(frame.payload().order());
        payload.position(payload.position() + VALUES_OFFSET);
        return payload.asFloatBuffer();
    }
}

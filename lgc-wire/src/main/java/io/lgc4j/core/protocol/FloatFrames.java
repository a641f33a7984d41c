package io.lgc4j.core.protocol;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameAllocator;
import io.lgc4j.core.comm.FrameBuffer;
import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.stage.Stage;


/**
 * The values layout: a payload that is a run of values and nothing else, in the frame's {@link ValueEncoding}
 * (fp32: {@code 4·n} bytes; bf16: {@code 2·n}; fp16: an int16 scale exponent, then {@code 2·n}). It carries
 * {@link Values}, the drift guard's {@link Sample}, the ring trainer's {@link AeSample}, the float parts of
 * {@link Code} and {@link Innovation}, a sketch's counters and every ring-allreduce chunk. The count is never sent:
 * the receiver knows it and checks the length against it, throwing {@link FrameException} otherwise.
 *
 * <p>One copy on the way out ({@link FrameAllocator#allocate} → fill → {@link FrameBuffer#seal}); the way in reads
 * straight from the received bytes, in float32.
 *
 * <pre>{@code
 * byte[] frame = FloatFrames.encode(gradient, 0, n, TrafficKind.VALUES, tag.stage(), tag.step(), tag.values());
 * FloatFrames.addInto(received, sum, 0, sum.length);   // throws FrameException unless it holds sum.length values
 * }</pre>
 */
public final class FloatFrames {
    /** Offset of the first value in an fp32 payload (fp16's follow its {@link ValueEncoding#headerLength()}). */
    public static final int VALUES_OFFSET = 0;
    /** Bytes per fp32 value. */
    public static final int VALUE_SIZE = Float.BYTES;

    private FloatFrames() {
    }

    /** Payload bytes of {@code count} fp32 values. */
    public static int payloadLength(int count) {
        return Math.multiplyExact(VALUE_SIZE, count);
    }

    /** Payload bytes of {@code count} values in {@code encoding}. */
    public static int payloadLength(ValueEncoding encoding, int count) {
        return encoding.payloadLength(count);
    }

    /** Seals an fp32 frame carrying {@code values[from, to)}. */
    public static byte[] encode(float[] values, int from, int to, TrafficKind kind, Stage stage, int step) {
        return encode(values, from, to, kind, stage, step, ValueEncoding.FP32);
    }

    /**
     * Seals a frame carrying {@code values[from, to)} in {@code encoding}.
     *
     * @throws IllegalArgumentException when a half encoding meets a non-finite value
     */
    public static byte[] encode(float[] values, int from, int to, TrafficKind kind, Stage stage, int step,
                                ValueEncoding encoding) {
        return encode(FrameAllocator.HEAP, values, from, to, kind, stage, step, encoding).arrayOrNull();
    }

    /**
     * Seals an fp32 frame carrying {@code values[from, to)} in memory from {@code memory} (the transport it goes out
     * on: on TCP the values are written once, into the direct buffer the socket sends from).
     */
    public static FrameBuffer encode(FrameAllocator memory, float[] values, int from, int to, TrafficKind kind,
                                     Stage stage, int step) {
        return encode(memory, values, from, to, kind, stage, step, ValueEncoding.FP32);
    }

    /**
     * As {@link #encode(FrameAllocator, float[], int, int, TrafficKind, Stage, int)}, in {@code encoding}.
     *
     * @throws IllegalArgumentException when a half encoding meets a non-finite value (the frame is released)
     */
    public static FrameBuffer encode(FrameAllocator memory, float[] values, int from, int to, TrafficKind kind,
                                     Stage stage, int step, ValueEncoding encoding) {
        FrameBuffer frame = memory.allocate(encoding.payloadLength(to - from));
        try {
            encoding.write(frame.payload(), values, from, to, kind, step);
        } catch (RuntimeException e) {
            frame.release();
            throw e;
        }
        return frame.seal(kind, stage, step, 0, encoding.wireId());
    }

    /** Copies the frame's values into {@code dst[from, to)}; the frame must carry exactly {@code to - from}. */
    public static void copyInto(Frame frame, float[] dst, int from, int to) {
        checked(frame, to - from).read(frame.payload(), dst, from, to, false, frame);
    }

    /**
     * Adds the frame's values to {@code dst[from, to)} in float32; the frame must carry exactly {@code to - from}.
     * The values are bulk-read a block at a time into a per-thread scratch array and added from there: a loop over
     * two arrays the JIT vectorizes, where reading a (direct) buffer one value at a time does not. Element by
     * element the same additions, so the same bits.
     */
    public static void addInto(Frame frame, float[] dst, int from, int to) {
        checked(frame, to - from).read(frame.payload(), dst, from, to, true, frame);
    }

    /** The frame's values as a new array; the frame must carry exactly {@code count}. */
    public static float[] read(Frame frame, int count) {
        float[] values = new float[count];
        copyInto(frame, values, 0, count);
        return values;
    }

    /**
     * How many values the frame carries, from its length and its encoding (for a receiver that learns the count
     * from the first frame, as the parameter server does a sketch's).
     *
     * @throws FrameException when the length is not that of a whole number of values
     */
    public static int count(Frame frame) {
        ValueEncoding encoding = ValueEncoding.of(frame);
        int bytes = frame.payloadLength() - encoding.headerLength();
        if (bytes < 0 || bytes % encoding.valueSize() != 0) {
            throw new FrameException("a " + frame.kind() + " frame of step " + frame.step() + " holds "
                    + frame.payloadLength() + " bytes, not a whole number of " + encoding + " values ("
                    + describeLength(encoding) + ")");
        }
        return bytes / encoding.valueSize();
    }

    /**
     * The frame's encoding, once its length is checked against {@code expectedCount} values of it.
     *
     * @throws FrameException saying how many values (and bytes) of which encoding were expected, and what was found
     */
    static ValueEncoding checked(Frame frame, int expectedCount) {
        ValueEncoding encoding = ValueEncoding.of(frame);
        int expectedBytes = encoding.payloadLength(expectedCount);
        if (frame.payloadLength() != expectedBytes) {
            throw new FrameException("expected " + expectedCount + " " + encoding.valuesName() + " ("
                    + encoding.bytesName(expectedBytes) + ") in a " + frame.kind() + " frame of step "
                    + frame.step() + ", found " + frame.payloadLength() + " bytes");
        }
        return encoding;
    }

    private static String describeLength(ValueEncoding encoding) {
        return encoding.headerLength() > 0 ? encoding.headerLength() + " bytes of scale, then " + encoding.valueSize()
                + " bytes each" : encoding.valueSize() + " bytes each";
    }
}

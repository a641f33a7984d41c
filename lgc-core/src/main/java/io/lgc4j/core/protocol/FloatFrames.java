package io.lgc4j.core.protocol;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.stage.Stage;

import java.nio.ByteBuffer;
import java.nio.FloatBuffer;

/**
 * Frames whose payload is a run of little-endian float32 values: one copy from the array to the wire on the way
 * out, and reads straight from the received bytes (copy or accumulate) on the way in, each checking the length.
 */
public final class FloatFrames {

    private FloatFrames() {
    }

    /** Seals a frame carrying {@code values[from, to)}. */
    public static byte[] encode(float[] values, int from, int to, TrafficKind kind, Stage stage, int step) {
        ByteBuffer payload = FrameCodec.allocate(Math.multiplyExact(4, to - from));
        payload.asFloatBuffer().put(values, from, to - from);
        return FrameCodec.seal(payload, kind, stage, step);
    }

    /** Copies the frame's floats into {@code dst[from, to)}; the frame must carry exactly {@code to - from}. */
    public static void copyInto(Frame frame, float[] dst, int from, int to) {
        view(frame, to - from).get(dst, from, to - from);
    }

    /** Adds the frame's floats to {@code dst[from, to)}; the frame must carry exactly {@code to - from}. */
    public static void addInto(Frame frame, float[] dst, int from, int to) {
        FloatBuffer in = view(frame, to - from);
        for (int i = from, j = 0; i < to; i++, j++) {
            dst[i] += in.get(j);
        }
    }

    private static FloatBuffer view(Frame frame, int expectedCount) {
        int expectedBytes = 4 * expectedCount;
        if (frame.payloadLength() != expectedBytes) {
            throw new FrameException("expected " + expectedCount + " floats (" + expectedBytes + " bytes) in a "
                    + frame.kind() + " frame of step " + frame.step() + ", found " + frame.payloadLength()
                    + " bytes");
        }
        return frame.payload().duplicate().order(frame.payload().order()).asFloatBuffer();
    }
}

package io.lgc4j.core.protocol;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.compress.Sketch;
import io.lgc4j.core.train.StepTag;

import java.nio.ByteBuffer;

/** A {@link Sketch} on the wire: its counters as a VALUES frame of float32, its bitmap as an INDICES frame of int64. */
public final class SketchFrames {
    private SketchFrames() {
    }

    public static byte[][] encode(Sketch sketch, StepTag tag) {
        byte[] counters = FloatFrames.encode(sketch.counters(), 0, sketch.counters().length, TrafficKind.VALUES,
                tag.stage(), tag.step());
        ByteBuffer payload = FrameCodec.allocate(8 * sketch.bitmap().length);
        payload.asLongBuffer().put(sketch.bitmap());
        return new byte[][] {counters, FrameCodec.seal(payload, TrafficKind.INDICES, tag.stage(), tag.step())};
    }

    /** Decodes a sketch of exactly {@code counterCount} counters and {@code words} bitmap words. */
    public static Sketch decode(Frame counters, Frame bitmap, int counterCount, int words) {
        float[] c = new float[counterCount];
        FloatFrames.copyInto(counters, c, 0, counterCount);
        if (bitmap.payloadLength() != 8 * words) {
            throw new FrameException("expected a sketch bitmap of " + words + " words (" + 8 * words + " bytes) in"
                    + " step " + bitmap.step() + ", found " + bitmap.payloadLength() + " bytes");
        }
        long[] b = new long[words];
        bitmap.payload().duplicate().order(bitmap.payload().order()).asLongBuffer().get(b);
        return new Sketch(c, b);
    }
}

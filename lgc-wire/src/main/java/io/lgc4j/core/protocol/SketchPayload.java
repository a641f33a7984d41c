package io.lgc4j.core.protocol;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.StepTag;

import java.util.List;

/**
 * An S2 sketch (or the sum of K of them): its counters as a {@link TrafficKind#VALUES} frame, then its bitmap as an
 * {@link TrafficKind#INDICES} frame, in the {@link SketchFrames} layout. On the ring the counters ride a sum
 * allreduce and the bitmap an OR-allreduce, chunked, with these kinds.
 *
 * @param sketch the counters and the bitmap
 */
public record SketchPayload(Sketch sketch) implements Payload {
    /** The kind of the counters' frame. */
    public static final TrafficKind COUNTERS_KIND = TrafficKind.VALUES;
    /** The kind of the bitmap's frame. */
    public static final TrafficKind BITMAP_KIND = TrafficKind.INDICES;

    @Override
    public List<TrafficKind> kinds() {
        return List.of(COUNTERS_KIND, BITMAP_KIND);
    }

    /** Its two frames: counters, then bitmap. */
    public byte[][] encode(StepTag tag) {
        return SketchFrames.encode(sketch, tag);
    }

    /**
     * The sketch two frames carry.
     *
     * @throws io.lgc4j.core.comm.FrameException if the counters are not {@code counterCount} floats or the bitmap
     *                                           not {@code words} words
     */
    public static SketchPayload decode(Frame counters, Frame bitmap, int counterCount, int words) {
        return new SketchPayload(SketchFrames.decode(counters, bitmap, counterCount, words));
    }
}

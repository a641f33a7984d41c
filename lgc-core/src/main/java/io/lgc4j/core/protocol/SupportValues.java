package io.lgc4j.core.protocol;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.StepTag;

import java.util.List;

/**
 * Values on a support: per compressible block, the values at the indices of the step's {@link Support}, blocks in
 * layout order, as one {@link TrafficKind#VALUES} frame in the {@link FloatFrames} layout, in the step's value
 * encoding ({@link StepTag#values()}). The count is the support's size, which the receiver knows; a mean on a support
 * travels the same way.
 *
 * @param values the values, block after block
 */
public record SupportValues(float[] values) implements Payload {
    /** The kind of its frame. */
    public static final TrafficKind KIND = TrafficKind.VALUES;

    @Override
    public List<TrafficKind> kinds() {
        return List.of(KIND);
    }

    /** Its frame, in the tag's value encoding. */
    public byte[] encode(StepTag tag) {
        return FloatFrames.encode(values, 0, values.length, KIND, tag.stage(), tag.step(), tag.values());
    }

    /**
     * The values of a frame that must hold exactly {@code count} (the support's size).
     *
     * @throws io.lgc4j.core.comm.FrameException if it holds another number of bytes
     */
    public static SupportValues decode(Frame frame, int count) {
        return new SupportValues(FloatFrames.read(frame, count));
    }
}

package io.lgc4j.core.protocol;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.StepTag;

import java.util.List;

/**
 * Dense values: a whole gradient (FULL), the DENSE blocks, or a mean of them, as one {@link TrafficKind#VALUES}
 * frame in the {@link FloatFrames} layout, in the step's value encoding ({@link StepTag#values()}). The array is not
 * copied: it is the one the caller filled.
 *
 * @param values the values, in layout order
 */
public record DenseValues(float[] values) implements Payload {
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
     * The values of a frame that must hold exactly {@code count}, in the encoding its flags name.
     *
     * @throws io.lgc4j.core.comm.FrameException if it holds another number of bytes
     */
    public static DenseValues decode(Frame frame, int count) {
        return new DenseValues(FloatFrames.read(frame, count));
    }
}

package io.lgc4j.core.protocol;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.StepTag;

import java.util.List;

/**
 * A run of values, as one {@link TrafficKind#VALUES} frame in the {@link FloatFrames} layout and the step's value
 * encoding ({@link StepTag#values()}). The count is never sent; {@link #decode} checks the frame against the count
 * the receiver knows. The array is not copied. Its uses, told apart by the step: dense values (count: the layout's
 * length), values on the step's {@link Support} in layout order (count: the support's size), and one round of
 * low-rank factors ({@link LowRankPlan}; count: the plan's round length), or a mean of any of them.
 *
 * <pre>{@code
 * end.send(clock, new Values(onSupport).encode(tag));
 * float[] mean = Values.decode(end.receive(Values.KIND, tag), support.size()).values();
 * }</pre>
 *
 * @param values the values, in layout order (block after block)
 */
public record Values(float[] values) implements Payload {
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
    public static Values decode(Frame frame, int count) {
        return new Values(FloatFrames.read(frame, count));
    }
}

package io.lgc4j.core.protocol;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.StepTag;

import java.util.List;

/**
 * Low-rank factors of one PowerSGD round ({@code io.lgc4j.core.protocol.LowRankPlan}): in the first round a rank's
 * P of every factored block followed by the plain blocks' values, in the second its Q of every factored block — or
 * the ranks' mean of either, which travels the same way. One {@link TrafficKind#VALUES} frame in the
 * {@link FloatFrames} layout, in the run's value encoding as every values payload; the count follows from the plan,
 * which the receiver knows.
 *
 * @param values the factors, block after block
 */
public record Factors(float[] values) implements Payload {
    /** The kind of its frame. */
    public static final TrafficKind KIND = TrafficKind.VALUES;

    @Override
    public List<TrafficKind> kinds() {
        return List.of(KIND);
    }

    /** Its frame. */
    public byte[] encode(StepTag tag) {
        return FloatFrames.encode(values, 0, values.length, KIND, tag.stage(), tag.step(), tag.values());
    }

    /**
     * The factors of a frame that must hold exactly {@code count} floats (the plan's round length).
     *
     * @throws io.lgc4j.core.comm.FrameException if it holds another number of bytes
     */
    public static Factors decode(Frame frame, int count) {
        return new Factors(FloatFrames.read(frame, count));
    }
}

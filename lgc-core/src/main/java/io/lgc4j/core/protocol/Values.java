package io.lgc4j.core.protocol;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.StepTag;

import java.util.List;

/**
 * A run of values, as one {@link TrafficKind#VALUES} frame in the {@link FloatFrames} layout, in the step's value
 * encoding ({@link StepTag#values()}). The count is never sent: the receiver knows it from the use, and
 * {@link #decode} checks the frame against it. The array is not copied: it is the one the caller filled. Three uses
 * share it, told apart by the exchange's step, not by the frame:
 * <ul>
 *   <li><b>dense values</b>: a whole gradient (FULL), the DENSE blocks, or a mean of either; the count is the
 *       layout's length;</li>
 *   <li><b>values on a support</b>: per compressible block, the values at the indices of the step's
 *       {@link Support}, blocks in layout order, or a mean on that support; the count is the support's size;</li>
 *   <li><b>low-rank factors</b> of one PowerSGD round ({@link LowRankPlan}): in the first round a rank's P of every
 *       factored block followed by the plain blocks' values, in the second its Q of every factored block, or the
 *       ranks' mean of either; the count is the plan's round length.</li>
 * </ul>
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

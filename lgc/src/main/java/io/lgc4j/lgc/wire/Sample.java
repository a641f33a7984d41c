package io.lgc4j.lgc.wire;

import io.lgc4j.core.protocol.FloatFrames;
import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.comm.StepTag;

import java.util.List;

/**
 * The drift guard's control sample in a check step: a rank's true compact-vector values at the positions drawn
 * from the seed and the step (the same on every rank, {@code checkSample} of them), as one
 * {@link TrafficKind#CONTROL} frame in the {@link FloatFrames} layout. On the parameter server each worker sends its
 * own; on the ring the samples ride a sum allreduce in CONTROL chunks of the same layout.
 *
 * @param values the values at the sampled positions, in the positions' (ascending) order
 */
public record Sample(float[] values) implements LgcPayload {
    /** The kind of its frame. */
    public static final TrafficKind KIND = TrafficKind.CONTROL;

    /** The values of {@code compact} at {@code positions}. */
    public static Sample at(float[] compact, int[] positions) {
        float[] values = new float[positions.length];
        for (int i = 0; i < positions.length; i++) {
            values[i] = compact[positions[i]];
        }
        return new Sample(values);
    }

    @Override
    public List<TrafficKind> kinds() {
        return List.of(KIND);
    }

    /**
     * Its frame, always float32 whatever the tag's value encoding: the guard compares the sample with a
     * reconstruction, and a half-precision sample would add its own error to the drift it measures.
     */
    public byte[] encode(StepTag tag) {
        return FloatFrames.encode(values, 0, values.length, KIND, tag.stage(), tag.step(), ValueEncoding.FP32);
    }

    /**
     * The sample a frame carries.
     *
     * @param count the number of sampled positions
     * @throws FrameException if the frame does not hold exactly {@code count} values of the encoding its flags name
     */
    public static Sample decode(Frame frame, int count) {
        ValueEncoding encoding = ValueEncoding.of(frame);
        int expected = encoding.payloadLength(count);
        if (frame.payloadLength() != expected) {
            throw new FrameException("drift-guard sample of step " + frame.step() + ": expected " + count + " "
                    + encoding.valuesName() + " (" + encoding.bytesName(expected)
                    + "), found " + frame.payloadLength() + " bytes");
        }
        return new Sample(FloatFrames.read(frame, count));
    }
}

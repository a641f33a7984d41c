package io.lgc4j.lgc.wire;

import io.lgc4j.core.codec.IndexCodec;
import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.StepTag;

import java.util.List;

/**
 * A rank's innovation in a compressed LGC-PS step: the positions within its compact vector that the decoder gets
 * exactly (ascending, in [0, μ)) and the values there, as two {@link TrafficKind#INNOVATION} frames in the
 * {@link LgcFrames} layout, positions first.
 *
 * @param positions ascending positions in the compact vector
 * @param values    the compact vector's values at them, in the same order
 */
public record Innovation(int[] positions, float[] values) implements LgcPayload {
    /** The kind of both its frames. */
    public static final TrafficKind KIND = TrafficKind.INNOVATION;

    /** The innovation of {@code compact} at {@code positions}. */
    public static Innovation at(float[] compact, int[] positions) {
        float[] values = new float[positions.length];
        for (int i = 0; i < positions.length; i++) {
            values[i] = compact[positions[i]];
        }
        return new Innovation(positions, values);
    }

    @Override
    public List<TrafficKind> kinds() {
        return List.of(KIND, KIND);
    }

    /** As the decoder reads it: length μ, the values at their positions, zero elsewhere. */
    public float[] toVector(int mu) {
        float[] vector = new float[mu];
        for (int i = 0; i < positions.length; i++) {
            vector[positions[i]] = values[i];
        }
        return vector;
    }

    /**
     * Its two frames: positions, then values.
     *
     * @param mu the compact vector's length
     */
    public byte[][] encode(int mu, IndexCodec codec, StepTag tag) {
        return LgcFrames.encodeInnovation(this, mu, codec, tag);
    }

    /**
     * The innovation two frames carry.
     *
     * @param maxCount the most positions accepted (the innovation count)
     * @throws io.lgc4j.core.comm.FrameException if a position is out of [0, μ) or out of order, there are too many,
     *                                           or the values do not match the positions one to one
     */
    public static Innovation decode(Frame positions, Frame values, IndexCodec codec, int mu, int maxCount) {
        return LgcFrames.decodeInnovation(positions, values, codec, mu, maxCount);
    }
}

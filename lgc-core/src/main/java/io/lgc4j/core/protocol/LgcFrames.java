package io.lgc4j.core.protocol;

import io.lgc4j.core.codec.CodecException;
import io.lgc4j.core.codec.IndexCodec;
import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.train.StepTag;

import java.nio.ByteBuffer;

/**
 * The LGC-PS frames beyond plain values and supports:
 * <ul>
 *   <li>the common code: one {@link TrafficKind#LATENT} frame of the latent's float32s followed by the scale the
 *       compact vector was divided by (one more float32);</li>
 *   <li>a rank's innovation: an {@link TrafficKind#INNOVATION} frame of its positions within the compact vector
 *       (ascending, coded by the shared {@link IndexCodec} over [0, μ)), then an {@link TrafficKind#INNOVATION}
 *       frame of the values at those positions as float32.</li>
 * </ul>
 */
public final class LgcFrames {

    private LgcFrames() {
    }

    /** A latent and the scale it was encoded with. */
    public record Code(float[] latent, float scale) {
    }

    public static byte[] encodeCode(float[] latent, float scale, StepTag tag) {
        float[] all = java.util.Arrays.copyOf(latent, latent.length + 1);
        all[latent.length] = scale;
        return FloatFrames.encode(all, 0, all.length, TrafficKind.LATENT, tag.stage(), tag.step());
    }

    /** Decodes a code frame of exactly {@code latentSize} floats and a positive finite scale. */
    public static Code decodeCode(Frame frame, int latentSize) {
        float[] all = new float[latentSize + 1];
        FloatFrames.copyInto(frame, all, 0, all.length);
        float scale = all[latentSize];
        if (!(scale > 0 && Float.isFinite(scale))) {
            throw new FrameException("latent frame of step " + frame.step() + ": expected a positive finite scale "
                    + "after the " + latentSize + " latent floats, found " + scale);
        }
        return new Code(java.util.Arrays.copyOf(all, latentSize), scale);
    }

    /** The two innovation frames of {@code compact} at {@code positions}: positions first, then values. */
    public static byte[][] encodeInnovation(float[] compact, int[] positions, IndexCodec codec, StepTag tag) {
        byte[] coded = codec.encode(positions, positions.length, compact.length);
        float[] values = new float[positions.length];
        for (int i = 0; i < positions.length; i++) {
            values[i] = compact[positions[i]];
        }
        return new byte[][] {
                FrameCodec.encode(TrafficKind.INNOVATION, tag.stage(), tag.step(), ByteBuffer.wrap(coded)),
                FloatFrames.encode(values, 0, values.length, TrafficKind.INNOVATION, tag.stage(), tag.step())};
    }

    /**
     * A rank's innovation as the decoder reads it: length μ, the received values at their positions, zero
     * elsewhere.
     *
     * @param maxCount the most positions accepted (the innovation count)
     */
    public static float[] decodeInnovation(Frame positions, Frame values, IndexCodec codec, int mu, int maxCount) {
        byte[] coded = new byte[positions.payloadLength()];
        positions.payload().duplicate().get(coded);
        int[] at;
        try {
            at = codec.decode(coded, mu, maxCount);
        } catch (CodecException e) {
            throw new FrameException("innovation positions of step " + positions.step() + ": " + e.getMessage());
        }
        float[] v = new float[at.length];
        FloatFrames.copyInto(values, v, 0, v.length);
        float[] innovation = new float[mu];
        for (int i = 0; i < at.length; i++) {
            innovation[at[i]] = v[i];
        }
        return innovation;
    }
}

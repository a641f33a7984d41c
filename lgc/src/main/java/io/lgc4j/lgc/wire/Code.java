package io.lgc4j.lgc.wire;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.StepTag;

import java.util.List;

/**
 * The common code of a compressed LGC step: the leader's latent and the scale its compact vector was divided by, as
 * one {@link TrafficKind#LATENT} frame in the {@link LgcFrames} layout. LGC-RAR sends the scale alone: a code with an
 * empty latent ({@link #scaleOnly}).
 *
 * @param latent the encoder's output (empty on the ring)
 * @param scale  positive and finite
 */
public record Code(float[] latent, float scale) implements LgcPayload {
    /** The kind of its frame. */
    public static final TrafficKind KIND = TrafficKind.LATENT;

    private static final float[] NO_LATENT = new float[0];

    /** The ring's code: the scale, no latent (the ring sums the latents in its allreduce instead). */
    public static Code scaleOnly(float scale) {
        return new Code(NO_LATENT, scale);
    }

    @Override
    public List<TrafficKind> kinds() {
        return List.of(KIND);
    }

    /** Its frame. */
    public byte[] encode(StepTag tag) {
        return LgcFrames.encodeCode(latent, scale, tag);
    }

    /**
     * The code a frame carries.
     *
     * @param latentSize the latent's length the receiver expects (0 for the ring's scale)
     * @throws io.lgc4j.core.comm.FrameException on another length, or a scale that is not positive and finite
     */
    public static Code decode(Frame frame, int latentSize) {
        return LgcFrames.decodeCode(frame, latentSize);
    }
}

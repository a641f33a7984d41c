package io.lgc4j.lgc.wire;

import io.lgc4j.core.protocol.FloatFrames;
import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.comm.StepTag;

import java.util.List;

/**
 * One rank's compact vector sent to the rank that trains an autoencoder during LGC-RAR's TOP_K stage (training data,
 * not part of the update), as one {@link TrafficKind#AE_SAMPLES} frame in the {@link FloatFrames} layout.
 *
 * @param compact the rank's compact vector (length μ)
 */
public record AeSample(float[] compact) implements LgcPayload {
    /** The kind of its frame. */
    public static final TrafficKind KIND = TrafficKind.AE_SAMPLES;

    @Override
    public List<TrafficKind> kinds() {
        return List.of(KIND);
    }

    /** Its frame. */
    public byte[] encode(StepTag tag) {
        // training data, not the update: always float32, whatever the tag's value encoding
        return FloatFrames.encode(compact, 0, compact.length, KIND, tag.stage(), tag.step(), ValueEncoding.FP32);
    }

    /**
     * The compact vector a frame carries.
     *
     * @param mu the compact vector's length
     * @throws io.lgc4j.core.comm.FrameException if the frame does not hold exactly μ floats
     */
    public static AeSample decode(Frame frame, int mu) {
        return new AeSample(FloatFrames.read(frame, mu));
    }
}

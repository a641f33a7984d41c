package io.lgc4j.lgc.wire;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.StepTag;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * One part of an autoencoder's weights (the encoder, or a decoder) as it ships once from the rank that trained it,
 * as one {@link TrafficKind#AE_WEIGHTS} frame whose payload is the weight form of {@link WeightsDescriptor}, verbatim.
 * The receiver's autoencoder checks the form against its own configuration when it loads it.
 *
 * @param form the weight form
 */
public record Weights(byte[] form) implements LgcPayload {
    /** The kind of its frame. */
    public static final TrafficKind KIND = TrafficKind.AE_WEIGHTS;

    @Override
    public List<TrafficKind> kinds() {
        return List.of(KIND);
    }

    /** Its frame. */
    public byte[] encode(StepTag tag) {
        return FrameCodec.encode(KIND, tag.stage(), tag.step(), ByteBuffer.wrap(form));
    }

    /** The weight form a frame carries (a copy; checked by the autoencoder that loads it). */
    public static Weights decode(Frame frame) {
        byte[] form = new byte[frame.payloadLength()];
        frame.payload().duplicate().get(form);
        return new Weights(form);
    }
}

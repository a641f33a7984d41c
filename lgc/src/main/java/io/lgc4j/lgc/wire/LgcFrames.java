package io.lgc4j.lgc.wire;

import io.lgc4j.core.protocol.FloatFrames;
import io.lgc4j.core.codec.CodecException;
import io.lgc4j.core.codec.IndexCodec;
import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.comm.StepTag;

import java.nio.ByteBuffer;

/**
 * The layouts only LGC sends ({@code docs/architecture/wire.md}). <b>Code</b> ({@link Code}, one
 * {@link TrafficKind#LATENT} frame): the leader's latent and the scale its compact vector was divided by; LGC-RAR's
 * scale frame is the same layout with m = 0. <b>Innovation</b> ({@link Innovation}, LGC-PS): two
 * {@link TrafficKind#INNOVATION} frames, the positions within the compact vector (index codec bytes, ascending, in
 * [0, μ)), then one value per position ({@link FloatFrames} layout, in the step's value encoding).
 *
 * <pre>
 *  offset  size  field
 *  0       4·m   latent: m float32, little-endian (m = the latent size, known to the receiver); in a half-precision
 *                step the step's {@link ValueEncoding#payloadLength} bytes instead (fp16: 2 + 2·m, bf16: 2·m)
 *  4·m     4     scale: float32 whatever the encoding, finite and &gt; 0 (the compact vector's RMS, 1 if all zero)
 * </pre>
 *
 * <pre>{@code
 * byte[] code = LgcFrames.encodeCode(latent, scale, tag);
 * Code back = LgcFrames.decodeCode(frame, latentSize);   // FrameException on a wrong length or a bad scale
 * }</pre>
 */
public final class LgcFrames {
    /** Offset of the latent in a code payload. */
    public static final int LATENT_OFFSET = 0;
    /** Bytes of the scale (float32) that ends a code payload. */
    public static final int SCALE_SIZE = Float.BYTES;
    /** Offset of the coded positions in an innovation's positions payload. */
    public static final int POSITIONS_OFFSET = 0;

    private LgcFrames() {
    }

    /** Offset of the scale in a code payload whose latent has {@code latentSize} floats (float32). */
    public static int scaleOffset(int latentSize) {
        return scaleOffset(ValueEncoding.FP32, latentSize);
    }

    /** Offset of the scale in a code payload whose latent has {@code latentSize} values in {@code encoding}. */
    public static int scaleOffset(ValueEncoding encoding, int latentSize) {
        return LATENT_OFFSET + encoding.payloadLength(latentSize);
    }

    /** Payload bytes of a code whose latent has {@code latentSize} floats (float32). */
    public static int codeLength(int latentSize) {
        return codeLength(ValueEncoding.FP32, latentSize);
    }

    /** Payload bytes of a code whose latent has {@code latentSize} values in {@code encoding}. */
    public static int codeLength(ValueEncoding encoding, int latentSize) {
        return Math.addExact(scaleOffset(encoding, latentSize), SCALE_SIZE);
    }

    /**
     * The code frame of {@code latent} and {@code scale}: the latent in the tag's value encoding (float32 when it is
     * empty), the scale in float32.
     *
     * @throws IllegalArgumentException when a half encoding meets a non-finite latent value
     */
    public static byte[] encodeCode(float[] latent, float scale, StepTag tag) {
        ValueEncoding encoding = latent.length == 0 ? ValueEncoding.FP32 : tag.values();
        ByteBuffer payload = FrameCodec.allocate(codeLength(encoding, latent.length));
        payload.position(LATENT_OFFSET);
        encoding.write(payload, latent, 0, latent.length, TrafficKind.LATENT, tag.step());
        payload.putFloat(scaleOffset(encoding, latent.length), scale);
        return FrameCodec.seal(payload, TrafficKind.LATENT, tag.stage(), tag.step(), 0, encoding.wireId());
    }

    /**
     * Decodes a code frame of exactly {@code latentSize} floats and a scale.
     *
     * @throws FrameException if the length is not that of {@code latentSize} floats and the scale, or the scale is
     *                        not positive and finite
     */
    public static Code decodeCode(Frame frame, int latentSize) {
        ValueEncoding encoding = ValueEncoding.of(frame);
        int expected = codeLength(encoding, latentSize);
        String latentFloats = latentSize + " latent " + encoding.valuesName();
        if (frame.payloadLength() != expected) {
            throw new FrameException("latent frame of step " + frame.step() + ": expected " + latentFloats
                    + " and the scale (" + expected + " bytes), found " + frame.payloadLength() + " bytes");
        }
        ByteBuffer in = frame.payload().duplicate().order(frame.payload().order());
        int start = in.position();
        float scale = in.getFloat(start + scaleOffset(encoding, latentSize));
        if (!(scale > 0 && Float.isFinite(scale))) {
            throw new FrameException("latent frame of step " + frame.step() + ": expected a positive finite scale "
                    + "after the " + latentFloats + ", found " + scale);
        }
        float[] latent = new float[latentSize];
        in.position(start + LATENT_OFFSET);
        encoding.read(in, latent, 0, latentSize, false, frame);
        return new Code(latent, scale);
    }

    /**
     * The two innovation frames: positions first, then values.
     *
     * @param mu the compact vector's length (the positions' range)
     */
    public static byte[][] encodeInnovation(Innovation innovation, int mu, IndexCodec codec, StepTag tag) {
        int[] positions = innovation.positions();
        byte[] coded = codec.encode(positions, positions.length, mu);
        ByteBuffer payload = FrameCodec.allocate(POSITIONS_OFFSET + coded.length);
        payload.position(POSITIONS_OFFSET);
        payload.put(coded);
        float[] values = innovation.values();
        return new byte[][] {
                FrameCodec.seal(payload, TrafficKind.INNOVATION, tag.stage(), tag.step()),
                FloatFrames.encode(values, 0, values.length, TrafficKind.INNOVATION, tag.stage(), tag.step(),
                        tag.values())};
    }

    /**
     * A rank's innovation from its two frames.
     *
     * @param mu       the compact vector's length: every position must be below it
     * @param maxCount the most positions accepted (the innovation count)
     * @throws FrameException if the positions do not decode (out of range, out of order, too many) or the values
     *                        frame does not hold one float per position
     */
    public static Innovation decodeInnovation(Frame positions, Frame values, IndexCodec codec, int mu, int maxCount) {
        ByteBuffer in = positions.payload().duplicate();
        in.position(in.position() + POSITIONS_OFFSET);
        byte[] coded = new byte[in.remaining()];
        in.get(coded);
        int[] at;
        try {
            at = codec.decode(coded, mu, maxCount);
        } catch (CodecException e) {
            throw new FrameException("innovation positions of step " + positions.step() + ": " + e.getMessage());
        }
        ValueEncoding encoding = ValueEncoding.of(values);
        int expected = encoding.payloadLength(at.length);
        if (values.payloadLength() != expected) {
            throw new FrameException("innovation values of step " + values.step() + ": expected " + at.length + " "
                    + encoding.valuesName() + ", one per position (" + encoding.bytesName(expected) + "), found " + values.payloadLength() + " bytes");
        }
        return new Innovation(at, FloatFrames.read(values, at.length));
    }
}

package io.lgc4j.lgc.wire;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.protocol.FloatFrames;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.nio.ByteBuffer;

import static io.lgc4j.lgc.wire.LgcPayloadGoldenTest.CODEC;
import static io.lgc4j.lgc.wire.LgcPayloadGoldenTest.TAG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The code and innovation decoders reject every malformed input with a message naming the step and the fault. */
class LgcFramesTest {

    private static Frame decoded(byte[] frame) {
        return FrameCodec.decode(frame);
    }

    /** A LATENT frame of {@code floats} as they are, the last one in the scale's place. */
    private static Frame rawCode(float... floats) {
        return decoded(FloatFrames.encode(floats, 0, floats.length, TrafficKind.LATENT, TAG.stage(), TAG.step()));
    }

    private static void assertMessage(String expected, Executable call) {
        assertEquals(expected, assertThrows(FrameException.class, call).getMessage());
    }

    @Test
    void shouldRejectACodeOfAnotherLatentLength() {
        Frame three = decoded(new Code(new float[] {1, 2, 3}, 0.5f).encode(TAG));
        assertMessage("latent frame of step 7: expected 4 latent floats and the scale (20 bytes), found 16 bytes",
                () -> Code.decode(three, 4));
        assertMessage("latent frame of step 7: expected 0 latent floats and the scale (4 bytes), found 16 bytes",
                () -> Code.decode(three, 0));
    }

    @Test
    void shouldRejectAScaleThatIsNotPositiveAndFinite() {
        assertMessage("latent frame of step 7: expected a positive finite scale after the 2 latent floats, found 0.0",
                () -> Code.decode(rawCode(1, 2, 0), 2));
        assertMessage("latent frame of step 7: expected a positive finite scale after the 2 latent floats, found -1.0",
                () -> Code.decode(rawCode(1, 2, -1), 2));
        assertMessage("latent frame of step 7: expected a positive finite scale after the 2 latent floats, found NaN",
                () -> Code.decode(rawCode(1, 2, Float.NaN), 2));
        assertMessage("latent frame of step 7: expected a positive finite scale after the 0 latent floats, found "
                + "Infinity", () -> Code.decode(rawCode(Float.POSITIVE_INFINITY), 0));
    }

    @Test
    void shouldCarryTheRingsScaleAsACodeWithoutLatent() {
        byte[] frame = Code.scaleOnly(0.125f).encode(TAG);
        byte[] plainFloat = FloatFrames.encode(new float[] {0.125f}, 0, 1, TrafficKind.LATENT, TAG.stage(),
                TAG.step());
        assertEquals(ByteBuffer.wrap(plainFloat), ByteBuffer.wrap(frame), "the scale frame LGC-RAR always sent");
        assertEquals(0.125f, Code.decode(decoded(frame), 0).scale());
    }

    @Test
    void shouldRejectInnovationPositionsOutOfRange() {
        byte[][] wide = new Innovation(new int[] {1, 15}, new float[] {1, 2}).encode(20, CODEC, TAG);
        assertMessage("innovation positions of step 7: index out of range at position 1: expected 0 <= index < n=12,"
                        + " found 15",
                () -> Innovation.decode(decoded(wide[0]), decoded(wide[1]), CODEC, 12, 2));
    }

    @Test
    void shouldRejectMorePositionsThanTheInnovationCount() {
        byte[][] three = new Innovation(new int[] {1, 4, 9}, new float[] {1, 2, 3}).encode(12, CODEC, TAG);
        assertMessage("innovation positions of step 7: declared count exceeds maxCount: expected <= 2, found 3",
                () -> Innovation.decode(decoded(three[0]), decoded(three[1]), CODEC, 12, 2));
    }

    @Test
    void shouldRejectInnovationValuesThatDoNotMatchThePositions() {
        byte[][] three = new Innovation(new int[] {1, 4, 9}, new float[] {1, 2, 3}).encode(12, CODEC, TAG);
        Frame twoValues = decoded(FloatFrames.encode(new float[2], 0, 2, TrafficKind.INNOVATION, TAG.stage(),
                TAG.step()));
        assertMessage("innovation values of step 7: expected 3 floats, one per position (12 bytes), found 8 bytes",
                () -> Innovation.decode(decoded(three[0]), twoValues, CODEC, 12, 3));
    }

    /** In a half-precision step the latent and the innovation values take the step's encoding; the scale does not. */
    @Test
    void shouldCarryLatentAndInnovationValuesInTheStepsEncodingAndCheckTheirLengths() {
        Frame fp16 = decoded(new Code(new float[] {1, -2, 3}, 0.5f).encode(TAG.withValues(ValueEncoding.FP16)));
        assertEquals(ValueEncoding.FP16, ValueEncoding.of(fp16));
        assertEquals(2 + 2 * 3 + 4, fp16.payloadLength());
        Code back = Code.decode(fp16, 3);
        assertEquals(0.5f, back.scale());
        assertEquals(-2f, back.latent()[1]);
        assertMessage("latent frame of step 7: expected 4 latent fp16 values and the scale (14 bytes), found 12"
                + " bytes", () -> Code.decode(fp16, 4));
        assertEquals(ValueEncoding.FP32, ValueEncoding.of(decoded(Code.scaleOnly(0.5f).encode(
                TAG.withValues(ValueEncoding.BF16)))), "a code without latent is the float32 scale, as before");
        byte[][] bf16 = new Innovation(new int[] {1, 4, 9}, new float[] {1, 2, 3}).encode(12, CODEC,
                TAG.withValues(ValueEncoding.BF16));
        assertEquals(0, decoded(bf16[0]).flags(), "positions are codec bytes: no value encoding");
        assertEquals(6, decoded(bf16[1]).payloadLength());
        Frame twoValues = decoded(FloatFrames.encode(new float[2], 0, 2, TrafficKind.INNOVATION, TAG.stage(),
                TAG.step(), ValueEncoding.BF16));
        assertMessage("innovation values of step 7: expected 3 bf16 values, one per position (6 bytes), found 4"
                + " bytes", () -> Innovation.decode(decoded(bf16[0]), twoValues, CODEC, 12, 3));
        float[] values = Innovation.decode(decoded(bf16[0]), decoded(bf16[1]), CODEC, 12, 3).values();
        assertEquals(3f, values[2]);
    }

    @Test
    void shouldRejectPositionsThatAreNotAnIndexCodecStream() {
        Frame positions = decoded(FrameCodec.encode(TrafficKind.INNOVATION, TAG.stage(), TAG.step(),
                ByteBuffer.wrap(new byte[] {1, 2, 3})));
        Frame values = decoded(FloatFrames.encode(new float[0], 0, 0, TrafficKind.INNOVATION, TAG.stage(),
                TAG.step()));
        assertMessage("innovation positions of step 7: bad zlib header: expected compression method 8 (DEFLATE),"
                + " found 1", () -> Innovation.decode(positions, values, CODEC, 12, 3));
    }
}

package io.lgc4j.core.protocol;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.comm.FrameDescriptor;
import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.stage.Stage;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static io.lgc4j.core.comm.ValueEncoding.BF16;
import static io.lgc4j.core.comm.ValueEncoding.FP16;
import static io.lgc4j.core.comm.ValueEncoding.FP32;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The value encodings: the binary16 and bfloat16 conversions against references computed from the formats' value
 * sets in double arithmetic; fp16's per-frame scale and its error bounds; rounding that is exactly what the wire
 * delivers and survives being re-sent in chunks; the refusal of non-finite values; lengths and messages.
 */
class ValueEncodingTest {

    /** Every finite non-negative binary16 value, ascending (index = bit pattern 0x0000..0x7BFF). */
    private static final double[] HALVES = new double[0x7C00];

    static {
        for (int h = 0; h < HALVES.length; h++) {
            int exponent = h >>> 10;
            int fraction = h & 0x3FF;
            HALVES[h] = exponent == 0 ? fraction * 0x1p-24 : (1024 + fraction) * Math.scalb(1.0, exponent - 25);
        }
    }

    /** binary16 rounding of {@code x} (finite) from the value set: nearest, ties to the even pattern. */
    private static int referenceHalf(float x) {
        int sign = x < 0 || (x == 0 && 1 / x < 0) ? 0x8000 : 0;
        double a = Math.abs((double) x);
        if (a >= 65520.0) {
            return sign | 0x7C00;
        }
        int i = Arrays.binarySearch(HALVES, a);
        if (i >= 0) {
            return sign | i;
        }
        int above = -i - 1; // first value above a (exists: a < 65520 < 65504's successor)
        if (above == HALVES.length) {
            return sign | (HALVES.length - 1);
        }
        int below = above - 1;
        double dBelow = a - HALVES[below];
        double dAbove = HALVES[above] - a;
        int pick = dBelow < dAbove ? below : dAbove < dBelow ? above : (below % 2 == 0 ? below : above);
        return sign | pick;
    }

    /** bfloat16 rounding of {@code x} (finite) from its two neighbours in double: nearest, ties to even, clamped. */
    private static int referenceBf16(float x) {
        int bits = Float.floatToRawIntBits(x);
        int truncated = bits >>> 16;
        double lo = Float.intBitsToFloat(truncated << 16);
        int upBits = truncated + 1;
        double hi = (upBits & 0x7F80) == 0x7F80 ? Math.copySign(0x1p128, x) : Float.intBitsToFloat(upBits << 16);
        double d = x;
        double dLo = Math.abs(d - lo);
        double dHi = Math.abs(hi - d);
        int pick = dLo < dHi ? truncated : dHi < dLo ? upBits : ((truncated & 1) == 0 ? truncated : upBits);
        if ((pick & 0x7F80) == 0x7F80) {
            pick = (truncated & 0x8000) | 0x7F7F; // would be infinite: the largest finite value instead
        }
        return pick & 0xFFFF;
    }

    @Test
    void everyBinary16PatternShouldRoundTripThroughFloat32() {
        for (int h = 0; h < 0x10000; h++) {
            float f = ValueEncoding.halfToFloat(h);
            int back = ValueEncoding.floatToHalf(f);
            if ((h & 0x7C00) == 0x7C00 && (h & 0x3FF) != 0) {
                assertTrue(Float.isNaN(f), "NaN pattern " + Integer.toHexString(h));
                assertEquals(0x7C00, back & 0x7C00, "NaN stays NaN: " + Integer.toHexString(h));
                assertTrue((back & 0x3FF) != 0, "NaN stays NaN: " + Integer.toHexString(h));
            } else {
                assertEquals(h, back, "pattern " + Integer.toHexString(h) + " = " + f);
                if ((h & 0x7FFF) < 0x7C00) {
                    assertEquals(HALVES[h & 0x7FFF], Math.abs((double) f), "value of " + Integer.toHexString(h));
                }
            }
        }
    }

    @Test
    void floatToHalfShouldRoundToNearestEvenLikeTheReference() {
        Random random = new Random(11);
        for (int n = 0; n < 2_000_000; n++) {
            float x;
            if (n % 4 == 0) {
                x = Float.intBitsToFloat(random.nextInt()); // anything float32 holds
            } else if (n % 4 == 1) {
                // binary16's range and a little beyond, every exponent equally: normals, subnormals, overflow
                int exponent = 100 + random.nextInt(46);
                x = Float.intBitsToFloat((random.nextBoolean() ? 0x80000000 : 0) | (exponent << 23)
                        | random.nextInt(1 << 23));
            } else {
                // exact midpoints between neighbouring halves, and a hair either side: the ties
                int h = random.nextInt(0x7BFF);
                float mid = (float) ((HALVES[h] + HALVES[h + 1]) / 2);
                int nudge = n % 4 == 2 ? 0 : random.nextInt(3) - 1;
                x = Float.intBitsToFloat(Float.floatToRawIntBits(mid) + nudge);
                x = random.nextBoolean() ? -x : x;
            }
            if (!Float.isFinite(x)) {
                continue;
            }
            float input = x;
            assertEquals(referenceHalf(input), ValueEncoding.floatToHalf(input), () -> "x = " + input + " ("
                    + Integer.toHexString(Float.floatToRawIntBits(input)) + ")");
        }
        assertEquals(0x7C00, ValueEncoding.floatToHalf(Float.POSITIVE_INFINITY));
        assertEquals(0xFC00, ValueEncoding.floatToHalf(Float.NEGATIVE_INFINITY));
        assertEquals(0x7BFF, ValueEncoding.floatToHalf(65519.996f));
        assertEquals(0x7C00, ValueEncoding.floatToHalf(65520f));
        assertEquals(0x0001, ValueEncoding.floatToHalf(0x1.000002p-25f));
        assertEquals(0x0000, ValueEncoding.floatToHalf(0x1p-25f), "the tie at half the smallest subnormal goes to 0");
        assertEquals(0x8000, ValueEncoding.floatToHalf(-0x1p-30f), "the sign of a flushed value stays");
    }

    @Test
    void floatToBf16ShouldRoundToNearestEvenLikeTheReferenceAndNeverOverflow() {
        Random random = new Random(12);
        for (int n = 0; n < 2_000_000; n++) {
            int bits = n % 2 == 0 ? random.nextInt() : (random.nextInt() & 0xFFFF0000) | (n % 3 == 0 ? 0x8000 : 0x7FFF
                    + random.nextInt(3));
            float x = Float.intBitsToFloat(bits);
            if (!Float.isFinite(x)) {
                continue;
            }
            assertEquals(referenceBf16(x), ValueEncoding.floatToBf16(x), () -> "x = " + x);
        }
        assertEquals(0x7F7F, ValueEncoding.floatToBf16(Float.MAX_VALUE), "rounded down, not to infinity");
        assertEquals(0xFF7F, ValueEncoding.floatToBf16(-Float.MAX_VALUE));
        assertEquals(0x3F80, ValueEncoding.floatToBf16(1.00390625f), "the tie 1 + 2^-8 goes to the even 1");
        assertEquals(0x3F82, ValueEncoding.floatToBf16(1.01171875f), "the tie 1 + 3·2^-8 goes to the even 1 + 2^-6");
        for (int b = 0; b < 0x10000; b++) {
            if ((b & 0x7F80) != 0x7F80) {
                assertEquals(b, ValueEncoding.floatToBf16(ValueEncoding.bf16ToFloat(b)), "pattern " + b);
            }
        }
    }

    /** Frames of many magnitudes, tiny to huge, and of a wide spread within the frame. */
    private static float[][] frames() {
        Random random = new Random(13);
        float[][] frames = new float[60][];
        for (int f = 0; f < frames.length; f++) {
            int n = 1 + random.nextInt(300);
            double magnitude = Math.pow(10, -40 + 78.0 * f / (frames.length - 1)); // 1e-40 (subnormal) to 1e38
            double spread = Math.pow(10, random.nextInt(16));
            float[] v = new float[n];
            for (int i = 0; i < n; i++) {
                double x = random.nextGaussian() * magnitude / Math.pow(spread, random.nextDouble());
                v[i] = (float) x;
            }
            if (f % 7 == 0) {
                v[random.nextInt(n)] = 0f;
                v[random.nextInt(n)] = -0f;
            }
            frames[f] = v;
        }
        return frames;
    }

    /**
     * fp16's bounds: the frame's exponent puts its largest magnitude M in (2^14, 2^15]; a value keeps 11 significant
     * bits (relative error ≤ 2^-11) down to 2^(e−14), has absolute error ≤ 2^(e−25) below, and flushes to a signed
     * zero at or below 2^(e−25); what the wire delivers is exactly {@link ValueEncoding#round(float[], int, int)}.
     */
    @Test
    void fp16ShouldRoundTripEveryFrameWithinItsBounds() {
        for (float[] v : frames()) {
            int e = FP16.exponentOf(v, 0, v.length);
            float max = ValueEncoding.maxAbs(v, 0, v.length);
            if (max > 0) {
                double scaled = max * Math.scalb(1.0, -e);
                assertTrue(scaled > 0x1p14 && scaled <= 0x1p15, "max " + max + " at exponent " + e);
            } else {
                assertEquals(0, e);
            }
            Frame frame = FrameCodec.decode(FloatFrames.encode(v, 0, v.length, TrafficKind.VALUES, Stage.TOP_K, 4,
                    FP16));
            assertEquals(FP16, ValueEncoding.of(frame));
            assertEquals(2 + 2 * v.length, frame.payloadLength());
            assertEquals(e, frame.payload().getShort(0), "the header's exponent");
            float[] decoded = FloatFrames.read(frame, v.length);
            float[] rounded = v.clone();
            FP16.round(rounded, 0, rounded.length);
            for (int i = 0; i < v.length; i++) {
                assertEquals(Float.floatToRawIntBits(rounded[i]), Float.floatToRawIntBits(decoded[i]),
                        "round() is what the wire delivers, element " + i);
                double x = Math.abs((double) v[i]);
                double err = Math.abs(decoded[i] - (double) v[i]);
                if (x <= Math.scalb(1.0, e - 25)) {
                    assertEquals(0.0, Math.abs(decoded[i]), "flushed: " + x + " at exponent " + e);
                    assertEquals(Math.copySign(1f, v[i]), Math.copySign(1f, decoded[i]), "sign of " + v[i]);
                } else {
                    // 11 significant bits down to 2^(e−14), a binary16 subnormal's grid below; and a value decoded
                    // below 2^-126 is a float32 subnormal, one more rounding, to 2^-149
                    double bound = x >= Math.scalb(1.0, e - 14) ? Math.scalb(x, -11) : Math.scalb(1.0, e - 25);
                    assertTrue(err <= bound + 0x1p-150, "error of " + v[i] + " at exponent " + e + ": " + err);
                }
            }
        }
    }

    @Test
    void fp16ShouldCarryTinyGradientsThatUnscaledBinary16WouldFlush() {
        float[] tiny = {3e-9f, -1.2e-9f, 7.5e-10f, 1e-12f};
        assertEquals(0, ValueEncoding.floatToHalf(3e-9f), "binary16's smallest subnormal is 6e-8");
        float[] decoded = FloatFrames.read(FrameCodec.decode(FloatFrames.encode(tiny, 0, tiny.length,
                TrafficKind.VALUES, Stage.TOP_K, 1, FP16)), tiny.length);
        for (int i = 0; i < 3; i++) {
            assertEquals(tiny[i], decoded[i], Math.abs(tiny[i]) * 0x1p-11, "element " + i);
        }
        assertEquals(1e-12f, decoded[3], 1e-12f * 0x1p-11, "2^-11·M is still normal in the scaled frame");
    }

    @Test
    void bf16ShouldRoundTripWithinHalfAnUlpOfItsEightBits() {
        for (float[] v : frames()) {
            Frame frame = FrameCodec.decode(FloatFrames.encode(v, 0, v.length, TrafficKind.VALUES, Stage.TOP_K, 4,
                    BF16));
            assertEquals(2 * v.length, frame.payloadLength());
            float[] decoded = FloatFrames.read(frame, v.length);
            float[] rounded = v.clone();
            BF16.round(rounded, 0, rounded.length);
            assertArrayEquals(rounded, decoded);
            for (int i = 0; i < v.length; i++) {
                double err = Math.abs((double) decoded[i] - v[i]);
                double bound = Math.abs(v[i]) >= 0x1p-126 ? Math.scalb(Math.abs((double) v[i]), -8) : 0x1p-134;
                assertTrue(err <= bound, "error of " + v[i] + ": " + err);
            }
        }
    }

    /**
     * What a sender keeps, x − round(x), is exact in float32; and values rounded as one frame travel unchanged in any
     * frame that holds a part of them (the ring's chunks), and when the chunk is re-sent again.
     */
    @ParameterizedTest
    @EnumSource(ValueEncoding.class)
    void roundingShouldLeaveAnExactResidualAndSurviveBeingResentInChunks(ValueEncoding encoding) {
        Random random = new Random(14);
        for (float[] v : frames()) {
            float[] rounded = v.clone();
            encoding.round(rounded, 0, rounded.length);
            for (int i = 0; i < v.length; i++) {
                float residual = v[i] - rounded[i];
                assertEquals((double) v[i] - rounded[i], residual, 0.0, "x − round(x) of " + v[i]);
            }
            for (int c = 0; c < 5; c++) {
                int from = random.nextInt(v.length);
                int to = from + random.nextInt(v.length - from + 1);
                float[] chunk = FloatFrames.read(FrameCodec.decode(FloatFrames.encode(rounded, from, to,
                        TrafficKind.VALUES, Stage.FULL, 0, encoding)), to - from);
                float[] again = FloatFrames.read(FrameCodec.decode(FloatFrames.encode(chunk, 0, chunk.length,
                        TrafficKind.VALUES, Stage.FULL, 0, encoding)), chunk.length);
                for (int i = from; i < to; i++) {
                    assertEquals(Float.floatToRawIntBits(rounded[i]), Float.floatToRawIntBits(chunk[i - from]),
                            encoding + " chunk [" + from + ", " + to + "), element " + i);
                    assertEquals(Float.floatToRawIntBits(rounded[i]), Float.floatToRawIntBits(again[i - from]));
                }
            }
        }
    }

    @Test
    void nothingShouldOverflowAtTheTopOfFloat32sRange() {
        float[] huge = {Float.MAX_VALUE, -Float.MAX_VALUE, 1e38f, 0x1p127f};
        float[] decoded = FloatFrames.read(FrameCodec.decode(FloatFrames.encode(huge, 0, huge.length,
                TrafficKind.VALUES, Stage.FULL, 0, FP16)), huge.length);
        assertEquals(ValueEncoding.FP16_MAX_EXPONENT, FP16.exponentOf(huge, 0, huge.length));
        assertEquals((0x1p15f - 16) * 0x1p113f, decoded[0], "rounded down to the largest the frame holds");
        assertEquals(-(0x1p15f - 16) * 0x1p113f, decoded[1]);
        assertEquals(0x1p127f, decoded[3]);
        assertEquals(ValueEncoding.bf16ToFloat(0x7F7F), BF16.round(Float.MAX_VALUE));
        assertTrue(Float.isFinite(FP16.round(Float.MAX_VALUE)));
    }

    @Test
    void halfPrecisionShouldRefuseNonFiniteValuesNamingThem() {
        float[] values = new float[20];
        values[17] = Float.NaN;
        IllegalArgumentException bf16 = assertThrows(IllegalArgumentException.class,
                () -> FloatFrames.encode(values, 0, values.length, TrafficKind.VALUES, Stage.TOP_K, 3, BF16));
        assertEquals("cannot encode NaN at position 17 of a VALUES frame of step 3 as bf16: half-precision frames"
                + " carry finite values only", bf16.getMessage());
        values[17] = 0;
        values[12] = Float.NEGATIVE_INFINITY;
        IllegalArgumentException fp16 = assertThrows(IllegalArgumentException.class,
                () -> FloatFrames.encode(values, 2, values.length, TrafficKind.LATENT, Stage.COMPRESSED, 8, FP16));
        assertEquals("cannot encode -Infinity at position 10 of a LATENT frame of step 8 as fp16: half-precision"
                + " frames carry finite values only", fp16.getMessage());
        // fp32 carries them as it always did (the trainer's own check stops a non-finite gradient before)
        float[] back = FloatFrames.read(FrameCodec.decode(FloatFrames.encode(values, 0, values.length,
                TrafficKind.VALUES, Stage.TOP_K, 3)), values.length);
        assertEquals(Float.NEGATIVE_INFINITY, back[12]);
    }

    @Test
    void shouldWriteTheEncodingInTheFlagsAndRejectAWrongLengthNamingIt() {
        Frame fp16 = FrameCodec.decode(FloatFrames.encode(new float[5], 0, 5, TrafficKind.VALUES, Stage.TOP_K, 7,
                FP16));
        assertEquals(1, fp16.flags());
        assertEquals("expected 3 fp16 values (8 bytes with the scale) in a VALUES frame of step 7, found 12 bytes",
                assertThrows(FrameException.class, () -> FloatFrames.read(fp16, 3)).getMessage());
        assertEquals(5, FloatFrames.count(fp16));
        Frame bf16 = FrameCodec.decode(new Values(new float[4]).encode(PayloadGoldenTest.TAG.withValues(BF16)));
        assertEquals(2, bf16.flags());
        assertEquals("expected 3 bf16 values (6 bytes) in a VALUES frame of step 7, found 8 bytes",
                assertThrows(FrameException.class, () -> Values.decode(bf16, 3)).getMessage());
        Frame fp32 = FrameCodec.decode(new Values(new float[4]).encode(PayloadGoldenTest.TAG));
        assertEquals(0, fp32.flags());
        assertEquals(4, FloatFrames.count(fp32));
        byte[] odd = FrameCodec.seal(FrameCodec.allocate(7), TrafficKind.VALUES, Stage.TOP_K, 7, 0, BF16.wireId());
        assertEquals("a VALUES frame of step 7 holds 7 bytes, not a whole number of bf16 values (2 bytes each)",
                assertThrows(FrameException.class, () -> FloatFrames.count(FrameCodec.decode(odd))).getMessage());
    }

    @Test
    void fp16DecoderShouldRejectAnExponentNoEncoderWrites() {
        ByteBuffer payload = FrameCodec.allocate(4);
        payload.putShort(0, (short) 200).putShort(2, (short) 0x3C00);
        Frame frame = FrameCodec.decode(FrameCodec.seal(payload, TrafficKind.VALUES, Stage.TOP_K, 7, 0,
                FP16.wireId()));
        assertEquals("fp16 scale exponent of a VALUES frame of step 7 out of range: expected -164..113, found 200",
                assertThrows(FrameException.class, () -> FloatFrames.read(frame, 1)).getMessage());
    }

    @Test
    void receiversShouldSumDecodedValuesInFloat32() {
        float[] sum = {1f, 1f};
        Frame frame = FrameCodec.decode(FloatFrames.encode(new float[] {0x1p-12f, 3f}, 0, 2, TrafficKind.VALUES,
                Stage.FULL, 0, FP16));
        FloatFrames.addInto(frame, sum, 0, 2);
        // 2^-12 is exact in the frame (exponent −13: 2^-12 · 2^13 = 2, a normal half) and 1 + 2^-12 in float32
        assertArrayEquals(new float[] {1f + 0x1p-12f, 4f}, sum);
    }

    @Test
    void shouldNameTheEncodingsAsConfigsDo() {
        assertEquals(List.of("fp32", "fp16", "bf16"), ValueEncoding.names());
        assertEquals(BF16, ValueEncoding.byName("bf16"));
        assertEquals("unknown value encoding 'fp8'; expected one of [fp32, fp16, bf16]",
                assertThrows(IllegalArgumentException.class, () -> ValueEncoding.byName("fp8")).getMessage());
        for (ValueEncoding e : ValueEncoding.values()) {
            assertEquals(e, ValueEncoding.ofFlags(e.wireId()));
            assertTrue(e.wireId() <= FrameDescriptor.FLAGS_MAX_VALUE_ENCODING);
        }
        assertEquals(4 * 3, FP32.payloadLength(3));
        assertEquals(2 + 2 * 3, FP16.payloadLength(3));
        assertEquals(2 * 3, BF16.payloadLength(3));
    }
}

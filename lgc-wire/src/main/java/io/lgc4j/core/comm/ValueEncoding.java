package io.lgc4j.core.comm;


import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.ShortBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * How the values of a float payload travel: fp32, fp16 (IEEE binary16 with a per-frame power-of-two scale) or bf16.
 * The sender chooses ({@link io.lgc4j.core.comm.StepTag#values()}, {@code compressor.values}) and the choice travels
 * in the frame header's flags ({@link FrameDescriptor#FLAGS_VALUE_ENCODING_MASK}); receivers decode to float32 and
 * sum in float32. Layouts: fp32 {@code 4·n} bytes; bf16 {@code 2·n} bytes; fp16 an int16 scale exponent e, then
 * {@code n} binary16 values {@code h_i} with value {@code h_i · 2^e}.
 *
 * <p>Both half formats round to nearest, ties to even, and never overflow. {@link #round(float[], int, int)} and
 * {@link #round(float, int)} give exactly what a receiver decodes, so a compressor with memory can keep
 * {@code x − round(x)} (exact in float32); values rounded as one frame travel unchanged in any frame holding a part
 * of them. Non-finite values are refused by the half formats ({@link #write}); fp32 carries them.
 *
 * <pre>{@code
 * ValueEncoding.byName("fp16").round(sent, 0, sent.length);   // what the receiver of one frame will decode
 * }</pre>
 */
public enum ValueEncoding {
    /** IEEE binary32: the values as they are. */
    FP32(0, Float.BYTES, 0),
    /** IEEE binary16 with a power-of-two scale per frame (a 2-byte exponent before the values). */
    FP16(1, Short.BYTES, Short.BYTES),
    /** bfloat16: float32's sign, exponent and top 7 fraction bits. */
    BF16(2, Short.BYTES, 0);

    /** fp16's scale exponent of an all-zero frame. */
    public static final int FP16_ZERO_EXPONENT = 0;
    /** Smallest fp16 scale exponent: ⌈log2 2^-149⌉ − 15, a frame whose largest value is float32's smallest. */
    public static final int FP16_MIN_EXPONENT = -149 - 15;
    /** Largest fp16 scale exponent: ⌈log2 M⌉ − 15 for M just below 2^128. */
    public static final int FP16_MAX_EXPONENT = 128 - 15;
    /** Offset of fp16's scale exponent in the payload. */
    public static final int FP16_EXPONENT_OFFSET = 0;

    /** binary16 2^15: exponent field 30, fraction 0. */
    private static final int HALF_TWO_TO_15 = 0x7800;
    /** binary16 2^15 − 16, the value below 2^15. */
    private static final int HALF_BELOW_TWO_TO_15 = 0x77FF;
    /** bfloat16's largest finite value, (2 − 2^-7)·2^127. */
    private static final int BF16_MAX = 0x7F7F;

    private final int wireId;
    private final int valueSize;
    private final int headerLength;

    ValueEncoding(int wireId, int valueSize, int headerLength) {
        this.wireId = wireId;
        this.valueSize = valueSize;
        this.headerLength = headerLength;
    }

    /** The encoding's value in bits 0–1 of a frame's flags byte. */
    public int wireId() {
        return wireId;
    }

    /** Bytes per value on the wire. */
    public int valueSize() {
        return valueSize;
    }

    /** Bytes before the values (fp16's scale exponent; none otherwise). */
    public int headerLength() {
        return headerLength;
    }

    /** Payload bytes of {@code count} values. */
    public int payloadLength(int count) {
        return Math.addExact(headerLength, Math.multiplyExact(valueSize, count));
    }

    /** Its name in configs and messages: {@code fp32}, {@code fp16}, {@code bf16}. */
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The names {@link #byName} accepts, in declaration order. */
    public static List<String> names() {
        return Arrays.stream(values()).map(ValueEncoding::toString).toList();
    }

    /**
     * The encoding called {@code name} ({@code fp32}, {@code fp16}, {@code bf16}).
     *
     * @throws IllegalArgumentException naming the allowed names
     */
    public static ValueEncoding byName(String name) {
        for (ValueEncoding e : values()) {
            if (e.toString().equals(name)) {
                return e;
            }
        }
        throw new IllegalArgumentException("unknown value encoding '" + name + "'; expected one of " + names());
    }

    /**
     * The encoding a flags byte names in bits 0–1 (the frame decoder has rejected any other flags already).
     *
     * @throws IllegalArgumentException for the reserved value 3
     */
    public static ValueEncoding ofFlags(int flags) {
        int id = flags & FrameDescriptor.FLAGS_VALUE_ENCODING_MASK;
        for (ValueEncoding e : values()) {
            if (e.wireId == id) {
                return e;
            }
        }
        throw new IllegalArgumentException("value encoding " + id + " is reserved");
    }

    /** The encoding of a received frame's values, from its flags. */
    public static ValueEncoding of(Frame frame) {
        return ofFlags(frame.flags());
    }

    // ---------------------------------------------------------------------------------------------------------------
    // rounding: what a receiver decodes

    /**
     * The scale exponent of a frame whose largest finite magnitude is {@code maxAbs}: fp16's ⌈log2 maxAbs⌉ − 15 (0
     * when it is 0); 0 for the encodings without a scale.
     */
    public int exponentFor(float maxAbs) {
        if (this != FP16 || !(maxAbs > 0) || !Float.isFinite(maxAbs)) {
            return FP16_ZERO_EXPONENT;
        }
        return ceilLog2(maxAbs) - 15;
    }

    /** The scale exponent of a frame carrying {@code values[from, to)} ({@link #exponentFor}). */
    public int exponentOf(float[] values, int from, int to) {
        return this == FP16 ? exponentFor(maxAbs(values, from, to)) : FP16_ZERO_EXPONENT;
    }

    /** The largest finite magnitude of {@code values[from, to)}, 0 when there is none. */
    public static float maxAbs(float[] values, int from, int to) {
        float max = 0f;
        for (int i = from; i < to; i++) {
            float a = Math.abs(values[i]);
            if (a > max && a != Float.POSITIVE_INFINITY) {
                max = a;
            }
        }
        return max;
    }

    /**
     * The value a receiver decodes for {@code x} in a frame of scale exponent {@code exponent} (only fp16 reads it).
     * Non-finite values come back as they are (they are refused when written).
     */
    public float round(float x, int exponent) {
        return switch (this) {
            case FP32 -> x;
            case BF16 -> Float.isFinite(x) ? bf16ToFloat(floatToBf16(x)) : x;
            case FP16 -> Float.isFinite(x) ? fromHalf(toScaledHalf(x, exponent, Math.scalb(1.0, -exponent)),
                    Math.scalb(1.0, exponent)) : x;
        };
    }

    /** The value a receiver decodes for {@code x} sent alone in a frame. */
    public float round(float x) {
        return round(x, exponentFor(Math.abs(x)));
    }

    /** Rounds {@code values[from, to)} in place to what a receiver of one frame of them decodes. */
    public void round(float[] values, int from, int to) {
        if (this == FP32) {
            return;
        }
        if (this == BF16) {
            for (int i = from; i < to; i++) {
                values[i] = round(values[i], 0);
            }
            return;
        }
        int e = exponentOf(values, from, to);
        double down = Math.scalb(1.0, -e);
        double up = Math.scalb(1.0, e);
        for (int i = from; i < to; i++) {
            if (Float.isFinite(values[i])) {
                values[i] = fromHalf(toScaledHalf(values[i], e, down), up);
            }
        }
    }

    private static int ceilLog2(float positive) {
        int bits = Float.floatToRawIntBits(positive);
        int exponent = bits >>> 23;
        int fraction = bits & 0x7FFFFF;
        if (exponent == 0) { // subnormal: fraction · 2^-149
            return -149 + (Integer.SIZE - Integer.numberOfLeadingZeros(fraction - 1));
        }
        return exponent - 127 + (fraction == 0 ? 0 : 1);
    }

    /**
     * x · 2^-e as binary16 bits ({@code down} = 2^-e); the scaling is exact in double, and the one rounding is
     * binary16's (see below).
     */
    private static int toScaledHalf(float x, int exponent, double down) {
        // the cast to float rounds only when |x·2^-e| < 2^-126, far below binary16's smallest subnormal half (2^-25):
        // there both the exact and the cast value round to a signed zero, so the result is binary16's rounding of
        // x·2^-e itself
        int h = floatToHalf((float) (x * down));
        if (exponent == FP16_MAX_EXPONENT && (h & 0x7FFF) == HALF_TWO_TO_15) {
            h = (h & 0x8000) | HALF_BELOW_TWO_TO_15; // 2^15·2^113 is infinite in float32: round down instead
        }
        return h;
    }

    /** h · 2^e as float32 ({@code up} = 2^e): exact in double; the cast rounds once, only to a float32 subnormal. */
    private static float fromHalf(int h, double up) {
        return (float) (halfToFloat(h) * up);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // the wire

    /**
     * Writes {@code values[from, to)} in this encoding at {@code payload}'s position (fp16: its exponent first),
     * little-endian; the buffer's position ends after the last value.
     *
     * @param kind what the frame carries, for the message
     * @param step the frame's step, for the message
     * @throws IllegalArgumentException when a half encoding meets a NaN or an infinity, naming it, its position in the
     *                                  frame, the frame and the encoding
     */
    public void write(ByteBuffer payload, float[] values, int from, int to, TrafficKind kind, int step) {
        ByteBuffer out = payload.order(ByteOrder.LITTLE_ENDIAN);
        if (this == FP32) {
            int start = out.position();
            out.asFloatBuffer().put(values, from, to - from);
            out.position(start + FP32.payloadLength(to - from));
            return;
        }
        for (int i = from; i < to; i++) {
            if (!Float.isFinite(values[i])) {
                throw new IllegalArgumentException("cannot encode " + values[i] + " at position " + (i - from)
                        + " of a " + kind + " frame of step " + step + " as " + this
                        + ": half-precision frames carry finite values only");
            }
        }
        if (this == BF16) {
            for (int i = from; i < to; i++) {
                out.putShort((short) floatToBf16(values[i]));
            }
            return;
        }
        int e = exponentOf(values, from, to);
        double down = Math.scalb(1.0, -e);
        out.putShort((short) e);
        for (int i = from; i < to; i++) {
            out.putShort((short) toScaledHalf(values[i], e, down));
        }
    }

    /**
     * Reads {@code to − from} values in this encoding from {@code payload} (at its position, which does not move)
     * into {@code dst[from, to)}, copying them or, with {@code add}, adding them element by element. The caller has
     * checked the payload's length.
     *
     * @throws FrameException when fp16's exponent is out of range
     */
    public void read(ByteBuffer payload, float[] dst, int from, int to, boolean add, Frame frame) {
        ByteBuffer in = payload.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        if (this == FP32) {
            FloatBuffer floats = in.asFloatBuffer();
            if (!add) {
                floats.get(dst, from, to - from);
                return;
            }
            // bulk reads into a scratch array and adds from there: a loop over two arrays the JIT vectorizes, where
            // reading a (direct) buffer one float at a time does not; element by element the same additions
            float[] block = FLOAT_SCRATCH.get();
            for (int at = from; at < to; ) {
                int n = Math.min(block.length, to - at);
                floats.get(block, 0, n);
                for (int k = 0; k < n; k++) {
                    dst[at + k] += block[k];
                }
                at += n;
            }
            return;
        }
        double scale = 1.0;
        if (this == FP16) {
            int e = in.getShort(in.position() + FP16_EXPONENT_OFFSET);
            if (e < FP16_MIN_EXPONENT || e > FP16_MAX_EXPONENT) {
                throw new FrameException("fp16 scale exponent of a " + frame.kind() + " frame of step " + frame.step()
                        + " out of range: expected " + FP16_MIN_EXPONENT + ".." + FP16_MAX_EXPONENT + ", found " + e);
            }
            scale = Math.scalb(1.0, e);
            in.position(in.position() + headerLength);
        }
        ShortBuffer halves = in.asShortBuffer();
        short[] block = HALF_SCRATCH.get();
        for (int at = from; at < to; ) {
            int n = Math.min(block.length, to - at);
            halves.get(block, 0, n);
            for (int k = 0; k < n; k++) {
                float v = this == BF16 ? bf16ToFloat(block[k]) : fromHalf(block[k], scale);
                if (add) {
                    dst[at + k] += v;
                } else {
                    dst[at + k] = v;
                }
            }
            at += n;
        }
    }

    /** Scratch of {@link #read}: 4 KB, in the first-level cache. */
    private static final ThreadLocal<float[]> FLOAT_SCRATCH = ThreadLocal.withInitial(() -> new float[1024]);
    private static final ThreadLocal<short[]> HALF_SCRATCH = ThreadLocal.withInitial(() -> new short[2048]);

    // ---------------------------------------------------------------------------------------------------------------
    // conversions (Float.floatToFloat16 and Float.float16ToFloat arrive with Java 20)

    /**
     * {@code f} as IEEE binary16 bits, rounded to nearest, ties to even: subnormals kept, magnitudes from 65520 on
     * become infinities, NaN stays a (quiet) NaN.
     */
    public static int floatToHalf(float f) {
        int bits = Float.floatToRawIntBits(f);
        int sign = (bits >>> 16) & 0x8000;
        int abs = bits & 0x7FFFFFFF;
        if (abs >= 0x7F800000) { // infinity or NaN
            return sign | (abs == 0x7F800000 ? 0x7C00 : 0x7E00 | ((abs >>> 13) & 0x3FF));
        }
        if (abs >= 0x477FF000) { // 65520 = 65504 + half an ulp: the tie goes to the even 65536, i.e. infinity
            return sign | 0x7C00;
        }
        if (abs >= 0x38800000) { // 2^-14 and up: normal; round the 13 dropped fraction bits, then rebias 127 → 15
            int rounded = abs + 0xFFF + ((abs >>> 13) & 1);
            return sign | ((rounded - (112 << 23)) >>> 13);
        }
        if (abs <= 0x33000000) { // at most 2^-25, half the smallest subnormal: the tie goes to the even zero
            return sign;
        }
        int exponent = abs >>> 23; // 102..112: a binary16 subnormal (or 2^-14 after rounding up)
        int significand = (abs & 0x7FFFFF) | 0x800000;
        int shift = 126 - exponent; // significand · 2^(exponent − 150) in units of 2^-24
        int q = significand >>> shift;
        int rest = significand & ((1 << shift) - 1);
        int half = 1 << (shift - 1);
        if (rest > half || (rest == half && (q & 1) == 1)) {
            q++;
        }
        return sign | q;
    }

    /** The float32 value of binary16 bits {@code h} (the low 16 bits are read); exact. */
    public static float halfToFloat(int h) {
        int sign = (h & 0x8000) << 16;
        int exponent = (h >>> 10) & 0x1F;
        int fraction = h & 0x3FF;
        if (exponent == 0) {
            float magnitude = fraction * 0x1p-24f; // subnormal (or zero): exact
            return sign == 0 ? magnitude : -magnitude;
        }
        if (exponent == 0x1F) {
            return Float.intBitsToFloat(sign | 0x7F800000 | (fraction << 13));
        }
        return Float.intBitsToFloat(sign | ((exponent + 112) << 23) | (fraction << 13));
    }

    /**
     * {@code f} as bfloat16 bits (the upper half of its float32 bits), rounded to nearest, ties to even; a finite
     * value that would round to infinity becomes bfloat16's largest finite value of its sign.
     */
    public static int floatToBf16(float f) {
        int bits = Float.floatToRawIntBits(f);
        if ((bits & 0x7F800000) == 0x7F800000) { // infinity or NaN: kept (NaN made quiet)
            return (bits >>> 16) | ((bits & 0x7FFFFF) != 0 ? 0x40 : 0);
        }
        int rounded = (bits + 0x7FFF + ((bits >>> 16) & 1)) >>> 16;
        if ((rounded & 0x7F80) == 0x7F80) {
            rounded = (bits >>> 16 & 0x8000) | BF16_MAX;
        }
        return rounded & 0xFFFF;
    }

    /** The float32 value of bfloat16 bits {@code b} (the low 16 bits are read); exact. */
    public static float bf16ToFloat(int b) {
        return Float.intBitsToFloat((b & 0xFFFF) << 16);
    }

    /** "floats" for fp32 (as LGC4J always said), "fp16 values" and "bf16 values" otherwise: for error messages. */
    public String valuesName() {
        return this == FP32 ? "floats" : this + " values";
    }

    /** "12 bytes", and for fp16 "8 bytes with the scale": for error messages. */
    public String bytesName(int bytes) {
        return bytes + " bytes" + (headerLength() > 0 ? " with the scale" : "");
    }
}

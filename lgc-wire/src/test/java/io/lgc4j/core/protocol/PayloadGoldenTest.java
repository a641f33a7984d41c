package io.lgc4j.core.protocol;

import io.lgc4j.core.codec.IndexCodec;
import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.StepTag;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.lgc4j.core.protocol.GoldenPayloads.golden;
import static io.lgc4j.core.protocol.GoldenPayloads.inflatedBlocks;
import static io.lgc4j.core.protocol.GoldenPayloads.le;
import static io.lgc4j.core.protocol.GoldenPayloads.payload;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every payload layout of the core protocol pinned by a golden file: {@code src/test/resources/golden/payload-*.hex},
 * the payload bytes (without the frame header, pinned by {@code frame-v2-values.hex}) of one small message of each
 * kind. Each file is compared with what this build writes, and read back into the values it was written from. LGC's
 * payloads have theirs in the {@code lgc} module ({@code LgcPayloadGoldenTest}).
 *
 * <p>The float payloads are pinned in each value encoding: fp32 (the layout before half precision, byte for byte),
 * fp16 ({@code *-fp16.hex}: the scale exponent, then binary16 values) and bf16 ({@code *-bf16.hex}); a frame carries
 * its encoding in the header's flags, pinned by {@code frame-v2-values-fp16.hex}.
 *
 * <p>The support ({@code *-deflate.hex}) holds index-codec bytes: it is compared by its structure and its inflated
 * content, byte for byte: the DEFLATE bits themselves may differ between zlib builds without the format changing
 * (as in {@code IndexCodecGoldenTest}). Rewrite the files with {@link #main}, by hand, only when a layout changes on
 * purpose (and bump {@link io.lgc4j.core.comm.FrameDescriptor#VERSION}).
 */
class PayloadGoldenTest {
    static final StepTag TAG = new StepTag(7, Stage.COMPRESSED);
    static final IndexCodec CODEC = IndexCodecs.defaultCodec();
    static final List<ParamBlock> BLOCKS = List.of(
            new ParamBlock(0, 1, "fc", "W", 0, 1000, new long[] {1000}, LayerPolicy.LEARNED),
            new ParamBlock(1, 2, "out", "W", 1000, 100, new long[] {100}, LayerPolicy.TOP_K));

    static final float[] VALUES = {1.0f, -2.5f, 0.125f, -0.0f};
    static final int[][] SUPPORT = {{3, 500, 999}, {7}};
    static final float[] COUNTERS = {1.5f, -2.0f, 0.0f, 4.0f};
    static final long[] BITMAP = {0x8000000000000001L, 0xF0L};

    static final String VALUES_FILE = "payload-values.hex";
    static final String SUPPORT_FILE = "payload-support-deflate.hex";
    static final String COUNTERS_FILE = "payload-sketch-counters.hex";
    static final String BITMAP_FILE = "payload-sketch-bitmap.hex";
    static final String VALUES_FP16_FILE = "payload-values-fp16.hex";
    static final String VALUES_BF16_FILE = "payload-values-bf16.hex";

    /** Each golden file's name and the payload this build writes for it, in a fixed order. */
    static Map<String, byte[]> payloads() {
        Map<String, byte[]> p = new LinkedHashMap<>();
        p.put(VALUES_FILE, payload(new Values(VALUES).encode(TAG)));
        p.put(SUPPORT_FILE, payload(new Support(SUPPORT).encode(BLOCKS, CODEC, TAG)));
        byte[][] sketch = new SketchPayload(new Sketch(COUNTERS, BITMAP)).encode(TAG);
        p.put(COUNTERS_FILE, payload(sketch[0]));
        p.put(BITMAP_FILE, payload(sketch[1]));
        p.put(VALUES_FP16_FILE, payload(new Values(VALUES).encode(TAG.withValues(ValueEncoding.FP16))));
        p.put(VALUES_BF16_FILE, payload(new Values(VALUES).encode(TAG.withValues(ValueEncoding.BF16))));
        return p;
    }

    /** Rewrites every golden file from {@link #payloads()}; run by hand, from {@code lgc-core}, never by a test. */
    public static void main(String[] args) throws IOException {
        GoldenPayloads.write(payloads());
    }

    static List<String> names() {
        return new ArrayList<>(payloads().keySet());
    }

    @ParameterizedTest
    @MethodSource("names")
    void shouldWriteEachPayloadAsItsGoldenFile(String name) {
        byte[] golden = golden(name);
        byte[] written = payloads().get(name);
        if (name.equals(SUPPORT_FILE)) {
            assertEquals(inflatedBlocks(golden), inflatedBlocks(written), name);
        } else {
            GoldenPayloads.assertGolden(name, written);
        }
    }

    @Test
    void shouldReadTheGoldenValues() {
        assertArrayEquals(VALUES, Values.decode(frame(VALUES_FILE, Values.KIND), VALUES.length).values());
        assertEquals(Float.floatToRawIntBits(-0.0f), Float.floatToRawIntBits(Values.decode(
                frame(VALUES_FILE, Values.KIND), VALUES.length).values()[3]), "the sign of -0 travels");
    }

    /**
     * The same four values in fp16 (max 2.5: exponent −13, F3 FF; then 8192, −20480, 1024 and −0 in binary16) and in
     * bf16 (3F80, C020, 3E00, 8000): exact, since each value has few significant bits.
     */
    @Test
    void shouldReadTheGoldenHalfPrecisionValues() {
        assertEquals("f3ff007000f500640080", HexFormat.of().formatHex(golden(VALUES_FP16_FILE)));
        assertEquals("803f20c0003e0080", HexFormat.of().formatHex(golden(VALUES_BF16_FILE)));
        for (String file : List.of(VALUES_FP16_FILE, VALUES_BF16_FILE)) {
            ValueEncoding encoding = file.equals(VALUES_FP16_FILE) ? ValueEncoding.FP16 : ValueEncoding.BF16;
            float[] read = Values.decode(GoldenPayloads.frame(file, Values.KIND, TAG, encoding), VALUES.length)
                    .values();
            assertArrayEquals(VALUES, read, file);
            assertEquals(Float.floatToRawIntBits(-0.0f), Float.floatToRawIntBits(read[3]), "the sign of -0 travels");
        }
    }

    @Test
    void shouldReadTheGoldenSupport() {
        int[][] read = Support.decode(frame(SUPPORT_FILE, Support.KIND), BLOCKS, CODEC, new int[] {3, 1}).indices();
        assertArrayEquals(SUPPORT, read);
    }

    @Test
    void shouldReadTheGoldenSketch() {
        Sketch sketch = SketchPayload.decode(frame(COUNTERS_FILE, SketchPayload.COUNTERS_KIND),
                frame(BITMAP_FILE, SketchPayload.BITMAP_KIND), COUNTERS.length, BITMAP.length).sketch();
        assertArrayEquals(COUNTERS, sketch.counters());
        assertArrayEquals(BITMAP, sketch.bitmap());
    }

    /** The named offsets and sizes of each layout class, read against the golden bytes. */
    @Test
    void shouldLayEveryFieldAtItsNamedOffset() {
        ByteBuffer values = le(golden(VALUES_FILE));
        assertEquals(FloatFrames.payloadLength(VALUES.length), values.capacity());
        assertEquals(-2.5f, values.getFloat(FloatFrames.VALUES_OFFSET + FloatFrames.VALUE_SIZE));

        ByteBuffer support = le(golden(SUPPORT_FILE));
        int first = support.getInt(SparseFrames.BLOCK_LENGTH_OFFSET);
        int second = SparseFrames.BLOCK_CODED_OFFSET + first;
        assertEquals(support.capacity(), second + SparseFrames.BLOCK_CODED_OFFSET + support.getInt(second));
        assertEquals(0x78, support.get(SparseFrames.BLOCK_CODED_OFFSET) & 0xFF, "a zlib stream starts block 0");

        ByteBuffer bitmap = le(golden(BITMAP_FILE));
        assertEquals(SketchFrames.wordsLength(BITMAP.length), bitmap.capacity());
        assertEquals(0xF0L, bitmap.getLong(SketchFrames.WORDS_OFFSET + SketchFrames.WORD_SIZE));

        ByteBuffer fp16 = le(golden(VALUES_FP16_FILE));
        assertEquals(FloatFrames.payloadLength(ValueEncoding.FP16, VALUES.length), fp16.capacity());
        assertEquals(-13, fp16.getShort(ValueEncoding.FP16_EXPONENT_OFFSET));
        assertEquals((short) 0xF500, fp16.getShort(ValueEncoding.FP16.headerLength() + ValueEncoding.FP16.valueSize()));
        assertEquals(FloatFrames.payloadLength(ValueEncoding.BF16, VALUES.length), golden(VALUES_BF16_FILE).length);
    }

    private static Frame frame(String name, TrafficKind kind) {
        return GoldenPayloads.frame(name, kind, TAG);
    }
}

package io.lgc4j.core.protocol;

import io.lgc4j.core.codec.IndexCodec;
import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.comm.StepTag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every payload layout of the protocol pinned by a golden file: {@code src/test/resources/golden/payload-*.hex}, the
 * payload bytes (without the frame header, pinned by {@code frame-v2-values.hex}) of one small message of each kind.
 * Each file is compared with what this build writes, and read back into the values it was written from.
 *
 * <p>The float payloads are pinned in each value encoding: fp32 (the layout before half precision, byte for byte),
 * fp16 ({@code *-fp16.hex}: the scale exponent, then binary16 values) and bf16 ({@code *-bf16.hex}); a frame carries
 * its encoding in the header's flags, pinned by {@code frame-v2-values-fp16.hex}.
 *
 * <p>Payloads that hold index-codec bytes ({@code *-deflate.hex}) are compared by their structure and their inflated
 * content, byte for byte: the DEFLATE bits themselves may differ between zlib builds without the format changing
 * (as in {@code IndexCodecGoldenTest}). Rewrite the files with {@link #generateGoldenFiles()}, by hand, only when a
 * layout changes on purpose (and bump {@link io.lgc4j.core.comm.FrameDescriptor#VERSION}).
 */
class PayloadGoldenTest {
    private static final Path DIRECTORY = Path.of("src/test/resources/golden");

    static final StepTag TAG = new StepTag(7, Stage.COMPRESSED);
    static final IndexCodec CODEC = IndexCodecs.defaultCodec();
    static final List<ParamBlock> BLOCKS = List.of(
            new ParamBlock(0, 1, "fc", "W", 0, 1000, new long[] {1000}, LayerPolicy.LEARNED),
            new ParamBlock(1, 2, "out", "W", 1000, 100, new long[] {100}, LayerPolicy.TOP_K));

    static final float[] VALUES = {1.0f, -2.5f, 0.125f, -0.0f};
    static final int[][] SUPPORT = {{3, 500, 999}, {7}};
    static final float[] LATENT = {0.5f, -1.0f, 2.0f};
    static final float SCALE = 0.25f;
    static final int MU = 12;
    static final int[] POSITIONS = {1, 4, 9};
    static final float[] INNOVATION_VALUES = {0.75f, -3.0f, 1.0e-3f};
    static final float[] COUNTERS = {1.5f, -2.0f, 0.0f, 4.0f};
    static final long[] BITMAP = {0x8000000000000001L, 0xF0L};
    static final float[] SAMPLE = {0.25f, -0.75f, 3.0f};

    static final String VALUES_FILE = "payload-values.hex";
    static final String SUPPORT_FILE = "payload-support-deflate.hex";
    static final String CODE_FILE = "payload-code.hex";
    static final String SCALE_FILE = "payload-code-scale-only.hex";
    static final String POSITIONS_FILE = "payload-innovation-positions-deflate.hex";
    static final String INNOVATION_VALUES_FILE = "payload-innovation-values.hex";
    static final String COUNTERS_FILE = "payload-sketch-counters.hex";
    static final String BITMAP_FILE = "payload-sketch-bitmap.hex";
    static final String FLAG_FILE = "payload-flag.hex";
    static final String SAMPLE_FILE = "payload-sample.hex";
    static final String VALUES_FP16_FILE = "payload-values-fp16.hex";
    static final String VALUES_BF16_FILE = "payload-values-bf16.hex";
    static final String CODE_FP16_FILE = "payload-code-fp16.hex";

    private static final Set<String> DEFLATED = Set.of(SUPPORT_FILE, POSITIONS_FILE);

    /** Each golden file's name and the payload this build writes for it, in a fixed order. */
    static Map<String, byte[]> payloads() {
        Map<String, byte[]> p = new LinkedHashMap<>();
        p.put(VALUES_FILE, payload(new Values(VALUES).encode(TAG)));
        p.put(SUPPORT_FILE, payload(new Support(SUPPORT).encode(BLOCKS, CODEC, TAG)));
        p.put(CODE_FILE, payload(new Code(LATENT, SCALE).encode(TAG)));
        p.put(SCALE_FILE, payload(Code.scaleOnly(SCALE).encode(TAG)));
        byte[][] innovation = new Innovation(POSITIONS, INNOVATION_VALUES).encode(MU, CODEC, TAG);
        p.put(POSITIONS_FILE, payload(innovation[0]));
        p.put(INNOVATION_VALUES_FILE, payload(innovation[1]));
        byte[][] sketch = new SketchPayload(new Sketch(COUNTERS, BITMAP)).encode(TAG);
        p.put(COUNTERS_FILE, payload(sketch[0]));
        p.put(BITMAP_FILE, payload(sketch[1]));
        p.put(FLAG_FILE, payload(new Flag(true).encode(TAG)));
        p.put(SAMPLE_FILE, payload(new Sample(SAMPLE).encode(TAG)));
        p.put(VALUES_FP16_FILE, payload(new Values(VALUES).encode(TAG.withValues(ValueEncoding.FP16))));
        p.put(VALUES_BF16_FILE, payload(new Values(VALUES).encode(TAG.withValues(ValueEncoding.BF16))));
        p.put(CODE_FP16_FILE, payload(new Code(LATENT, SCALE).encode(TAG.withValues(ValueEncoding.FP16))));
        return p;
    }

    /**
     * Rewrites every golden file from {@link #payloads()}. Run by hand, from {@code lgc-core}, only when a payload
     * layout changes on purpose; never called by a test.
     */
    static void generateGoldenFiles() throws IOException {
        Files.createDirectories(DIRECTORY);
        for (Map.Entry<String, byte[]> e : payloads().entrySet()) {
            Files.writeString(DIRECTORY.resolve(e.getKey()), HexFormat.of().formatHex(e.getValue()) + "\n",
                    StandardCharsets.US_ASCII);
        }
    }

    /** Entry point for {@link #generateGoldenFiles()}. */
    public static void main(String[] args) throws IOException {
        generateGoldenFiles();
    }

    static List<String> names() {
        return new ArrayList<>(payloads().keySet());
    }

    @ParameterizedTest
    @MethodSource("names")
    void shouldWriteEachPayloadAsItsGoldenFile(String name) {
        byte[] golden = golden(name);
        byte[] written = payloads().get(name);
        if (!DEFLATED.contains(name)) {
            assertEquals(HexFormat.of().formatHex(golden), HexFormat.of().formatHex(written), name);
        } else if (name.equals(SUPPORT_FILE)) {
            assertEquals(inflatedBlocks(golden), inflatedBlocks(written), name);
        } else {
            assertEquals(inflated(golden), inflated(written), name);
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
    void shouldReadTheGoldenHalfPrecisionValuesAndLatent() {
        assertEquals("f3ff007000f500640080", HexFormat.of().formatHex(golden(VALUES_FP16_FILE)));
        assertEquals("803f20c0003e0080", HexFormat.of().formatHex(golden(VALUES_BF16_FILE)));
        for (String file : List.of(VALUES_FP16_FILE, VALUES_BF16_FILE)) {
            ValueEncoding encoding = file.equals(VALUES_FP16_FILE) ? ValueEncoding.FP16 : ValueEncoding.BF16;
            float[] read = Values.decode(frame(file, Values.KIND, encoding), VALUES.length).values();
            assertArrayEquals(VALUES, read, file);
            assertEquals(Float.floatToRawIntBits(-0.0f), Float.floatToRawIntBits(read[3]), "the sign of -0 travels");
        }
        Code code = Code.decode(frame(CODE_FP16_FILE, Code.KIND, ValueEncoding.FP16), LATENT.length);
        assertArrayEquals(LATENT, code.latent());
        assertEquals(SCALE, code.scale());
    }

    @Test
    void shouldReadTheGoldenSupport() {
        int[][] read = Support.decode(frame(SUPPORT_FILE, Support.KIND), BLOCKS, CODEC, new int[] {3, 1}).indices();
        assertArrayEquals(SUPPORT, read);
    }

    @Test
    void shouldReadTheGoldenCodeAndTheRingsScale() {
        Code code = Code.decode(frame(CODE_FILE, Code.KIND), LATENT.length);
        assertArrayEquals(LATENT, code.latent());
        assertEquals(SCALE, code.scale());
        Code scaleOnly = Code.decode(frame(SCALE_FILE, Code.KIND), 0);
        assertEquals(0, scaleOnly.latent().length);
        assertEquals(SCALE, scaleOnly.scale());
    }

    @Test
    void shouldReadTheGoldenInnovation() {
        Innovation innovation = Innovation.decode(frame(POSITIONS_FILE, Innovation.KIND),
                frame(INNOVATION_VALUES_FILE, Innovation.KIND), CODEC, MU, POSITIONS.length);
        assertArrayEquals(POSITIONS, innovation.positions());
        assertArrayEquals(INNOVATION_VALUES, innovation.values());
        float[] vector = new float[MU];
        vector[1] = 0.75f;
        vector[4] = -3.0f;
        vector[9] = 1.0e-3f;
        assertArrayEquals(vector, innovation.toVector(MU));
    }

    @Test
    void shouldReadTheGoldenSketch() {
        Sketch sketch = SketchPayload.decode(frame(COUNTERS_FILE, SketchPayload.COUNTERS_KIND),
                frame(BITMAP_FILE, SketchPayload.BITMAP_KIND), COUNTERS.length, BITMAP.length).sketch();
        assertArrayEquals(COUNTERS, sketch.counters());
        assertArrayEquals(BITMAP, sketch.bitmap());
    }

    @Test
    void shouldReadTheGoldenFlagAndSample() {
        assertTrue(Flag.decode(frame(FLAG_FILE, Flag.KIND), "golden flag").value());
        assertArrayEquals(SAMPLE, Sample.decode(frame(SAMPLE_FILE, Sample.KIND), SAMPLE.length).values());
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

        ByteBuffer code = le(golden(CODE_FILE));
        assertEquals(LgcFrames.codeLength(LATENT.length), code.capacity());
        assertEquals(0.5f, code.getFloat(LgcFrames.LATENT_OFFSET));
        assertEquals(SCALE, code.getFloat(LgcFrames.scaleOffset(LATENT.length)));
        assertEquals(LgcFrames.SCALE_SIZE, golden(SCALE_FILE).length);

        assertEquals(0x78, golden(POSITIONS_FILE)[LgcFrames.POSITIONS_OFFSET] & 0xFF);
        assertEquals(FloatFrames.payloadLength(POSITIONS.length), golden(INNOVATION_VALUES_FILE).length);

        ByteBuffer bitmap = le(golden(BITMAP_FILE));
        assertEquals(SketchFrames.wordsLength(BITMAP.length), bitmap.capacity());
        assertEquals(0xF0L, bitmap.getLong(SketchFrames.WORDS_OFFSET + SketchFrames.WORD_SIZE));

        byte[] flag = golden(FLAG_FILE);
        assertEquals(FlagFrames.LENGTH, flag.length);
        assertEquals(FlagFrames.TRUE, flag[FlagFrames.FLAG_OFFSET]);

        assertEquals(FloatFrames.payloadLength(SAMPLE.length), golden(SAMPLE_FILE).length);

        ByteBuffer fp16 = le(golden(VALUES_FP16_FILE));
        assertEquals(FloatFrames.payloadLength(ValueEncoding.FP16, VALUES.length), fp16.capacity());
        assertEquals(-13, fp16.getShort(ValueEncoding.FP16_EXPONENT_OFFSET));
        assertEquals((short) 0xF500, fp16.getShort(ValueEncoding.FP16.headerLength() + ValueEncoding.FP16.valueSize()));
        assertEquals(FloatFrames.payloadLength(ValueEncoding.BF16, VALUES.length), golden(VALUES_BF16_FILE).length);
        ByteBuffer codeFp16 = le(golden(CODE_FP16_FILE));
        assertEquals(LgcFrames.codeLength(ValueEncoding.FP16, LATENT.length), codeFp16.capacity());
        assertEquals(SCALE, codeFp16.getFloat(LgcFrames.scaleOffset(ValueEncoding.FP16, LATENT.length)),
                "the scale stays float32, after the fp16 latent");
    }

    private static ByteBuffer le(byte[] bytes) {
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    static byte[] golden(String name) {
        try {
            return HexFormat.of().parseHex(Files.readString(DIRECTORY.resolve(name), StandardCharsets.US_ASCII)
                    .trim());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A golden payload in a frame of {@code kind}, decoded as a receiver gets it. */
    private static Frame frame(String name, TrafficKind kind) {
        return FrameCodec.decode(FrameCodec.encode(kind, TAG.stage(), TAG.step(), ByteBuffer.wrap(golden(name))));
    }

    /** A golden payload in a frame of {@code kind} whose flags name {@code encoding}, decoded. */
    private static Frame frame(String name, TrafficKind kind, ValueEncoding encoding) {
        byte[] bytes = golden(name);
        ByteBuffer payload = FrameCodec.allocate(bytes.length);
        payload.put(bytes);
        return FrameCodec.decode(FrameCodec.seal(payload, kind, TAG.stage(), TAG.step(), 0, encoding.wireId()));
    }

    private static byte[] payload(byte[] frame) {
        Frame f = FrameCodec.decode(frame);
        byte[] bytes = new byte[f.payloadLength()];
        f.payload().duplicate().get(bytes);
        return bytes;
    }

    /** A support payload as its block lengths' structure and each block's inflated codec content. */
    private static List<String> inflatedBlocks(byte[] support) {
        ByteBuffer in = le(support);
        List<String> blocks = new ArrayList<>();
        while (in.hasRemaining()) {
            byte[] coded = new byte[in.getInt()];
            in.get(coded);
            blocks.add(inflated(coded));
        }
        return blocks;
    }

    private static String inflated(byte[] zlib) {
        Inflater inflater = new Inflater();
        inflater.setInput(zlib);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[256];
        try {
            while (!inflater.finished()) {
                int n = inflater.inflate(buffer);
                if (n == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
                    throw new AssertionError("truncated zlib stream");
                }
                out.write(buffer, 0, n);
            }
        } catch (DataFormatException e) {
            throw new AssertionError("not a zlib stream: " + e.getMessage(), e);
        } finally {
            inflater.end();
        }
        return HexFormat.of().formatHex(out.toByteArray());
    }
}

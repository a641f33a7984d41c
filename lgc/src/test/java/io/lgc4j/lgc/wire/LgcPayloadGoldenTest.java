package io.lgc4j.lgc.wire;

import io.lgc4j.core.codec.IndexCodec;
import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.StepTag;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.protocol.FloatFrames;
import io.lgc4j.core.protocol.GoldenPayloads;
import io.lgc4j.core.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.lgc4j.core.protocol.GoldenPayloads.golden;
import static io.lgc4j.core.protocol.GoldenPayloads.inflated;
import static io.lgc4j.core.protocol.GoldenPayloads.le;
import static io.lgc4j.core.protocol.GoldenPayloads.payload;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every layout of LGC's messages pinned by a golden file ({@code src/test/resources/golden/payload-*.hex} of this
 * module: the payload bytes without the frame header), compared with what this build writes and read back: the code
 * (latent and scale, fp32 and fp16; the ring's scale alone), the innovation (DEFLATE positions, compared by their
 * inflated content, and values), the flag and the drift-guard sample. The weights' files are
 * {@code WeightsGoldenTest}'s. Rewrite with {@link #main}, by hand, only when a layout changes on purpose (and bump
 * {@link io.lgc4j.core.comm.FrameDescriptor#VERSION}).
 */
class LgcPayloadGoldenTest {
    static final StepTag TAG = new StepTag(7, Stage.COMPRESSED);
    static final IndexCodec CODEC = IndexCodecs.defaultCodec();

    static final float[] LATENT = {0.5f, -1.0f, 2.0f};
    static final float SCALE = 0.25f;
    static final int MU = 12;
    static final int[] POSITIONS = {1, 4, 9};
    static final float[] INNOVATION_VALUES = {0.75f, -3.0f, 1.0e-3f};
    static final float[] SAMPLE = {0.25f, -0.75f, 3.0f};

    static final String CODE_FILE = "payload-code.hex";
    static final String SCALE_FILE = "payload-code-scale-only.hex";
    static final String POSITIONS_FILE = "payload-innovation-positions-deflate.hex";
    static final String INNOVATION_VALUES_FILE = "payload-innovation-values.hex";
    static final String FLAG_FILE = "payload-flag.hex";
    static final String SAMPLE_FILE = "payload-sample.hex";
    static final String CODE_FP16_FILE = "payload-code-fp16.hex";

    /** Each golden file's name and the payload this build writes for it, in a fixed order. */
    static Map<String, byte[]> payloads() {
        Map<String, byte[]> p = new LinkedHashMap<>();
        p.put(CODE_FILE, payload(new Code(LATENT, SCALE).encode(TAG)));
        p.put(SCALE_FILE, payload(Code.scaleOnly(SCALE).encode(TAG)));
        byte[][] innovation = new Innovation(POSITIONS, INNOVATION_VALUES).encode(MU, CODEC, TAG);
        p.put(POSITIONS_FILE, payload(innovation[0]));
        p.put(INNOVATION_VALUES_FILE, payload(innovation[1]));
        p.put(FLAG_FILE, payload(new Flag(true).encode(TAG)));
        p.put(SAMPLE_FILE, payload(new Sample(SAMPLE).encode(TAG)));
        p.put(CODE_FP16_FILE, payload(new Code(LATENT, SCALE).encode(TAG.withValues(ValueEncoding.FP16))));
        return p;
    }

    /** Rewrites every golden file from {@link #payloads()}; run by hand, from {@code lgc}, never by a test. */
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
        if (name.equals(POSITIONS_FILE)) {
            assertEquals(inflated(golden), inflated(written), name);
        } else {
            GoldenPayloads.assertGolden(name, written);
        }
    }

    @Test
    void shouldReadTheGoldenCodeAndTheRingsScale() {
        Code code = Code.decode(frame(CODE_FILE, Code.KIND), LATENT.length);
        assertArrayEquals(LATENT, code.latent());
        assertEquals(SCALE, code.scale());
        Code scaleOnly = Code.decode(frame(SCALE_FILE, Code.KIND), 0);
        assertEquals(0, scaleOnly.latent().length);
        assertEquals(SCALE, scaleOnly.scale());
        Code fp16 = Code.decode(GoldenPayloads.frame(CODE_FP16_FILE, Code.KIND, TAG, ValueEncoding.FP16),
                LATENT.length);
        assertArrayEquals(LATENT, fp16.latent());
        assertEquals(SCALE, fp16.scale());
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
    void shouldReadTheGoldenFlagAndSample() {
        assertTrue(Flag.decode(frame(FLAG_FILE, Flag.KIND), "golden flag").value());
        assertArrayEquals(SAMPLE, Sample.decode(frame(SAMPLE_FILE, Sample.KIND), SAMPLE.length).values());
    }

    /** The named offsets and sizes of each layout class, read against the golden bytes. */
    @Test
    void shouldLayEveryFieldAtItsNamedOffset() {
        ByteBuffer code = le(golden(CODE_FILE));
        assertEquals(LgcFrames.codeLength(LATENT.length), code.capacity());
        assertEquals(0.5f, code.getFloat(LgcFrames.LATENT_OFFSET));
        assertEquals(SCALE, code.getFloat(LgcFrames.scaleOffset(LATENT.length)));
        assertEquals(LgcFrames.SCALE_SIZE, golden(SCALE_FILE).length);

        assertEquals(0x78, golden(POSITIONS_FILE)[LgcFrames.POSITIONS_OFFSET] & 0xFF);
        assertEquals(FloatFrames.payloadLength(POSITIONS.length), golden(INNOVATION_VALUES_FILE).length);

        byte[] flag = golden(FLAG_FILE);
        assertEquals(FlagFrames.LENGTH, flag.length);
        assertEquals(FlagFrames.TRUE, flag[FlagFrames.FLAG_OFFSET]);

        assertEquals(FloatFrames.payloadLength(SAMPLE.length), golden(SAMPLE_FILE).length);

        ByteBuffer codeFp16 = le(golden(CODE_FP16_FILE));
        assertEquals(LgcFrames.codeLength(ValueEncoding.FP16, LATENT.length), codeFp16.capacity());
        assertEquals(SCALE, codeFp16.getFloat(LgcFrames.scaleOffset(ValueEncoding.FP16, LATENT.length)),
                "the scale stays float32, after the fp16 latent");
    }

    private static Frame frame(String name, TrafficKind kind) {
        return GoldenPayloads.frame(name, kind, TAG);
    }
}

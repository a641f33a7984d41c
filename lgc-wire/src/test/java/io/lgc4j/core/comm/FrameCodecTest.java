package io.lgc4j.core.comm;

import io.lgc4j.core.protocol.FloatFrames;
import io.lgc4j.core.stage.Stage;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class FrameCodecTest {
    private static final Path GOLDEN = Path.of("src/test/resources/golden/frame-v2-values.hex");
    /** A version-1 frame as LGC4J wrote it before the network runtime (kept to pin its rejection). */
    private static final Path GOLDEN_V1 = Path.of("src/test/resources/golden/frame-v1-values.hex");
    /** The golden frame's values in fp16: flags 1, the scale exponent, three binary16 values. */
    private static final Path GOLDEN_FP16 = Path.of("src/test/resources/golden/frame-v2-values-fp16.hex");

    /**
     * The frame of the golden file: three floats of step 5 in the FULL stage, stream 1, stamped by endpoint 2 of job
     * 0x01020304.
     */
    private static byte[] goldenFrame() {
        ByteBuffer payload = FrameCodec.allocate(12);
        payload.asFloatBuffer().put(new float[] {1.0f, -2.5f, 0.125f});
        byte[] frame = FrameCodec.seal(payload, TrafficKind.VALUES, Stage.FULL, 5, 1);
        FrameCodec.stamp(frame, 2, 0x01020304);
        return frame;
    }

    /** The golden frame's three values as an fp16 frame: the same header but flags 1, and the fp16 payload. */
    private static byte[] goldenFp16Frame() {
        ByteBuffer payload = FrameCodec.allocate(ValueEncoding.FP16.payloadLength(3));
        ValueEncoding.FP16.write(payload, new float[] {1.0f, -2.5f, 0.125f}, 0, 3, TrafficKind.VALUES, 5);
        byte[] frame = FrameCodec.seal(payload, TrafficKind.VALUES, Stage.FULL, 5, 1, ValueEncoding.FP16.wireId());
        FrameCodec.stamp(frame, 2, 0x01020304);
        return frame;
    }

    /** Rewrites the golden files; run by hand only when the wire format changes on purpose (and bump VERSION). */
    public static void main(String[] args) throws IOException {
        generateGoldenFrame();
    }

    /** Writes {@link #GOLDEN} from {@link #goldenFrame()} and {@link #GOLDEN_FP16} from {@link #goldenFp16Frame()}. */
    static void generateGoldenFrame() throws IOException {
        Files.writeString(GOLDEN, HexFormat.of().formatHex(goldenFrame()) + "\n");
        Files.writeString(GOLDEN_FP16, HexFormat.of().formatHex(goldenFp16Frame()) + "\n");
    }

    @Test
    void shouldEncodeTheGoldenFrameByteForByte() throws IOException {
        String expected = Files.readString(GOLDEN, StandardCharsets.US_ASCII).trim();
        assertEquals(expected, HexFormat.of().formatHex(goldenFrame()));
    }

    /**
     * Flags 1 at offset 7, then the fp16 payload: max 2.5 gives the exponent ⌈log2 2.5⌉ − 15 = −13 (F3 FF), and
     * 1.0, −2.5, 0.125 times 2^13 are 8192 (00 70), −20480 (00 F5) and 1024 (00 64) in binary16.
     */
    @Test
    void shouldEncodeTheGoldenFp16FrameByteForByte() throws IOException {
        String expected = Files.readString(GOLDEN_FP16, StandardCharsets.US_ASCII).trim();
        assertEquals(expected, HexFormat.of().formatHex(goldenFp16Frame()));
        assertEquals("f3ff007000f50064", expected.substring(2 * FrameDescriptor.HEADER_LENGTH,
                2 * (FrameDescriptor.HEADER_LENGTH + 8)));
        assertEquals(HexFormat.of().formatHex(goldenFrame()).substring(0, 2 * FrameDescriptor.FLAGS_OFFSET),
                expected.substring(0, 2 * FrameDescriptor.FLAGS_OFFSET), "the header up to the flags is the same");
        Frame frame = FrameCodec.decode(HexFormat.of().parseHex(expected));
        assertEquals(1, frame.flags());
        float[] out = new float[3];
        FloatFrames.copyInto(frame, out, 0, 3);
        assertArrayEquals(new float[] {1.0f, -2.5f, 0.125f}, out);
    }

    @Test
    void shouldRejectReservedFlagsNamingThem() {
        byte[] reservedBit = goldenFrame();
        reservedBit[FrameDescriptor.FLAGS_OFFSET] = 0x04;
        resealCrc(reservedBit);
        assertEquals("unsupported frame flags 0x04: bits 2-7 are reserved and must be 0",
                assertThrows(FrameException.class, () -> FrameCodec.decode(reservedBit)).getMessage());
        byte[] encoding3 = goldenFrame();
        encoding3[FrameDescriptor.FLAGS_OFFSET] = 0x03;
        resealCrc(encoding3);
        assertEquals("unsupported frame flags 0x03: value encoding 3 in bits 0-1 is reserved (0 fp32, 1 fp16,"
                + " 2 bf16)", assertThrows(FrameException.class, () -> FrameCodec.decode(encoding3)).getMessage());
        assertEquals("unsupported frame flags 0x81: bits 2-7 are reserved and must be 0",
                assertThrows(IllegalArgumentException.class, () -> FrameCodec.seal(FrameCodec.allocate(0),
                        TrafficKind.VALUES, Stage.FULL, 0, 0, 0x81)).getMessage());
    }

    @Test
    void shouldLayTheHeaderFieldsAtTheirOffsets() {
        ByteBuffer b = ByteBuffer.wrap(goldenFrame()).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(0x3443474C, b.getInt(0));
        assertEquals(2, b.get(4));
        assertEquals(1, b.get(5));        // VALUES
        assertEquals(0, b.get(6));        // FULL
        assertEquals(0, b.get(7));
        assertEquals(5, b.getInt(8));
        assertEquals(12, b.getInt(12));
        assertEquals(2, b.getShort(16));  // sender
        assertEquals(1, b.getShort(18));  // stream
        assertEquals(0x01020304, b.getInt(20));
        assertEquals(1.0f, b.getFloat(24));
        assertEquals(24 + 12 + 4, b.capacity());
    }

    @Test
    void shouldRejectAVersionOneFrameSayingWhatChanged() throws IOException {
        byte[] v1 = HexFormat.of().parseHex(Files.readString(GOLDEN_V1, StandardCharsets.US_ASCII).trim());
        FrameException e = assertThrows(FrameException.class, () -> FrameCodec.decode(v1));
        assertEquals("unsupported frame version: expected 2, found 1 (the 16-byte header of LGC4J before the network"
                + " runtime, without sender, stream and job id: both ends must run the same LGC4J)", e.getMessage());
    }

    @Test
    void shouldStampSenderAndJobAndKeepTheFrameValid() {
        byte[] frame = FloatFrames.encode(new float[] {3f}, 0, 1, TrafficKind.VALUES, Stage.TOP_K, 9);
        FrameCodec.stamp(frame, 65535, -7);
        Frame f = FrameCodec.decode(frame);
        assertEquals(65535, f.sender());
        assertEquals(-7, f.job());
        assertEquals(0, f.stream());
        byte[] again = frame.clone();
        FrameCodec.stamp(again, 65535, -7);
        assertArrayEquals(frame, again);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> FrameCodec.stamp(frame, 65536, 0));
        assertEquals("sender endpoint must be in [0, 65535], found 65536", e.getMessage());
    }

    @Test
    void shouldRoundTripKindStageStepAndPayload() {
        Frame frame = FrameCodec.decode(goldenFrame());
        assertEquals(TrafficKind.VALUES, frame.kind());
        assertEquals(Stage.FULL, frame.stage());
        assertEquals(5, frame.step());
        assertEquals(2, frame.sender());
        assertEquals(1, frame.stream());
        assertEquals(0x01020304, frame.job());
        assertEquals(12, frame.payloadLength());
        assertEquals(12 + FrameDescriptor.OVERHEAD, frame.wireLength());
        float[] out = new float[3];
        FloatFrames.copyInto(frame, out, 0, 3);
        assertArrayEquals(new float[] {1.0f, -2.5f, 0.125f}, out);
    }

    @Test
    void shouldRoundTripAnEmptyPayloadAndEveryKindAndStage() {
        for (TrafficKind kind : TrafficKind.values()) {
            if (kind == TrafficKind.HEADER) {
                continue;
            }
            for (Stage stage : Stage.values()) {
                Frame f = FrameCodec.decode(FrameCodec.encode(kind, stage, -1, ByteBuffer.allocate(0)));
                assertEquals(kind, f.kind());
                assertEquals(stage, f.stage());
                assertEquals(-1, f.step());
                assertEquals(0, f.payloadLength());
            }
        }
    }

    @Test
    void shouldRejectFrameWhenCrcDoesNotMatch() {
        byte[] frame = goldenFrame();
        frame[FrameDescriptor.HEADER_LENGTH + 1] ^= 0x10;
        FrameException e = assertThrows(FrameException.class, () -> FrameCodec.decode(frame));
        assertEquals(String.format("frame CRC32C mismatch: computed 0x%08X, frame says 0x%08X",
                crcOf(frame), ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN).getInt(frame.length - 4)),
                e.getMessage());
    }

    @Test
    void shouldRejectFrameShorterThanHeaderAndTrailer() {
        FrameException e = assertThrows(FrameException.class, () -> FrameCodec.decode(new byte[10]));
        assertEquals("truncated frame: 10 bytes, a frame needs at least 28", e.getMessage());
    }

    @Test
    void shouldRejectFrameWhenLengthFieldDisagreesWithBytes() {
        byte[] frame = goldenFrame();
        byte[] truncated = java.util.Arrays.copyOf(frame, frame.length - 4);
        FrameException e = assertThrows(FrameException.class, () -> FrameCodec.decode(truncated));
        assertEquals("frame length mismatch: header declares 12 payload bytes, found 8", e.getMessage());
    }

    @Test
    void shouldRejectFrameWhenLengthFieldExceedsTheMaximumBeforeAllocating() {
        byte[] frame = goldenFrame();
        ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN).putInt(FrameDescriptor.LENGTH_OFFSET, -2);
        FrameException e = assertThrows(FrameException.class, () -> FrameCodec.decode(frame));
        assertEquals("frame payload length out of range: expected 0..1073741824, found 4294967294", e.getMessage());
    }

    @Test
    void shouldRejectFrameWithBadMagic() {
        byte[] frame = goldenFrame();
        frame[0] = 'X';
        FrameException e = assertThrows(FrameException.class, () -> FrameCodec.decode(frame));
        assertEquals("bad frame magic: expected 0x3443474C, found 0x34434758", e.getMessage());
    }

    @Test
    void shouldRejectFrameOfAnotherVersion() {
        byte[] frame = goldenFrame();
        frame[FrameDescriptor.VERSION_OFFSET] = 3;
        FrameException e = assertThrows(FrameException.class, () -> FrameCodec.decode(frame));
        assertEquals("unsupported frame version: expected 2, found 3", e.getMessage());
    }

    @Test
    void shouldRejectFrameOfUnknownKind() {
        byte[] frame = goldenFrame();
        frame[FrameDescriptor.KIND_OFFSET] = 42;
        resealCrc(frame);
        FrameException e = assertThrows(FrameException.class, () -> FrameCodec.decode(frame));
        assertEquals("unknown frame kind: expected 1..10, found 42", e.getMessage());
    }

    @Test
    void shouldRejectFloatPayloadOfUnexpectedLength() {
        Frame frame = FrameCodec.decode(goldenFrame());
        FrameException e = assertThrows(FrameException.class,
                () -> FloatFrames.copyInto(frame, new float[4], 0, 4));
        assertEquals("expected 4 floats (16 bytes) in a VALUES frame of step 5, found 12 bytes", e.getMessage());
    }

    private static int crcOf(byte[] frame) {
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(frame, 0, frame.length - 4);
        return (int) crc.getValue();
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(ints = {0, 1, 3, 64, 1000, 65_537, 1 << 20, 3_000_001})
    void stampShouldLeaveTheCrcAFullRecomputationGives(int payloadLength) {
        java.util.Random random = new java.util.Random(payloadLength);
        ByteBuffer payload = FrameCodec.allocate(payloadLength);
        byte[] bytes = new byte[payloadLength];
        random.nextBytes(bytes);
        payload.put(bytes);
        byte[] frame = FrameCodec.seal(payload, TrafficKind.VALUES, Stage.TOP_K, 9, 3);
        for (int round = 0; round < 3; round++) {   // stamping over an earlier stamp too
            int sender = random.nextInt(65_536);
            int job = random.nextInt();
            FrameCodec.stamp(frame, sender, job);
            assertEquals(crcOf(frame), ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN).getInt(frame.length - 4));
            Frame decoded = FrameCodec.decode(frame);
            assertEquals(sender, decoded.sender());
            assertEquals(job, decoded.job());
            assertEquals(3, decoded.stream());
        }
    }

    private static void resealCrc(byte[] frame) {
        ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN).putInt(frame.length - 4, crcOf(frame));
    }
}

package io.lgc4j.core.comm;

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
    private static final Path GOLDEN = Path.of("src/test/resources/golden/frame-v1-values.hex");

    /** The frame of the golden file: three floats of step 5 in the FULL stage. */
    private static byte[] goldenFrame() {
        return FloatFrames.encode(new float[] {1.0f, -2.5f, 0.125f}, 0, 3, TrafficKind.VALUES, Stage.FULL, 5);
    }

    /** Rewrites the golden file; run by hand only when the wire format changes on purpose (and bump VERSION). */
    public static void main(String[] args) throws IOException {
        Files.writeString(GOLDEN, HexFormat.of().formatHex(goldenFrame()) + "\n");
    }

    @Test
    void shouldEncodeTheGoldenFrameByteForByte() throws IOException {
        String expected = Files.readString(GOLDEN, StandardCharsets.US_ASCII).trim();
        assertEquals(expected, HexFormat.of().formatHex(goldenFrame()));
    }

    @Test
    void shouldRoundTripKindStageStepAndPayload() {
        Frame frame = FrameCodec.decode(goldenFrame());
        assertEquals(TrafficKind.VALUES, frame.kind());
        assertEquals(Stage.FULL, frame.stage());
        assertEquals(5, frame.step());
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
        assertEquals("truncated frame: 10 bytes, a frame needs at least 20", e.getMessage());
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
        frame[FrameDescriptor.VERSION_OFFSET] = 2;
        FrameException e = assertThrows(FrameException.class, () -> FrameCodec.decode(frame));
        assertEquals("unsupported frame version: expected 1, found 2", e.getMessage());
    }

    @Test
    void shouldRejectFrameOfUnknownKind() {
        byte[] frame = goldenFrame();
        frame[FrameDescriptor.KIND_OFFSET] = 42;
        resealCrc(frame);
        FrameException e = assertThrows(FrameException.class, () -> FrameCodec.decode(frame));
        assertEquals("unknown frame kind: expected 1..8, found 42", e.getMessage());
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

    private static void resealCrc(byte[] frame) {
        ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN).putInt(frame.length - 4, crcOf(frame));
    }
}

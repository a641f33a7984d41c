package io.lgc4j.core.codec;

import io.lgc4j.core.codec.DeflateIndexCodec.Transform;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class DeflateIndexCodecTest {
    private static final Path PYTHON = Path.of("/usr/bin/python3");
    private static final DeflateIndexCodec CODEC = new DeflateIndexCodec();

    @Nested
    class RawInt32 extends IndexCodecContract {
        @Override
        IndexCodec codec() {
            return new DeflateIndexCodec(Transform.RAW_INT32);
        }
    }

    @Nested
    class GapsInt32 extends IndexCodecContract {
        @Override
        IndexCodec codec() {
            return new DeflateIndexCodec(Transform.GAPS_INT32);
        }
    }

    @Nested
    class GapsVarint extends IndexCodecContract {
        @Override
        IndexCodec codec() {
            return new DeflateIndexCodec(Transform.GAPS_VARINT);
        }
    }

    @Nested
    class GapsBytePlanes extends IndexCodecContract {
        @Override
        IndexCodec codec() {
            return new DeflateIndexCodec(Transform.GAPS_BYTE_PLANES);
        }
    }

    /** Inflates a zlib stream with java.util.zip alone, as any other zlib user would. */
    static byte[] inflate(byte[] zlib) throws DataFormatException {
        Inflater inflater = new Inflater();
        try {
            inflater.setInput(zlib);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buffer = new byte[1 << 16];
            while (!inflater.finished()) {
                int inflated = inflater.inflate(buffer);
                if (inflated == 0 && inflater.needsInput()) {
                    throw new DataFormatException("truncated");
                }
                out.write(buffer, 0, inflated);
            }
            assertEquals(0, inflater.getRemaining(), "bytes after the zlib stream");
            return out.toByteArray();
        } finally {
            inflater.end();
        }
    }

    /** A zlib stream of {@code content}, for hand-made (hostile) contents. */
    static byte[] zlib(byte[] content) {
        Deflater deflater = new Deflater(9);
        try {
            deflater.setInput(content);
            deflater.finish();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buffer = new byte[1 << 16];
            while (!deflater.finished()) {
                out.write(buffer, 0, deflater.deflate(buffer));
            }
            return out.toByteArray();
        } finally {
            deflater.end();
        }
    }

    private static byte[] bytes(int... values) {
        byte[] out = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = (byte) values[i];
        }
        return out;
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    private static byte[] le(int... values) {
        byte[] out = new byte[4 * values.length];
        for (int i = 0; i < values.length; i++) {
            for (int b = 0; b < 4; b++) {
                out[4 * i + b] = (byte) (values[i] >>> (8 * b));
            }
        }
        return out;
    }

    private static String rejection(byte[] content, int n, int maxCount) {
        return assertThrows(CodecException.class, () -> CODEC.decode(zlib(content), n, maxCount)).getMessage();
    }

    // ----------------------------------------------------------------------------------------- interoperability

    @ParameterizedTest
    @EnumSource(Transform.class)
    void shouldWriteAZlibStreamThatJavaUtilZipInflatesToTheDocumentedHeader(Transform transform)
            throws DataFormatException {
        int[] indices = IndexSets.uniform(1_000_000, 1_000, 3);
        byte[] zlib = new DeflateIndexCodec(transform).encode(indices, indices.length, 1_000_000);
        assertEquals(0x78, zlib[0] & 0xFF, "zlib CMF: DEFLATE, 32 KiB window");
        byte[] content = inflate(zlib);
        assertEquals(DeflateIndexCodec.FORMAT_VERSION, content[0]);
        int documentedId = switch (transform) { // the ids in the class comment
            case RAW_INT32 -> 0;
            case GAPS_INT32 -> 1;
            case GAPS_VARINT -> 2;
            case GAPS_BYTE_PLANES -> 3;
        };
        assertEquals(documentedId, transform.wireId());
        assertEquals(documentedId, content[1]);
        assertArrayEquals(bytes(0xE8, 0x07), Arrays.copyOfRange(content, 2, 4), "count 1000 as LEB128");
        int expectedLength = switch (transform) {
            case RAW_INT32, GAPS_INT32 -> 4 + 4 * 1_000;
            case GAPS_BYTE_PLANES -> 5 + 2 * 1_000;
            case GAPS_VARINT -> content.length;
        };
        assertEquals(expectedLength, content.length);
        if (transform == Transform.RAW_INT32) {
            assertArrayEquals(le(indices), Arrays.copyOfRange(content, 4, content.length));
        }
    }

    @ParameterizedTest
    @EnumSource(Transform.class)
    void shouldInflateWithPythonsZlib(Transform transform) throws Exception {
        assumeTrue(Files.isExecutable(PYTHON), "no " + PYTHON);
        int[] indices = IndexSets.uniform(200_000, 2_000, 4);
        byte[] zlib = new DeflateIndexCodec(transform).encode(indices, indices.length, 200_000);
        Process python = new ProcessBuilder(PYTHON.toString(), "-c",
                "import sys, zlib; sys.stdout.write(zlib.decompress(sys.stdin.buffer.read()).hex())")
                .redirectErrorStream(true).start();
        try (OutputStream stdin = python.getOutputStream()) {
            stdin.write(zlib);
        }
        String hex;
        try (InputStream stdout = python.getInputStream()) {
            hex = new String(stdout.readAllBytes(), StandardCharsets.US_ASCII).trim();
        }
        assertTrue(python.waitFor(60, TimeUnit.SECONDS), "python did not finish");
        assertEquals(0, python.exitValue(), hex);
        assertEquals(HexFormat.of().formatHex(inflate(zlib)), hex);
    }

    @Test
    void shouldDecodeEveryTransformWhateverTransformTheDecoderEncodesWith() {
        int[] indices = IndexSets.uniform(50_000, 500, 5);
        for (Transform written : Transform.values()) {
            byte[] zlib = new DeflateIndexCodec(written).encode(indices, indices.length, 50_000);
            for (Transform reader : Transform.values()) {
                assertArrayEquals(indices, new DeflateIndexCodec(reader, 1).decode(zlib, 50_000, 500));
            }
        }
    }

    @Test
    void shouldRoundTripAtEveryLevel() {
        int[] indices = IndexSets.uniform(100_000, 1_000, 6);
        for (Transform transform : Transform.values()) {
            for (int level = 0; level <= 9; level++) {
                DeflateIndexCodec codec = new DeflateIndexCodec(transform, level);
                assertEquals(level, codec.level());
                assertArrayEquals(indices, codec.decode(codec.encode(indices, 1_000, 100_000), 100_000, 1_000));
            }
        }
    }

    @Test
    void shouldRejectALevelOutsideZeroToNine() {
        assertEquals("level must be in [0, 9], found 10", assertThrows(IllegalArgumentException.class,
                () -> new DeflateIndexCodec(Transform.GAPS_VARINT, 10)).getMessage());
        assertEquals("level must be in [0, 9], found -1", assertThrows(IllegalArgumentException.class,
                () -> new DeflateIndexCodec(Transform.GAPS_VARINT, -1)).getMessage());
    }

    @Test
    void shouldNameTheTransformNotTheLevel() {
        assertEquals("deflate-gaps-byte-planes", CODEC.name());
        assertEquals("deflate-raw-int32", new DeflateIndexCodec(Transform.RAW_INT32, 3).name());
        assertEquals("deflate-raw-int32(level 3)", new DeflateIndexCodec(Transform.RAW_INT32, 3).toString());
    }

    @Test
    void shouldMakeTheDefaultTransformTheSmallestAtATenthOfAPercent() {
        assertEquals(Transform.GAPS_BYTE_PLANES, DeflateIndexCodec.DEFAULT_TRANSFORM);
        for (int n : new int[] {1_000_000, 5_000_000}) {
            int[] indices = IndexSets.uniform(n, n / 1_000, 8);
            int best = CODEC.encode(indices, indices.length, n).length;
            for (Transform transform : Transform.values()) {
                assertTrue(best <= new DeflateIndexCodec(transform).encode(indices, indices.length, n).length,
                        transform + " beats the default at n=" + n);
            }
            assertTrue(8.0 * best / indices.length < 12.0, "bits/index " + 8.0 * best / indices.length);
        }
    }

    @Test
    void shouldWriteNoPlanesForASingleRunFromZero() throws DataFormatException {
        byte[] content = inflate(CODEC.encode(IndexSets.run(0, 300), 300, 1_000));
        assertArrayEquals(bytes(1, 3, 0xAC, 0x02, 0), content);
    }

    // ---------------------------------------------------------------------------------------------- zlib frame

    @Test
    void shouldRejectAStreamShorterThanTheZlibHeader() {
        assertEquals("truncated stream: expected a 2-byte zlib header, found 0 bytes",
                assertThrows(CodecException.class, () -> CODEC.decode(new byte[0], 10, 10)).getMessage());
        assertEquals("truncated stream: expected a 2-byte zlib header, found 1 byte",
                assertThrows(CodecException.class, () -> CODEC.decode(bytes(0x78), 10, 10)).getMessage());
    }

    @Test
    void shouldRejectABadZlibHeader() {
        assertEquals("bad zlib header: expected compression method 8 (DEFLATE), found 1", assertThrows(
                CodecException.class, () -> CODEC.decode(bytes(0x01, 0x03, 0, 0), 10, 10)).getMessage());
        assertEquals("bad zlib header: expected a window size exponent <= 7, found 8", assertThrows(
                CodecException.class, () -> CODEC.decode(bytes(0x88, 0x1C, 0, 0), 10, 10)).getMessage());
        assertEquals("bad zlib header: expected check bits making 0x7800 a multiple of 31, found remainder 30",
                assertThrows(CodecException.class, () -> CODEC.decode(bytes(0x78, 0x00, 0, 0), 10, 10))
                        .getMessage());
        assertEquals("bad zlib header: expected no preset dictionary, found the FDICT flag set", assertThrows(
                CodecException.class, () -> CODEC.decode(bytes(0x78, 0xBB, 0, 0, 0, 0), 10, 10)).getMessage());
    }

    @Test
    void shouldRejectAStreamWithoutItsEnd() {
        byte[] zlib = CODEC.encode(new int[] {1, 2, 3}, 3, 10);
        byte[] cut = Arrays.copyOf(zlib, zlib.length - 1);
        assertEquals("truncated stream: the zlib stream has no end after " + cut.length + " bytes",
                assertThrows(CodecException.class, () -> CODEC.decode(cut, 10, 3)).getMessage());
    }

    @Test
    void shouldRejectAWrongAdler32() {
        byte[] zlib = CODEC.encode(new int[] {1, 2, 3}, 3, 10);
        zlib[zlib.length - 1] ^= 1;
        assertEquals("corrupt DEFLATE data: incorrect data check",
                assertThrows(CodecException.class, () -> CODEC.decode(zlib, 10, 3)).getMessage());
    }

    @Test
    void shouldRejectBytesAfterTheZlibStream() {
        byte[] zlib = CODEC.encode(new int[] {1, 2, 3}, 3, 10);
        byte[] longer = concat(zlib, bytes(0x78, 0x9C));
        assertEquals("trailing garbage: expected the stream to end after " + zlib.length + " bytes, found 2 more",
                assertThrows(CodecException.class, () -> CODEC.decode(longer, 10, 3)).getMessage());
    }

    // ------------------------------------------------------------------------------------------ content header

    @Test
    void shouldRejectAnUnsupportedVersion() {
        assertEquals("unsupported format version: expected 1, found 2", rejection(bytes(2, 0, 0), 10, 10));
    }

    @Test
    void shouldRejectAnUnknownTransform() {
        assertEquals("unknown transform id: expected 0..3, found 9", rejection(bytes(1, 9, 0), 10, 10));
    }

    @Test
    void shouldRejectAHeaderCutShort() {
        assertEquals("truncated content: expected a header of at least 3 bytes, found 1", rejection(bytes(1), 10, 10));
        assertEquals("truncated content: expected a header of at least 3 bytes, found 0", rejection(bytes(), 10, 10));
        assertEquals("truncated content: the count varint is cut off after 3 bytes",
                rejection(bytes(1, 0, 0x80), 10, 10));
        assertEquals("truncated content: expected the planes byte at offset 3, found the end of the content",
                rejection(bytes(1, 3, 0), 10, 10));
    }

    @Test
    void shouldRejectABadCountVarint() {
        assertEquals("bad count varint: expected at most 32 bits in 5 bytes, found more",
                rejection(bytes(1, 0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01), 10, 10));
        assertEquals("bad count varint: expected at most 32 bits in 5 bytes, found more",
                rejection(bytes(1, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F), 10, 10));
    }

    @Test
    void shouldRejectAHugeDeclaredCountBeforeInflatingOrAllocating() {
        assertEquals("declared count exceeds maxCount: expected <= 10, found 1000000",
                rejection(bytes(1, 0, 0xC0, 0x84, 0x3D), 2_000_000, 10));
        assertEquals("declared count exceeds maxCount: expected <= 2147483647, found 4294967295",
                rejection(bytes(1, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F), Integer.MAX_VALUE, Integer.MAX_VALUE));
        assertEquals("declared count exceeds n: expected <= 2, found 3", rejection(bytes(1, 3, 3, 0), 2, 10));
    }

    @Test
    void shouldStopInflatingABombAtTheBytesTheCountCanNeed() {
        // 64 MiB of zeros after a header that declares ten int32 indices: 43 bytes of content at most.
        byte[] bomb = zlib(concat(bytes(1, 0, 10), new byte[64 << 20]));
        assertTrue(bomb.length < 100_000, "bomb length " + bomb.length);
        assertEquals("trailing garbage: expected at most 43 bytes of content for 10 indices, found more",
                assertThrows(CodecException.class, () -> CODEC.decode(bomb, 1_000, 10)).getMessage());
        byte[] planes = zlib(concat(bytes(1, 3, 10, 0), new byte[64 << 20]));
        assertEquals("trailing garbage: expected at most 4 bytes of content for 10 indices, found more",
                assertThrows(CodecException.class, () -> CODEC.decode(planes, 1_000, 10)).getMessage());
    }

    // -------------------------------------------------------------------------------------------- content body

    @Test
    void shouldRejectNonMonotoneAndOutOfRangeRawIndices() {
        assertEquals("non-monotone index at position 2: expected > 9, found 7",
                rejection(concat(bytes(1, 0, 3), le(5, 9, 7)), 100, 10));
        assertEquals("non-monotone index at position 1: expected > 5, found 5",
                rejection(concat(bytes(1, 0, 2), le(5, 5)), 100, 10));
        assertEquals("index out of range at position 0: expected 0 <= index < n=100, found -3",
                rejection(concat(bytes(1, 0, 1), le(-3)), 100, 10));
        assertEquals("index out of range at position 1: expected 0 <= index < n=100, found 100",
                rejection(concat(bytes(1, 0, 2), le(4, 100)), 100, 10));
    }

    @Test
    void shouldRejectGapsThatRunPastN() {
        assertEquals("index out of range at position 0: expected 0 <= index < n=100, found 4294967295",
                rejection(concat(bytes(1, 1, 1), le(-1)), 100, 10));
        assertEquals("index out of range at position 1: expected 0 <= index < n=100, found 100",
                rejection(bytes(1, 2, 2, 9, 90), 100, 10));
        assertEquals("index out of range at position 2: expected 0 <= index < n=100, found 357",
                rejection(bytes(1, 3, 3, 2, 0, 0, 99, 0, 0, 1), 100, 10));
    }

    @Test
    void shouldRejectABodyOfTheWrongLength() {
        assertEquals("truncated content: expected 8 body bytes for 2 indices, found 4",
                rejection(concat(bytes(1, 0, 2), le(5)), 100, 10));
        assertEquals("truncated content: expected 8 body bytes for 2 indices, found 7",
                rejection(concat(bytes(1, 1, 2), Arrays.copyOf(le(5, 6), 7)), 100, 10));
        assertEquals("trailing garbage: expected at most 7 bytes of content for 1 indices, found more",
                rejection(concat(bytes(1, 0, 1), le(5, 6)), 100, 10));
        assertEquals("truncated content: expected 6 body bytes for 3 indices, found 5",
                rejection(bytes(1, 3, 3, 2, 1, 2, 3, 4, 5), 100, 10));
    }

    @Test
    void shouldRejectBadVarintBodies() {
        assertEquals("truncated content: expected at least 2 body bytes for 2 indices, found 1",
                rejection(bytes(1, 2, 2, 5), 100, 10));
        assertEquals("truncated content: the varint of index 1 of 2 is cut off at byte 5",
                rejection(bytes(1, 2, 2, 5, 0x85), 100, 10));
        assertEquals("trailing garbage: expected the content to end after 4 bytes, found 1 more",
                rejection(bytes(1, 2, 1, 5, 7), 100, 10));
        assertEquals("bad varint at position 0: expected at most 32 bits in 5 bytes, found more",
                rejection(bytes(1, 2, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F), Integer.MAX_VALUE, 10));
    }

    @Test
    void shouldRejectABadPlaneCount() {
        assertEquals("bad plane count: expected 0..4, found 5", rejection(bytes(1, 3, 1, 5, 0, 0, 0, 0, 0), 9, 9));
    }

    @Test
    void shouldDecodeOrRejectGarbageBehindAValidZlibHeaderAndContentHeader() {
        SplittableRandom random = new SplittableRandom(44);
        for (int trial = 0; trial < 5_000; trial++) {
            byte[] content = new byte[3 + random.nextInt(40)];
            for (int i = 0; i < content.length; i++) {
                content[i] = (byte) random.nextInt(256);
            }
            content[0] = 1;
            content[1] = (byte) random.nextInt(4);
            content[2] = (byte) random.nextInt(12);
            byte[] zlib = zlib(content);
            try {
                int[] decoded = CODEC.decode(zlib, 300, 11);
                for (int i = 0; i < decoded.length; i++) {
                    assertTrue(decoded[i] >= 0 && decoded[i] < 300 && (i == 0 || decoded[i] > decoded[i - 1]));
                }
            } catch (CodecException expected) {
                // a valid outcome
            }
        }
    }

    @Test
    void shouldEncodeTheSameWithCommonsCompressAsWithPlainZlibAtTheSameLevel() throws IOException,
            DataFormatException {
        // Transforms other than byte planes go through Commons Compress; the stream must be what zlib itself makes.
        int[] indices = IndexSets.uniform(100_000, 1_000, 9);
        for (Transform transform : new Transform[] {Transform.RAW_INT32, Transform.GAPS_INT32,
                Transform.GAPS_VARINT}) {
            byte[] zlib = new DeflateIndexCodec(transform).encode(indices, indices.length, 100_000);
            assertArrayEquals(zlib(inflate(zlib)), zlib, transform.toString());
        }
    }
}

package io.lgc4j.core.checkpoint;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** The part container: every value type round trips, and every malformed file is refused with its message. */
class CheckpointPartTest {
    private static final String LABEL = "rank-1.lgcc";

    private TempDirectory temp;

    @BeforeEach
    void createDirectory() throws IOException {
        temp = new TempDirectory();
    }

    @AfterEach
    void deleteDirectory() {
        temp.close();
    }

    /** A small part with three sections: the one the malformed-file tests corrupt. */
    static byte[] small() {
        CheckpointPart.Builder b = CheckpointPart.builder(PartKind.RANK);
        b.section("step").putLong(123);
        b.section("compressor/residual").putFloats(new float[] {1.0f, -2.5f, 0.125f});
        b.section("empty");
        return b.build().toBytes();
    }

    @Test
    void shouldRoundTripEveryValueTypeThroughAFile() throws IOException {
        Random random = new Random(7);
        float[] large = new float[1 << 20]; // 4 MB
        for (int i = 0; i < large.length; i++) {
            large[i] = (float) random.nextGaussian();
        }
        float[] special = {-0.0f, Float.intBitsToFloat(0x7fc00123), Float.MIN_VALUE, Float.NEGATIVE_INFINITY};
        int[] ints = {0, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, 42};
        long[] longs = {0L, -1L, Long.MIN_VALUE, Long.MAX_VALUE, 1L << 40};
        byte[] bytes = {0, 1, -1, 127, -128};

        CheckpointPart.Builder b = CheckpointPart.builder(PartKind.SERVER);
        b.section("scalars").putByte(200).putBoolean(true).putBoolean(false).putInt(-7).putLong(1L << 50)
                .putFloat(-0.0f).putDouble(Math.PI).putString("μ = 12, ü").putString("");
        b.section("floats").putFloats(special);
        b.section("ints").putInts(ints);
        b.section("longs").putLongs(longs);
        b.section("bytes").putBytes(bytes);
        b.section("empty");
        b.section("large/residual").putFloats(large);
        b.section("mixed").putInt(ints.length).putInts(ints).putFloats(special);
        CheckpointPart written = b.build();
        Path file = temp.path().resolve("server-0.lgcc");
        PartInfo info = written.write(file);

        assertEquals(new PartInfo("server-0.lgcc", Files.size(file), info.crc32c()), info);
        assertEquals(PartInfo.of(file), info);
        assertEquals(written.length(), Files.size(file));
        assertArrayEquals(written.toBytes(), Files.readAllBytes(file));

        CheckpointPart read = CheckpointPart.read(file);
        assertEquals(PartKind.SERVER, read.kind());
        assertEquals("server-0.lgcc", read.label());
        assertEquals(List.of("scalars", "floats", "ints", "longs", "bytes", "empty", "large/residual", "mixed"),
                read.sectionNames());
        SectionReader s = read.section("scalars");
        assertEquals(200, s.getByte());
        assertTrue(s.getBoolean());
        assertFalse(s.getBoolean());
        assertEquals(-7, s.getInt());
        assertEquals(1L << 50, s.getLong());
        assertEquals(Float.floatToRawIntBits(-0.0f), Float.floatToRawIntBits(s.getFloat()));
        assertEquals(Math.PI, s.getDouble());
        assertEquals("μ = 12, ü", s.getString());
        assertEquals("", s.getString());
        s.end();
        assertArrayEquals(bits(special), bits(read.floats("floats", special.length)), "raw bits, NaN payload too");
        assertArrayEquals(ints, read.ints("ints", ints.length));
        assertArrayEquals(longs, read.longs("longs", longs.length));
        assertArrayEquals(bytes, read.bytes("bytes"));
        assertEquals(0, read.sectionLength("empty"));
        assertArrayEquals(new byte[0], read.bytes("empty"));
        read.section("empty").end();
        float[] into = new float[large.length];
        SectionReader l = read.section("large/residual");
        l.getFloats(into);
        l.end();
        assertArrayEquals(large, into);
        SectionReader m = read.section("mixed");
        assertArrayEquals(ints, m.getInts(m.getInt()));
        assertArrayEquals(bits(special), bits(m.getFloats(special.length)));
        m.end();
    }

    @Test
    void shouldRoundTripAPartWithoutSections() throws CheckpointException {
        byte[] bytes = CheckpointPart.builder(PartKind.MANIFEST).build().toBytes();
        assertEquals(CheckpointDescriptor.MIN_LENGTH, bytes.length);
        CheckpointPart read = CheckpointPart.parse(bytes, "manifest.lgcc");
        assertEquals(PartKind.MANIFEST, read.kind());
        assertEquals(List.of(), read.sectionNames());
        assertEquals("manifest.lgcc has no section 'run'; its sections: none",
                assertThrows(CheckpointException.class, () -> read.section("run")).getMessage());
    }

    @Test
    void shouldRefuseBadSectionNamesWhenWriting() {
        CheckpointPart.Builder b = CheckpointPart.builder(PartKind.RANK);
        b.section("a");
        assertEquals("the rank part already has a section 'a'",
                assertThrows(IllegalArgumentException.class, () -> b.section("a")).getMessage());
        assertEquals("a section name must not be empty",
                assertThrows(IllegalArgumentException.class, () -> b.section("")).getMessage());
        String ok = "é".repeat(127) + "x"; // 255 UTF-8 bytes
        b.section(ok);
        String tooLong = "é".repeat(128);
        assertEquals("section name '" + tooLong + "' has 256 UTF-8 bytes, at most 255",
                assertThrows(IllegalArgumentException.class, () -> b.section(tooLong)).getMessage());
        SectionWriter w = b.section("late");
        CheckpointPart part = b.build();
        assertEquals(List.of("a", ok, "late"), part.sectionNames());
        assertEquals("section 'late': its part is already built",
                assertThrows(IllegalStateException.class, () -> w.putInt(1)).getMessage());
        assertEquals("the rank part is already built",
                assertThrows(IllegalStateException.class, () -> b.section("b")).getMessage());
    }

    @Test
    void shouldSayWhatATypedReadExpectedAndFound() throws CheckpointException {
        CheckpointPart.Builder b = CheckpointPart.builder(PartKind.RANK);
        b.section("compressor/residual").putFloats(new float[1199]).putBytes(new byte[] {0, 0, 0, 0});
        b.section("compressor/residual-short").putFloats(new float[1199]);
        b.section("state").putInt(3).putByte(7).putInt(-5).putInt(1000);
        CheckpointPart part = CheckpointPart.parse(b.build().toBytes(), "rank-2.lgcc");

        assertEquals("section 'compressor/residual-short' of rank-2.lgcc: expected 1,200 floats (4,800 bytes), "
                + "found 4,796 bytes", message(() -> part.floats("compressor/residual-short", 1200)));
        assertEquals("section 'compressor/residual' of rank-2.lgcc: expected 1,199 floats (4,796 bytes), "
                + "found 4,800 bytes", message(() -> part.floats("compressor/residual", 1199)));
        assertEquals("section 'compressor/residual' of rank-2.lgcc: expected 1,201 ints (4,804 bytes), "
                + "found 4,800 bytes", message(() -> part.ints("compressor/residual", 1201)));
        assertEquals("section 'compressor/residual' of rank-2.lgcc: expected 601 longs (4,808 bytes), "
                + "found 4,800 bytes", message(() -> part.longs("compressor/residual", 601)));
        assertEquals("rank-2.lgcc has no section 'dgc/v'; its sections: compressor/residual, "
                + "compressor/residual-short, state", message(() -> part.section("dgc/v")));

        SectionReader s = part.section("state");
        s.getInt();
        assertEquals("section 'state' of rank-2.lgcc: expected a boolean byte 0 or 1, found 7",
                message(s::getBoolean));
        assertEquals("section 'state' of rank-2.lgcc: expected a count of floats >= 0, found -5",
                message(() -> s.getFloats(s.getInt())));
        assertEquals("section 'state' of rank-2.lgcc: expected a string of 1,000 bytes, found 0 bytes",
                message(s::getString));
        assertEquals("section 'state' of rank-2.lgcc: expected an int (4 bytes), found 0 bytes", message(s::getInt));
        assertEquals("section 'state' of rank-2.lgcc: expected a long (8 bytes), found 0 bytes",
                message(s::getLong));
        assertEquals("section 'state' of rank-2.lgcc: expected 1 float (4 bytes), found 0 bytes",
                message(() -> s.getFloats(1)));
        assertEquals("section 'state' of rank-2.lgcc: expected 5 bytes, found 0 bytes",
                message(() -> s.getBytes(5)));

        SectionReader t = part.section("state");
        t.getInt();
        assertEquals("section 'state' of rank-2.lgcc: 9 bytes follow what was read, expected none",
                message(t::end));
        assertEquals("rank-2.lgcc: expected a server part, found a rank part",
                message(() -> part.requireKind(PartKind.SERVER)));
    }

    @Test
    void shouldRefuseAnotherFormatWithItsMagic() {
        byte[] zip = {0x50, 0x4B, 0x03, 0x04, 0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        assertEquals("rank-1.lgcc is not an LGC4J checkpoint part: expected magic LGCK, found 50 4B 03 04",
                parseMessage(zip));
        assertEquals("rank-1.lgcc is not an LGC4J checkpoint part: expected magic LGCK, found 4C 47 43 34",
                parseMessage(Arrays.copyOf(new byte[] {'L', 'G', 'C', '4'}, 40)), "a frame is not a part");
        assertEquals("rank-1.lgcc is not an LGC4J checkpoint part: expected magic LGCK, found 4C 58",
                parseMessage(new byte[] {'L', 'X'}));
    }

    @Test
    void shouldRefuseAnotherVersionKindOrReservedBytes() {
        byte[] v3 = small();
        v3[CheckpointDescriptor.VERSION_OFFSET] = 3;
        assertEquals("rank-1.lgcc: checkpoint format version 3, this build reads versions 1 to 2", parseMessage(v3));
        byte[] v0 = small();
        v0[CheckpointDescriptor.VERSION_OFFSET] = 0;
        assertEquals("rank-1.lgcc: checkpoint format version 0, this build reads versions 1 to 2", parseMessage(v0));
        byte[] kind = small();
        kind[CheckpointDescriptor.KIND_OFFSET] = 9;
        assertEquals("rank-1.lgcc: unknown part kind 9 (1 rank, 2 server, 3 manifest)", parseMessage(kind));
        byte[] reserved = small();
        reserved[CheckpointDescriptor.RESERVED_OFFSET + 1] = 1;
        assertEquals("rank-1.lgcc: reserved header bytes 6-7 are 0x0100, expected 0", parseMessage(reserved));
    }

    @Test
    void shouldRefuseEveryTruncationNamingTheFileAndWhereItEnds() throws IOException {
        byte[] full = small();
        Path file = temp.path().resolve(LABEL);
        for (int length = 0; length < full.length; length++) {
            Files.write(file, Arrays.copyOf(full, length));
            String message = message(() -> CheckpointPart.read(file));
            assertTrue(message.startsWith(LABEL + ": truncated in "), length + " bytes: " + message);
        }
        // Where the file is cut: the header, each field of a section, the trailer.
        assertEquals("rank-1.lgcc: truncated in the part header: expected 12 bytes, found 7 bytes",
                parseMessage(Arrays.copyOf(full, 7)));
        assertEquals("rank-1.lgcc: truncated in section 1 of 3: expected its name length (2 bytes), found 1 byte",
                parseMessage(Arrays.copyOf(full, 13)));
        assertEquals("rank-1.lgcc: truncated in section 1 of 3: expected its name (4 bytes), found 2 bytes",
                parseMessage(Arrays.copyOf(full, 16)));
        assertEquals("rank-1.lgcc: truncated in section 'step' (1 of 3): expected its body length and CRC32C "
                + "(12 bytes), found 5 bytes", parseMessage(Arrays.copyOf(full, 23)));
        int residualBody = 12 + (2 + 4 + 12 + 8) + (2 + 19 + 12);
        assertEquals("rank-1.lgcc: truncated in section 'compressor/residual' (2 of 3): expected a body of 12 bytes, "
                + "found 5 bytes", parseMessage(Arrays.copyOf(full, residualBody + 5)));
        assertEquals("rank-1.lgcc: truncated in the trailer: expected 4 bytes (the CRC32C after the last section), "
                + "found 3 bytes", parseMessage(Arrays.copyOf(full, full.length - 1)));
    }

    @Test
    void shouldRefuseATruncatedFileOnDisk() throws IOException {
        byte[] full = small();
        Path file = temp.path().resolve(LABEL);
        Files.write(file, Arrays.copyOf(full, full.length - 9));
        assertEquals("rank-1.lgcc: truncated in section 'empty' (3 of 3): expected its body length and CRC32C "
                + "(12 bytes), found 7 bytes", message(() -> CheckpointPart.read(file)));
        assertEquals("rank-1.lgcc is missing: no file " + temp.path().resolve("rank-9.lgcc"),
                message(() -> CheckpointPart.read(temp.path().resolve("rank-9.lgcc"), LABEL)));
    }

    @Test
    void shouldNameTheSectionAndBothCrcsWhenABodyBitFlips() {
        byte[] full = small();
        int residualBody = 12 + (2 + 4 + 12 + 8) + (2 + 19 + 12);
        int storedCrc = ByteBuffer.wrap(full).order(ByteOrder.LITTLE_ENDIAN).getInt(residualBody - 4);
        for (int offset = residualBody; offset < residualBody + 12; offset++) {
            for (int bit = 0; bit < 8; bit++) {
                byte[] flipped = full.clone();
                flipped[offset] ^= (byte) (1 << bit);
                CRC32C crc = new CRC32C();
                crc.update(flipped, residualBody, 12);
                assertEquals(String.format("rank-1.lgcc: section 'compressor/residual' (2 of 3) fails its CRC32C: "
                        + "stored 0x%08x, computed 0x%08x: its body is corrupt", storedCrc, (int) crc.getValue()),
                        parseMessage(flipped));
            }
        }
    }

    @Test
    void shouldRefuseEveryBitFlipOutsideTheBodiesWithAClearMessage() {
        byte[] full = small();
        List<Integer> bodies = new ArrayList<>();
        int stepBody = 12 + 2 + 4 + 12;
        int residualBody = stepBody + 8 + 2 + 19 + 12;
        for (int i = 0; i < 8; i++) {
            bodies.add(stepBody + i);
        }
        for (int i = 0; i < 12; i++) {
            bodies.add(residualBody + i);
        }
        for (int offset = 0; offset < full.length; offset++) {
            if (bodies.contains(offset)) {
                continue;
            }
            for (int bit = 0; bit < 8; bit++) {
                byte[] flipped = full.clone();
                flipped[offset] ^= (byte) (1 << bit);
                String message = parseMessage(flipped);
                assertTrue(message.startsWith(LABEL), "byte " + offset + " bit " + bit + ": " + message);
            }
        }
        // A flip the structure does not show (the kind, a name's letter, the trailer) is the trailer's to catch.
        byte[] kind = full.clone();
        kind[CheckpointDescriptor.KIND_OFFSET] = (byte) PartKind.SERVER.wireId();
        assertTrue(parseMessage(kind).startsWith("rank-1.lgcc: the trailer's CRC32C fails: stored 0x"));
        byte[] name = full.clone();
        name[14] = 'S'; // "step" -> "Step"
        assertTrue(parseMessage(name).endsWith(": every section's body verifies, so a header byte or the trailer is "
                + "corrupt"));
        // A flip in a section's stored CRC is that section's mismatch.
        byte[] crcField = full.clone();
        crcField[residualBody - 1] ^= 0x10;
        assertTrue(parseMessage(crcField).startsWith("rank-1.lgcc: section 'compressor/residual' (2 of 3) fails its "
                + "CRC32C: stored 0x"));
        // A body length grown past the file names the section and the bytes left.
        byte[] length = full.clone();
        length[stepBody - 5] = (byte) 0x80; // the top byte of the uint64
        assertEquals("rank-1.lgcc: truncated in section 'step' (1 of 3): expected a body of "
                + "9,223,372,036,854,775,816 bytes, found 76 bytes", parseMessage(length));
    }

    @Test
    void shouldRefuseDuplicateEmptyLongOrUndecodableNames() {
        CheckpointPart.Builder b = CheckpointPart.builder(PartKind.RANK);
        b.section("ab").putInt(1);
        b.section("cd").putInt(2);
        byte[] full = b.build().toBytes();
        int second = 12 + 2 + 2 + 12 + 4;
        byte[] duplicate = full.clone();
        duplicate[second + 2] = 'a';
        duplicate[second + 3] = 'b';
        assertEquals("rank-1.lgcc: section 2 of 2 repeats the name 'ab' of section 1",
                parseMessage(withTrailer(duplicate)));
        byte[] invalid = full.clone();
        invalid[second + 2] = (byte) 0xFF;
        assertEquals("rank-1.lgcc: section 2 of 2's name is not valid UTF-8: FF 64",
                parseMessage(withTrailer(invalid)));
        byte[] empty = full.clone();
        empty[second] = 0;
        assertEquals("rank-1.lgcc: section 2 of 2 has an empty name", parseMessage(withTrailer(empty)));
        byte[] tooLong = full.clone();
        tooLong[second + 1] = 1; // 258 bytes
        assertEquals("rank-1.lgcc: section 2 of 2 declares a name of 258 bytes, at most 255",
                parseMessage(withTrailer(tooLong)));
    }

    @Test
    void shouldRefuseBytesAfterTheLastSection() {
        byte[] full = small();
        byte[] fewer = full.clone();
        fewer[CheckpointDescriptor.SECTION_COUNT_OFFSET] = 2;
        assertEquals("rank-1.lgcc: 19 bytes follow the last of its 2 sections, expected only the 4-byte trailer",
                parseMessage(withTrailer(fewer)));
    }

    /** The same bytes with the trailer's CRC recomputed, so that only the structural problem remains. */
    static byte[] withTrailer(byte[] bytes) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length - 4);
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(bytes.length - 4, (int) crc.getValue());
        return bytes;
    }

    static String parseMessage(byte[] bytes) {
        return message(() -> CheckpointPart.parse(bytes, LABEL));
    }

    interface Action {
        void run() throws IOException;
    }

    static String message(Action action) {
        try {
            action.run();
        } catch (CheckpointException e) {
            return e.getMessage();
        } catch (IOException e) {
            fail("expected a CheckpointException, got " + e);
        }
        return fail("expected a CheckpointException, nothing was thrown");
    }

    private static int[] bits(float[] values) {
        int[] bits = new int[values.length];
        for (int i = 0; i < values.length; i++) {
            bits[i] = Float.floatToRawIntBits(values[i]);
        }
        return bits;
    }
}

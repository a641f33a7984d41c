package io.lgc4j.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The recording format round-trips and rejects bad files with a message naming what was expected and found. */
class CompactVectorFileTest {

    private static final int K = 3;
    private static final int MU = 5;
    private static final int STEPS = 4;

    @TempDir
    Path dir;

    @Test
    void shouldRoundTripEveryStepBitForBit() throws IOException {
        Path file = dir.resolve("cv.bin");
        float[][][] written = write(file, STEPS);

        CompactVectorFile.Recording r = CompactVectorFile.readAll(file);

        assertEquals(new CompactVectorFile.Header(K, MU, STEPS), r.header());
        assertEquals(CompactVectorFile.HEADER_BYTES + STEPS * (4L + 4L * K * MU), Files.size(file));
        assertEquals(STEPS, r.steps().size());
        for (int s = 0; s < STEPS; s++) {
            assertEquals(s % K, r.steps().get(s).leader());
            for (int k = 0; k < K; k++) {
                assertArrayEquals(written[s][k], r.steps().get(s).compacts()[k]);
            }
        }
        assertFalse(Files.exists(dir.resolve("cv.bin.part")), "the partial file is moved into place");
    }

    @Test
    void shouldStartWithTheDocumentedHeader() throws IOException {
        Path file = dir.resolve("cv.bin");
        write(file, 1);
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals("LGCV", new String(Arrays.copyOf(b.array(), 4), java.nio.charset.StandardCharsets.US_ASCII));
        assertEquals(1, b.getShort(4));
        assertEquals(0, b.getShort(6));
        assertEquals(K, b.getInt(8));
        assertEquals(MU, b.getInt(12));
        assertEquals(1, b.getInt(16));
        assertEquals(0, b.getInt(20), "leader of step 0");
        assertEquals(0.5f, b.getFloat(24), "rank 0, position 0 of step 0");
    }

    @Test
    void shouldRejectATruncatedFileNamingExpectedAndFoundLengths() throws IOException {
        Path file = dir.resolve("cv.bin");
        write(file, STEPS);
        byte[] bytes = Files.readAllBytes(file);
        Files.write(file, Arrays.copyOf(bytes, bytes.length - 7));

        CompactVectorFormatException e = assertThrows(CompactVectorFormatException.class,
                () -> CompactVectorFile.open(file));

        assertEquals("cv.bin: expected 20 + 4 steps × (4 + 4·3·5) = 276 bytes for K = 3, μ = 5, steps = 4; found 269"
                + " bytes (truncated)", e.getMessage());
    }

    @Test
    void shouldRejectTrailingBytes() throws IOException {
        Path file = dir.resolve("cv.bin");
        write(file, 1);
        byte[] bytes = Files.readAllBytes(file);
        Files.write(file, Arrays.copyOf(bytes, bytes.length + 1));

        CompactVectorFormatException e = assertThrows(CompactVectorFormatException.class,
                () -> CompactVectorFile.open(file));

        assertEquals("cv.bin: expected 20 + 1 steps × (4 + 4·3·5) = 84 bytes for K = 3, μ = 5, steps = 1; found 85"
                + " bytes (trailing bytes)", e.getMessage());
    }

    @Test
    void shouldRejectATruncatedHeader() throws IOException {
        Path file = dir.resolve("cv.bin");
        Files.write(file, new byte[] {'L', 'G', 'C', 'V', 1, 0});

        CompactVectorFormatException e = assertThrows(CompactVectorFormatException.class,
                () -> CompactVectorFile.open(file));

        assertEquals("cv.bin: truncated header: expected at least 20 bytes, found 6", e.getMessage());
    }

    @Test
    void shouldRejectAWrongMagic() throws IOException {
        Path file = dir.resolve("cv.bin");
        write(file, 1);
        byte[] bytes = Files.readAllBytes(file);
        bytes[3] = 'W';
        Files.write(file, bytes);

        CompactVectorFormatException e = assertThrows(CompactVectorFormatException.class,
                () -> CompactVectorFile.open(file));

        assertEquals("cv.bin: expected magic \"LGCV\" ([76, 71, 67, 86]), found [76, 71, 67, 87]", e.getMessage());
    }

    @Test
    void shouldRejectAnotherVersion() throws IOException {
        Path file = dir.resolve("cv.bin");
        write(file, 1);
        byte[] bytes = Files.readAllBytes(file);
        bytes[4] = 2;
        Files.write(file, bytes);

        CompactVectorFormatException e = assertThrows(CompactVectorFormatException.class,
                () -> CompactVectorFile.open(file));

        assertEquals("cv.bin: expected version 1, found version 2", e.getMessage());
    }

    @Test
    void shouldRejectCountsNoFileCouldHoldWithoutAllocating() throws IOException {
        Path file = dir.resolve("cv.bin");
        Files.write(file, header(CompactVectorFile.MAX_RANKS, CompactVectorFile.MAX_MU, Integer.MAX_VALUE));

        CompactVectorFormatException e = assertThrows(CompactVectorFormatException.class,
                () -> CompactVectorFile.open(file));

        assertEquals("cv.bin: expected at most 536870911 floats per step, found K·μ = 65536·268435456 = "
                + "17592186044416", e.getMessage());
    }

    @Test
    void shouldRejectAHugeStepCountAgainstTheFileLength() throws IOException {
        Path file = dir.resolve("cv.bin");
        Files.write(file, header(4, 1 << 20, Integer.MAX_VALUE));

        CompactVectorFormatException e = assertThrows(CompactVectorFormatException.class,
                () -> CompactVectorFile.open(file));

        assertEquals("cv.bin: expected 20 + 2147483647 steps × (4 + 4·4·1048576) = 36028805592121360 bytes for K = 4,"
                + " μ = 1048576, steps = 2147483647; found 20 bytes (truncated)", e.getMessage());
    }

    @Test
    void shouldRejectCountsOutOfRangeReadAsUnsigned() throws IOException {
        Path file = dir.resolve("cv.bin");
        Files.write(file, header(-1, 5, 0));
        assertEquals("cv.bin: expected K in [1, 65536], found 4294967295",
                assertThrows(CompactVectorFormatException.class, () -> CompactVectorFile.open(file)).getMessage());

        Files.write(file, header(2, 0, 0));
        assertEquals("cv.bin: expected μ in [1, 268435456], found 0",
                assertThrows(CompactVectorFormatException.class, () -> CompactVectorFile.open(file)).getMessage());

        Files.write(file, header(2, 5, -1));
        assertEquals("cv.bin: expected steps in [0, 2147483647], found 4294967295",
                assertThrows(CompactVectorFormatException.class, () -> CompactVectorFile.open(file)).getMessage());
    }

    @Test
    void shouldRejectALeaderOutsideTheRanksWhereItIsRead() throws IOException {
        Path file = dir.resolve("cv.bin");
        write(file, 2);
        byte[] bytes = Files.readAllBytes(file);
        int secondStep = CompactVectorFile.HEADER_BYTES + 4 + 4 * K * MU;
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(secondStep, K);
        Files.write(file, bytes);

        try (CompactVectorFile.Reader reader = CompactVectorFile.open(file)) {
            reader.next();
            CompactVectorFormatException e = assertThrows(CompactVectorFormatException.class, reader::next);
            assertEquals("cv.bin: step 1: expected a leader in [0, 3), found 3", e.getMessage());
        }
    }

    @Test
    void shouldRejectANonFiniteValue() throws IOException {
        Path file = dir.resolve("cv.bin");
        write(file, 1);
        byte[] bytes = Files.readAllBytes(file);
        int rank1Position2 = CompactVectorFile.HEADER_BYTES + 4 + 4 * (MU + 2);
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putFloat(rank1Position2, Float.NaN);
        Files.write(file, bytes);

        try (CompactVectorFile.Reader reader = CompactVectorFile.open(file)) {
            CompactVectorFormatException e = assertThrows(CompactVectorFormatException.class, reader::next);
            assertEquals("cv.bin: step 0, rank 1, position 2: expected a finite value, found NaN", e.getMessage());
        }
    }

    @Test
    void shouldReturnNullAfterTheLastStep() throws IOException {
        Path file = dir.resolve("cv.bin");
        write(file, 1);
        try (CompactVectorFile.Reader reader = CompactVectorFile.open(file)) {
            reader.next();
            assertNull(reader.next());
        }
    }

    @Test
    void shouldLeaveAnUnfinishedRecordingAsPartAndSaySo() throws IOException {
        Path file = dir.resolve("cv.bin");
        CompactVectorFile.Writer writer = CompactVectorFile.create(file, K, MU, 2);
        writer.append(0, vectors(0));

        IOException e = assertThrows(IOException.class, writer::close);

        assertEquals(file + ": 1 of the 2 declared steps were written; the partial recording is left in " + file
                + ".part", e.getMessage());
        assertFalse(Files.exists(file));
        assertTrue(Files.exists(dir.resolve("cv.bin.part")));
    }

    @Test
    void shouldRefuseVectorsThatDoNotMatchTheHeader() throws IOException {
        try (CompactVectorFile.Writer writer = CompactVectorFile.create(dir.resolve("cv.bin"), K, MU, 1)) {
            assertEquals("leader must be in [0, 3), got 3",
                    assertThrows(IllegalArgumentException.class, () -> writer.append(K, vectors(0))).getMessage());
            assertEquals("expected 3 compact vectors, got 2", assertThrows(IllegalArgumentException.class,
                    () -> writer.append(0, Arrays.copyOf(vectors(0), 2))).getMessage());
            float[][] shortOne = vectors(0);
            shortOne[2] = new float[MU - 1];
            assertEquals("rank 2's compact vector must hold μ = 5 floats, got 4",
                    assertThrows(IllegalArgumentException.class, () -> writer.append(0, shortOne)).getMessage());
            float[][] infinite = vectors(0);
            infinite[0][4] = Float.POSITIVE_INFINITY;
            assertEquals("rank 0, position 4: Infinity is not finite",
                    assertThrows(IllegalArgumentException.class, () -> writer.append(0, infinite)).getMessage());
            writer.append(1, vectors(0));
        }
    }

    private static float[][][] write(Path file, int steps) throws IOException {
        float[][][] all = new float[steps][][];
        try (CompactVectorFile.Writer writer = CompactVectorFile.create(file, K, MU, steps)) {
            for (int s = 0; s < steps; s++) {
                all[s] = vectors(s);
                writer.append(s % K, all[s]);
            }
        }
        return all;
    }

    /** Distinct values per step, rank and position, with negatives, subnormals and extremes. */
    private static float[][] vectors(int step) {
        float[][] v = new float[K][MU];
        for (int k = 0; k < K; k++) {
            for (int i = 0; i < MU; i++) {
                v[k][i] = (i % 2 == 0 ? 1 : -1) * (0.5f + step * 100 + k * 10 + i);
            }
        }
        v[K - 1][1] = Float.MIN_VALUE;
        v[K - 1][2] = -Float.MAX_VALUE;
        return v;
    }

    private static byte[] header(int ranks, int mu, int steps) {
        return ByteBuffer.allocate(CompactVectorFile.HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN)
                .put(new byte[] {'L', 'G', 'C', 'V'}).putShort((short) 1).putShort((short) 0).putInt(ranks)
                .putInt(mu).putInt(steps).array();
    }
}

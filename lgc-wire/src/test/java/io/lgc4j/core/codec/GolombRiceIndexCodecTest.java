package io.lgc4j.core.codec;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GolombRiceIndexCodecTest extends IndexCodecContract {
    private static final GolombRiceIndexCodec RICE = new GolombRiceIndexCodec();

    @Override
    IndexCodec codec() {
        return RICE;
    }

    private static byte[] bytes(int... values) {
        byte[] out = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = (byte) values[i];
        }
        return out;
    }

    private static String rejection(byte[] bytes, int n, int maxCount) {
        return assertThrows(CodecException.class, () -> RICE.decode(bytes, n, maxCount)).getMessage();
    }

    @Test
    void shouldChooseTheParameterWithTheFewestBits() {
        for (double density : new double[] {0.00005, 0.001, 0.01, 0.3, 0.9}) {
            int[] indices = IndexSets.uniform(300_000, (int) (density * 300_000), 21);
            int chosen = GolombRiceIndexCodec.bestParameter(indices, indices.length);
            long fewest = Long.MAX_VALUE;
            for (int r = 0; r <= GolombRiceIndexCodec.MAX_PARAMETER; r++) {
                fewest = Math.min(fewest, GolombRiceIndexCodec.codeBits(indices, indices.length, r));
            }
            assertEquals(fewest, GolombRiceIndexCodec.codeBits(indices, indices.length, chosen), "density " + density);
        }
    }

    @Test
    void shouldDecodeWhateverParameterTheStreamCarries() {
        int[] indices = IndexSets.uniform(100_000, 300, 22);
        for (int r = 0; r <= GolombRiceIndexCodec.MAX_PARAMETER; r++) {
            byte[] bytes = GolombRiceIndexCodec.encodeWith(indices, indices.length, r);
            assertEquals(r, bytes[GolombRiceIndexCodec.PARAMETER_OFFSET]);
            assertArrayEquals(indices, RICE.decode(bytes, 100_000, 300));
        }
    }

    @Test
    void shouldStayWithinElevenPointSixBitsPerIndexAtATenthOfAPercent() {
        for (int n : new int[] {1_000_000, 25_000_000}) {
            int[] indices = IndexSets.uniform(n, n / 1_000, 23);
            double bits = 8.0 * RICE.encode(indices, indices.length, n).length / indices.length;
            assertTrue(bits <= 11.6, "n=" + n + ": " + bits + " bits/index");
        }
    }

    @Test
    void shouldWriteTheDocumentedBits() {
        // r = 1 for gaps {3, 3, 4}: 01 1 | 01 1 | 001 0, padded: 0110 1100 1000 0000.
        int[] indices = {3, 7, 12};
        assertEquals(1, GolombRiceIndexCodec.bestParameter(indices, 3));
        assertArrayEquals(bytes(1, 1, 3, 0x6C, 0x80), RICE.encode(indices, 3, 100));
        assertArrayEquals(bytes(1, 0, 0), RICE.encode(new int[0], 0, 100));
    }

    @Test
    void shouldRejectAShortOrUnsupportedHeader() {
        assertEquals("truncated stream: expected a header of at least 3 bytes, found 0", rejection(bytes(), 10, 10));
        assertEquals("truncated stream: expected a header of at least 3 bytes, found 2",
                rejection(bytes(1, 0), 10, 10));
        assertEquals("unsupported format version: expected 1, found 2", rejection(bytes(2, 0, 0), 10, 10));
        assertEquals("bad Rice parameter: expected 0..30, found 31", rejection(bytes(1, 31, 0), 10, 10));
        assertEquals("truncated stream: the count varint is cut off after 3 bytes",
                rejection(bytes(1, 0, 0x80), 10, 10));
        assertEquals("bad count varint: expected at most 32 bits in 5 bytes, found more",
                rejection(bytes(1, 0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01), 10, 10));
    }

    @Test
    void shouldRejectACountTheBytesCannotHoldBeforeAllocating() {
        assertEquals("truncated stream: 1000 indices with Rice parameter 9 need at least 10000 bits, found 80",
                rejection(bytes(1, 9, 0xE8, 0x07, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), 1_000_000, 1_000));
        assertEquals("declared count exceeds maxCount: expected <= 2147483647, found 4294967295",
                rejection(bytes(1, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F), Integer.MAX_VALUE, Integer.MAX_VALUE));
    }

    @Test
    void shouldRejectAQuotientThatRunsPastNBeforeReadingItOut() {
        // count 1, r = 0, then 24 zero bits: the gap is at least 24 but n = 10 allows at most 9.
        assertEquals("index out of range at position 0: expected 0 <= index < n=10, found >= 10",
                rejection(bytes(1, 0, 1, 0, 0, 0, 0x80), 10, 1));
        assertEquals("index out of range at position 2: expected 0 <= index < n=12, found >= 12",
                rejection(RICE.encode(new int[] {3, 7, 12}, 3, 100), 12, 3));
    }

    @Test
    void shouldRejectARemainderThatRunsPastN() {
        // count 1, r = 2: 001 then remainder 11: gap 11.
        assertEquals("index out of range at position 0: expected 0 <= index < n=10, found 11",
                rejection(bytes(1, 2, 1, 0x38), 10, 1));
    }

    @Test
    void shouldRejectACodewordCutOff() {
        assertEquals("truncated stream: index 1 of 2 needs more bits than the 4 bytes hold",
                rejection(bytes(1, 0, 2, 0x80), 10, 2));
        // r = 9: quotient 9 (0000000001), then 9 remainder bits of which only 6 are there.
        assertEquals("truncated stream: index 0 of 1 needs more bits than the 5 bytes hold",
                rejection(bytes(1, 9, 1, 0x00, 0x40), 1_000_000, 1));
    }

    @Test
    void shouldRejectNonZeroPaddingAndExtraBytes() {
        assertArrayEquals(bytes(1, 0, 1, 0x80), RICE.encode(new int[] {0}, 1, 10));
        assertEquals("trailing garbage: expected zero padding bits in the last byte, found 0x1",
                rejection(bytes(1, 0, 1, 0x81), 10, 1));
        assertEquals("trailing garbage: expected 4 bytes, found 5", rejection(bytes(1, 0, 1, 0x80, 0), 10, 1));
    }
}

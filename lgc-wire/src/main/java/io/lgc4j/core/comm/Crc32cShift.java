package io.lgc4j.core.comm;

/**
 * Updates a frame's CRC32C after a few of its bytes changed, without reading the rest of the frame again: a
 * transport stamps the sender and job into the header of a sealed frame whose payload may be 64 MB.
 *
 * <p>CRC32C is affine over GF(2): for two messages of the same length, {@code crc(a) ^ crc(b)} is the CRC with zero
 * initial value and no final xor ({@code crc0}) of {@code a ^ b}. When only bytes {@code [at, at + m)} differ, that
 * is {@code crc0} of those m delta bytes followed by {@code length - at - m} zero bytes; leading zeros do not change
 * {@code crc0}. Appending k zero bytes is a linear map of the 32-bit CRC state, applied here by squaring the map of
 * one zero bit, as zlib's {@code crc32_combine} does: O(log k) 32×32 bit-matrix products instead of k bytes.
 */
final class Crc32cShift {
    /** CRC32C's polynomial, reflected. */
    private static final int POLY = 0x82F63B78;
    private static final int[] TABLE = new int[256];

    static {
        for (int i = 0; i < 256; i++) {
            int c = i;
            for (int k = 0; k < 8; k++) {
                c = (c & 1) != 0 ? (c >>> 1) ^ POLY : c >>> 1;
            }
            TABLE[i] = c;
        }
    }

    private Crc32cShift() {
    }

    /**
     * The CRC32C of a message after bytes {@code [at, at + oldBytes.length)} changed from {@code oldBytes} to
     * {@code newBytes}, given its CRC32C before and the number of bytes that follow the changed region.
     */
    static int update(int crc, byte[] oldBytes, byte[] newBytes, long bytesAfter) {
        int delta = 0;
        for (int i = 0; i < oldBytes.length; i++) {
            delta = (delta >>> 8) ^ TABLE[(delta ^ oldBytes[i] ^ newBytes[i]) & 0xFF];
        }
        return crc ^ appendZeros(delta, bytesAfter);
    }

    /** The {@code crc0} state after {@code bytes} more zero bytes. */
    static int appendZeros(int crc, long bytes) {
        if (crc == 0 || bytes == 0) {
            return crc;
        }
        long left = bytes;
        for (int k = 0; left != 0; k++, left >>>= 1) {
            if ((left & 1) != 0) {
                crc = times(ZEROS[k], crc);
            }
        }
        return crc;
    }

    /**
     * {@code ZEROS[k]}: the map of 2^k zero bytes, k = 0..62, squared once from the map of one zero bit when the class
     * loads (every frame stamp then applies one map per set bit of its length, instead of squaring them again).
     */
    private static final int[][] ZEROS = zeroMaps();

    private static int[][] zeroMaps() {
        int[] bit = new int[32];
        bit[0] = POLY;            // the map of one zero bit
        int row = 1;
        for (int n = 1; n < 32; n++) {
            bit[n] = row;
            row <<= 1;
        }
        int[] two = new int[32];
        int[] four = new int[32];
        square(two, bit);         // two zero bits
        square(four, two);        // four zero bits
        int[][] maps = new int[63][32];
        square(maps[0], four);    // one zero byte
        for (int k = 1; k < maps.length; k++) {
            square(maps[k], maps[k - 1]);
        }
        return maps;
    }

    private static int times(int[] matrix, int vector) {
        int sum = 0;
        for (int i = 0; vector != 0; i++, vector >>>= 1) {
            if ((vector & 1) != 0) {
                sum ^= matrix[i];
            }
        }
        return sum;
    }

    private static void square(int[] square, int[] matrix) {
        for (int n = 0; n < 32; n++) {
            square[n] = times(matrix, matrix[n]);
        }
    }
}

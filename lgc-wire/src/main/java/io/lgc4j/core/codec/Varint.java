package io.lgc4j.core.codec;

/**
 * Unsigned LEB128 of 32-bit values: seven bits a byte, least significant group first, the high bit set on every byte
 * but the last. At most five bytes.
 */
final class Varint {
    /** Bytes of the longest varint this code writes or reads (32 bits need five groups of seven). */
    static final int MAX_LENGTH = 5;
    /** {@link #read} result: the bytes ended inside the varint. */
    static final long CUT_OFF = -1;
    /** {@link #read} result: more than {@link #MAX_LENGTH} bytes, or a value above 32 bits. */
    static final long TOO_LONG = -2;

    private Varint() {
    }

    /** Bytes {@link #write} uses for {@code value} (0 .. 2^32 - 1). */
    static int length(long value) {
        int length = 1;
        while (value >= 0x80) {
            value >>>= 7;
            length++;
        }
        return length;
    }

    /** Writes {@code value} (0 .. 2^32 - 1) at {@code position} and returns the position after it. */
    static int write(byte[] out, int position, long value) {
        while (value >= 0x80) {
            out[position++] = (byte) (value | 0x80);
            value >>>= 7;
        }
        out[position++] = (byte) value;
        return position;
    }

    /**
     * Reads the varint at {@code cursor[0]} within {@code [cursor[0], end)}, advancing {@code cursor[0]} past it.
     *
     * @return the value (0 .. 2^32 - 1), {@link #CUT_OFF} or {@link #TOO_LONG}
     */
    static long read(byte[] bytes, int[] cursor, int end) {
        int position = cursor[0];
        long value = 0;
        for (int shift = 0; shift < 7 * MAX_LENGTH; shift += 7) {
            if (position >= end) {
                return CUT_OFF;
            }
            int b = bytes[position++];
            value |= (long) (b & 0x7F) << shift;
            if (b >= 0) {
                cursor[0] = position;
                return value > 0xFFFF_FFFFL ? TOO_LONG : value;
            }
        }
        return TOO_LONG;
    }
}

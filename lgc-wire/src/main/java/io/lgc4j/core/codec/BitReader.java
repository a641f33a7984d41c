package io.lgc4j.core.codec;

/**
 * Reads bits most significant first from {@code [from, end)} of an array. Every read checks the bits left: running
 * out is a return value ({@code -1}), never an exception or a read past {@code end}, so the caller words the error.
 */
final class BitReader {
    private final byte[] in;
    private final int end;
    /** Next byte to load into the window. */
    private int position;
    /** Unread bits, left-aligned: the next bit is bit 63. At most 56 valid bits, so a shift never reaches 64. */
    private long window;
    private int bits;

    BitReader(byte[] in, int from, int end) {
        this.in = in;
        this.position = from;
        this.end = end;
    }

    private void refill() {
        while (bits <= 48 && position < end) {
            window |= (long) (in[position++] & 0xFF) << (56 - bits);
            bits += 8;
        }
    }

    /** Bits not yet read. */
    long remainingBits() {
        return bits + 8L * (end - position);
    }

    /** Bytes touched so far: the position just after the last bit read. */
    int bytesConsumed(int from) {
        long consumedBits = 8L * (position - from) - bits;
        return (int) ((consumedBits + 7) >>> 3);
    }

    /** The bits left in the current byte, as an int, without consuming them ({@code bits < 8} expected). */
    int peekRemaining() {
        return bits == 0 ? 0 : (int) (window >>> (64 - bits));
    }

    /**
     * Reads a unary number: zero bits up to and including a one bit.
     *
     * @return the number of zeros; {@code limit + 1} as soon as it is known to exceed {@code limit} (the rest is then
     *     left unread); {@code -1} if the bits end first
     */
    long readUnary(long limit) {
        long zeros = 0;
        while (true) {
            if (bits == 0) {
                refill();
                if (bits == 0) {
                    return -1;
                }
            }
            int leading = Long.numberOfLeadingZeros(window);
            if (leading < bits) {
                zeros += leading;
                window <<= leading + 1;
                bits -= leading + 1;
                return zeros > limit ? limit + 1 : zeros;
            }
            zeros += bits;
            window = 0;
            bits = 0;
            if (zeros > limit) {
                return limit + 1;
            }
        }
    }

    /** Reads {@code length} bits ({@code 0 <= length <= 31}) as an unsigned int, or {@code -1} if fewer remain. */
    int read(int length) {
        if (length == 0) {
            return 0;
        }
        if (bits < length) {
            refill();
            if (bits < length) {
                return -1;
            }
        }
        int value = (int) (window >>> (64 - length));
        window <<= length;
        bits -= length;
        return value;
    }
}

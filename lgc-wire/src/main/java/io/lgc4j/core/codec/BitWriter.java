package io.lgc4j.core.codec;

/** Writes bits most significant first into an array sized in advance by the caller. */
final class BitWriter {
    private final byte[] out;
    private int position;
    /** Pending bits, right-aligned; fewer than 8 between calls. */
    private long pending;
    private int pendingBits;

    BitWriter(byte[] out, int position) {
        this.out = out;
        this.position = position;
    }

    /** Writes the low {@code length} bits of {@code value}, {@code 0 <= length <= 56}. */
    void write(long value, int length) {
        pending = (pending << length) | (value & ((1L << length) - 1));
        pendingBits += length;
        while (pendingBits >= 8) {
            pendingBits -= 8;
            out[position++] = (byte) (pending >>> pendingBits);
        }
    }

    /** Writes {@code count} zero bits. */
    void writeZeros(long count) {
        while (count > 48) {
            write(0, 48);
            count -= 48;
        }
        write(0, (int) count);
    }

    /** Pads the last byte with zero bits and returns the position after it. */
    int finish() {
        if (pendingBits > 0) {
            write(0, 8 - pendingBits);
        }
        return position;
    }
}

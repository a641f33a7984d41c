package io.lgc4j.core.codec;

/**
 * The near-entropy index codec: gaps {@code d_i = x_i - x_(i-1) - 1} ({@code x_(-1) = -1}) coded with a Golomb-Rice
 * code, bit-packed. Version {@link #FORMAT_VERSION}: version (1 byte), Rice parameter r in 0..{@link #MAX_PARAMETER}
 * (1 byte), count k (LEB128), then k codewords MSB first ({@code d_i >> r} zero bits, a one bit, the low r bits),
 * the last byte zero-padded. The encoder picks the r that makes the stream shortest.
 *
 * <p>The decoder checks that k codewords fit in the bytes before allocating and stops a quotient as soon as its index
 * would reach {@code n}.
 *
 * <pre>{@code
 * IndexCodec rice = new GolombRiceIndexCodec();
 * int[] back = rice.decode(rice.encode(indices, k, n), n, k);
 * }</pre>
 */
final class GolombRiceIndexCodec implements IndexCodec {
    /** The version this code writes and reads. */
    public static final int FORMAT_VERSION = 1;
    /** The largest Rice parameter; gaps are below 2^31, so a larger one never helps. */
    public static final int MAX_PARAMETER = 30;
    /** The name in {@link IndexCodecs}. */
    public static final String NAME = "rice";

    static final int VERSION_OFFSET = 0;
    static final int PARAMETER_OFFSET = 1;
    static final int COUNT_OFFSET = 2;

    /** Creates the codec; it has no settings. */
    public GolombRiceIndexCodec() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String toString() {
        return NAME;
    }

    @Override
    public byte[] encode(int[] sortedIndices, int count, int n) {
        Indices.checkEncodeArguments(sortedIndices, count, n);
        int parameter = bestParameter(sortedIndices, count);
        return encodeWith(sortedIndices, count, parameter);
    }

    /** Encodes with a given parameter; the public method picks the best one. */
    static byte[] encodeWith(int[] sortedIndices, int count, int parameter) {
        int header = COUNT_OFFSET + Varint.length(count);
        long bits = codeBits(sortedIndices, count, parameter);
        byte[] out = new byte[Math.toIntExact(header + (bits + 7) / 8)];
        out[VERSION_OFFSET] = (byte) FORMAT_VERSION;
        out[PARAMETER_OFFSET] = (byte) parameter;
        Varint.write(out, COUNT_OFFSET, count);
        BitWriter writer = new BitWriter(out, header);
        int previous = -1;
        for (int i = 0; i < count; i++) {
            int gap = sortedIndices[i] - previous - 1;
            previous = sortedIndices[i];
            int quotient = gap >>> parameter;
            // The one that ends the unary part and the remainder go out in one write.
            long tail = (1L << parameter) | (gap & ((1L << parameter) - 1));
            if (quotient + parameter + 1 <= 56) {
                writer.write(tail, quotient + parameter + 1);
            } else {
                writer.writeZeros(quotient);
                writer.write(tail, parameter + 1);
            }
        }
        writer.finish();
        return out;
    }

    /** Bits of the codewords of the first {@code count} gaps with Rice parameter {@code parameter}. */
    static long codeBits(int[] sortedIndices, int count, int parameter) {
        long bits = (long) count * (parameter + 1);
        int previous = -1;
        for (int i = 0; i < count; i++) {
            bits += (sortedIndices[i] - previous - 1) >>> parameter;
            previous = sortedIndices[i];
        }
        return bits;
    }

    /** The parameter with the fewest code bits (the smallest such one near the start of the walk on ties). */
    static int bestParameter(int[] sortedIndices, int count) {
        if (count == 0) {
            return 0;
        }
        long gapSum = (long) sortedIndices[count - 1] + 1 - count;
        int parameter = Math.min(MAX_PARAMETER, 63 - Long.numberOfLeadingZeros(Math.max(1, gapSum / count)));
        long bits = codeBits(sortedIndices, count, parameter);
        while (parameter > 0) {
            long down = codeBits(sortedIndices, count, parameter - 1);
            if (down > bits) {
                break;
            }
            parameter--;
            bits = down;
        }
        while (parameter < MAX_PARAMETER) {
            long up = codeBits(sortedIndices, count, parameter + 1);
            if (up >= bits) {
                break;
            }
            parameter++;
            bits = up;
        }
        return parameter;
    }

    @Override
    public int[] decode(byte[] bytes, int n, int maxCount) {
        Indices.checkDecodeArguments(bytes, n, maxCount);
        if (bytes.length < COUNT_OFFSET + 1) {
            throw new CodecException("truncated stream: expected a header of at least " + (COUNT_OFFSET + 1)
                    + " bytes, found " + bytes.length);
        }
        int version = bytes[VERSION_OFFSET] & 0xFF;
        if (version != FORMAT_VERSION) {
            throw CodecException.unsupportedVersion(FORMAT_VERSION, version);
        }
        int parameter = bytes[PARAMETER_OFFSET] & 0xFF;
        if (parameter > MAX_PARAMETER) {
            throw new CodecException("bad Rice parameter: expected 0.." + MAX_PARAMETER + ", found " + parameter);
        }
        int[] cursor = {COUNT_OFFSET};
        long declared = Varint.read(bytes, cursor, bytes.length);
        if (declared == Varint.CUT_OFF) {
            throw new CodecException("truncated stream: the count varint is cut off after " + bytes.length
                    + " bytes");
        }
        if (declared == Varint.TOO_LONG) {
            throw new CodecException("bad count varint: expected at most 32 bits in " + Varint.MAX_LENGTH
                    + " bytes, found more");
        }
        int count = Indices.checkDeclaredCount(declared, n, maxCount);
        int header = cursor[0];
        BitReader reader = new BitReader(bytes, header, bytes.length);
        long minimumBits = (long) count * (parameter + 1);
        if (minimumBits > reader.remainingBits()) {
            throw new CodecException("truncated stream: " + count + " indices with Rice parameter " + parameter
                    + " need at least " + minimumBits + " bits, found " + reader.remainingBits());
        }
        int[] indices = new int[count];
        long previous = -1;
        for (int i = 0; i < count; i++) {
            // The largest gap that keeps this index below n; a longer quotient is rejected before it is read out.
            long maxGap = n - 2 - previous;
            long maxQuotient = maxGap < 0 ? -1 : maxGap >>> parameter;
            long quotient = reader.readUnary(maxQuotient);
            if (quotient < 0) {
                throw truncated(i, count, bytes.length);
            }
            if (quotient > maxQuotient) {
                throw CodecException.indexAtLeast(i, n, previous + 1 + (quotient << parameter));
            }
            int remainder = reader.read(parameter);
            if (remainder < 0) {
                throw truncated(i, count, bytes.length);
            }
            long index = previous + 1 + ((quotient << parameter) | remainder);
            if (index >= n) {
                throw CodecException.indexOutOfRange(i, n, index);
            }
            indices[i] = (int) index;
            previous = index;
        }
        int expectedLength = header + reader.bytesConsumed(header);
        if (bytes.length != expectedLength) {
            throw new CodecException("trailing garbage: expected " + expectedLength + " bytes, found "
                    + bytes.length);
        }
        int padding = reader.peekRemaining();
        if (padding != 0) {
            throw new CodecException("trailing garbage: expected zero padding bits in the last byte, found 0x"
                    + Integer.toHexString(padding));
        }
        return indices;
    }

    private static CodecException truncated(int position, int count, int length) {
        return new CodecException("truncated stream: index " + position + " of " + count
                + " needs more bits than the " + length + " bytes hold");
    }
}

package io.lgc4j.core.codec;

/**
 * A byte stream an {@link IndexCodec} cannot decode: truncated, a bad header or version, a declared count above the
 * caller's bound, an index out of range or out of order, or bytes left over. The message says what was expected and
 * what was found.
 */
public final class CodecException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Creates the exception with a message naming the expected and the found value. */
    public CodecException(String message) {
        super(message);
    }

    static CodecException countAboveMax(long count, int maxCount) {
        return new CodecException("declared count exceeds maxCount: expected <= " + maxCount + ", found " + count);
    }

    static CodecException countAboveN(long count, int n) {
        return new CodecException("declared count exceeds n: expected <= " + n + ", found " + count);
    }

    static CodecException indexOutOfRange(int position, int n, long found) {
        return new CodecException("index out of range at position " + position + ": expected 0 <= index < n=" + n
                + ", found " + found);
    }

    static CodecException indexAtLeast(int position, int n, long atLeast) {
        return new CodecException("index out of range at position " + position + ": expected 0 <= index < n=" + n
                + ", found >= " + atLeast);
    }

    static CodecException nonMonotone(int position, long previous, long found) {
        return new CodecException("non-monotone index at position " + position + ": expected > " + previous
                + ", found " + found);
    }

    static CodecException unsupportedVersion(int expected, int found) {
        return new CodecException("unsupported format version: expected " + expected + ", found " + found);
    }
}

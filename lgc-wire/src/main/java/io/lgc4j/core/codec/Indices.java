package io.lgc4j.core.codec;

import java.util.Objects;

/** Argument checks every codec shares, so that every codec rejects bad input with the same message. */
final class Indices {

    private Indices() {
    }

    static void checkEncodeArguments(int[] sortedIndices, int count, int n) {
        Objects.requireNonNull(sortedIndices, "sortedIndices");
        if (n < 0) {
            throw new IllegalArgumentException("n must be >= 0, found " + n);
        }
        if (count < 0 || count > sortedIndices.length) {
            throw new IllegalArgumentException("count must be in [0, " + sortedIndices.length
                    + "] (the array length), found " + count);
        }
        int previous = -1;
        for (int i = 0; i < count; i++) {
            int index = sortedIndices[i];
            if (index <= previous) {
                if (index < 0) {
                    throw new IllegalArgumentException("sortedIndices[" + i + "] = " + index + " is negative");
                }
                throw new IllegalArgumentException("sortedIndices[" + i + "] = " + index
                        + " is not greater than sortedIndices[" + (i - 1) + "] = " + previous
                        + " (indices must be strictly increasing)");
            }
            if (index >= n) {
                throw new IllegalArgumentException("sortedIndices[" + i + "] = " + index + " is not < n = " + n);
            }
            previous = index;
        }
    }

    static void checkDecodeArguments(byte[] bytes, int n, int maxCount) {
        Objects.requireNonNull(bytes, "bytes");
        if (n < 0) {
            throw new IllegalArgumentException("n must be >= 0, found " + n);
        }
        if (maxCount < 0) {
            throw new IllegalArgumentException("maxCount must be >= 0, found " + maxCount);
        }
    }

    /** Checks a declared count against the caller's bound first, then against what {@code n} can hold. */
    static int checkDeclaredCount(long count, int n, int maxCount) {
        if (count > maxCount) {
            throw CodecException.countAboveMax(count, maxCount);
        }
        if (count > n) {
            throw CodecException.countAboveN(count, n);
        }
        return (int) count;
    }
}

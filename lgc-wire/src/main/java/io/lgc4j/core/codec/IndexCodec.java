package io.lgc4j.core.codec;

/**
 * Sorted indices ⇄ bytes: how the positions of a sparse gradient cross the wire. An encoder takes the first
 * {@code count} entries of a strictly increasing array in {@code [0, n)} and writes only them ({@code n} is known to
 * the receiver). A decoder is written for hostile input: it checks the declared count against {@code maxCount} and
 * {@code n} before allocating (memory bounded by a small multiple of {@code min(maxCount, n)}), never returns an
 * index out of range or order, and rejects leftovers; every failure is a {@link CodecException}.
 *
 * <p>Implementations are stateless and thread-safe; choose one with {@link IndexCodecs#byName(String)}.
 *
 * <pre>{@code
 * byte[] wire = codec.encode(indices, k, n);        // indices[0..k) strictly increasing, each in [0, n)
 * int[] back = codec.decode(wire, n, k);            // throws CodecException on a corrupt or hostile stream
 * }</pre>
 */
public interface IndexCodec {

    /** The name this codec has in {@link IndexCodecs} (and in configs), e.g. {@code "deflate-gaps-varint"}. */
    String name();

    /**
     * Encodes {@code sortedIndices[0..count)}.
     *
     * @param sortedIndices strictly increasing indices, each in {@code [0, n)}; only the first {@code count} are read
     * @param count how many indices to encode, in {@code [0, sortedIndices.length]}
     * @param n the length of the vector the indices point into, {@code >= 0}
     * @return the encoded bytes, a new array
     * @throws IllegalArgumentException if an argument is out of range or an index is out of order or out of
     *     {@code [0, n)}; the message names the position
     */
    byte[] encode(int[] sortedIndices, int count, int n);

    /**
     * Decodes bytes written by {@link #encode} (with the same {@code n}).
     *
     * @param bytes exactly one encoded set; trailing bytes are an error
     * @param n the length of the vector the indices point into; every decoded index is {@code < n}
     * @param maxCount the most indices the caller accepts; a larger declared count is rejected before allocating
     * @return the indices, strictly increasing, an array of exactly the decoded count
     * @throws CodecException if the bytes are not a valid encoding within these bounds
     * @throws IllegalArgumentException if {@code n} or {@code maxCount} is negative
     */
    int[] decode(byte[] bytes, int n, int maxCount);
}

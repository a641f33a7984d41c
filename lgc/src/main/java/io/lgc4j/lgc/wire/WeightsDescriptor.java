package io.lgc4j.lgc.wire;

/**
 * The layout of one part of a trained autoencoder as it ships in an {@link io.lgc4j.core.comm.TrafficKind#AE_WEIGHTS}
 * frame ({@link Weights}), written and read by {@code io.lgc4j.lgc.autoencoder.WeightCodec}; little-endian.
 * <pre>
 *  offset  size  field
 *  0       4     magic "LGCW" (bytes 4C 47 43 57)
 *  4       2     version ({@value #VERSION})
 *  6       1     part: {@value #PART_ENCODER} encoder, {@value #PART_RING_DECODER} ring decoder,
 *                {@value #PART_PS_DECODER} parameter-server decoder, {@value #PART_LINEAR} the ring's linear code
 *                (its basis, encoder and decoder at once)
 *  7       1     reserved, 0
 *  8       4     μ, the compact-vector length the weights were trained for (int32)
 *  12      2     tensor count T (uint16)
 *  14            T tensors in the part's fixed order: name length N (uint16, at most {@value #MAX_NAME_LENGTH}),
 *                N bytes of UTF-8 name, rank r (uint8, at most {@value #MAX_RANK}), r dimensions (int32 each),
 *                then float32 values, row-major, as many as the product of the dimensions
 *  end-4   4     CRC32C of every byte before it
 * </pre>
 */
public final class WeightsDescriptor {
    /** The magic bytes "LGCW". */
    public static final byte[] MAGIC = {'L', 'G', 'C', 'W'};
    /** The version this build writes and reads. */
    public static final int VERSION = 1;
    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = 4;
    public static final int PART_OFFSET = 6;
    public static final int RESERVED_OFFSET = 7;
    public static final int MU_OFFSET = 8;
    public static final int TENSOR_COUNT_OFFSET = 12;
    /** Bytes before the first tensor. */
    public static final int HEADER_LENGTH = 14;
    /** Bytes after the last tensor (the CRC32C). */
    public static final int TRAILER_LENGTH = 4;
    /** The shortest form: a header, no tensor, the checksum. */
    public static final int MIN_LENGTH = HEADER_LENGTH + TRAILER_LENGTH;
    /** Bytes of a tensor's name length (uint16). */
    public static final int NAME_LENGTH_SIZE = 2;
    /** Bytes of a tensor's rank (uint8). */
    public static final int RANK_SIZE = 1;
    /** Bytes per dimension (int32). */
    public static final int DIMENSION_SIZE = 4;
    /** Bytes per value (float32). */
    public static final int VALUE_SIZE = 4;
    /** The longest tensor name a reader accepts, in bytes. */
    public static final int MAX_NAME_LENGTH = 256;
    /** The highest tensor rank a reader accepts. */
    public static final int MAX_RANK = 8;
    /** Part id of the encoder E_c (both topologies). */
    public static final int PART_ENCODER = 1;
    /** Part id of the ring's decoder D_c. */
    public static final int PART_RING_DECODER = 2;
    /** Part id of one of the parameter server's decoders D_c^k. */
    public static final int PART_PS_DECODER = 3;
    /** Part id of LGC-RAR's linear code: one tensor, the basis [f, μ], that both encodes and decodes. */
    public static final int PART_LINEAR = 4;

    private WeightsDescriptor() {
    }

    /** Bytes of one tensor entry: a name of {@code nameLength} bytes, {@code rank} dimensions, {@code values}. */
    public static long tensorLength(int nameLength, int rank, long values) {
        return NAME_LENGTH_SIZE + nameLength + RANK_SIZE + (long) DIMENSION_SIZE * rank + VALUE_SIZE * values;
    }
}

package io.lgc4j.core.comm;

/**
 * Layout of a frame on the wire, version 2. All multi-byte fields are little-endian.
 *
 * <pre>
 *  offset  size  field
 *  0       4     magic 0x3443474C ("LGC4" in ASCII, as the bytes 4C 47 43 34)
 *  4       1     version (2)
 *  5       1     kind: {@link TrafficKind#wireId()}
 *  6       1     stage: {@link io.lgc4j.core.stage.Stage#wireId()}
 *  7       1     flags: bits 0–1 the value encoding of a float payload (0 fp32, 1 fp16, 2 bf16; 3 reserved),
 *                bits 2–7 reserved (0)
 *  8       4     step (signed; -1 outside a training step)
 *  12      4     payload length in bytes, L
 *  16      2     sender endpoint (unsigned), stamped by the transport that sends the frame
 *  18      2     stream (unsigned): which of a step's parallel streams (a server shard, a fusion bucket); 0 for
 *                the only one
 *  20      4     job id: the session all endpoints of one run share, stamped by the transport
 *  24      L     payload
 *  24+L    4     CRC32C of bytes [0, 24+L)
 * </pre>
 *
 * <p>The flags byte was always 0 before half precision: an fp32 frame is byte for byte what it was. Only float payloads
 * ({@link io.lgc4j.core.comm.ValueEncoding}) set the value-encoding bits; a decoder rejects a reserved bit or
 * the reserved encoding 3 with a message that names them.
 *
 * <p>Version 1 (until the network runtime) had a 16-byte header without sender, stream and job; decoders reject it
 * and say so.
 */
public final class FrameDescriptor {
    /** "LGC4" read as a little-endian int. */
    public static final int MAGIC = 0x3443474C;
    /** The only version this code writes and reads. */
    public static final int VERSION = 2;
    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = 4;
    public static final int KIND_OFFSET = 5;
    public static final int STAGE_OFFSET = 6;
    public static final int FLAGS_OFFSET = 7;
    /** Bits of the flags byte that hold a float payload's value encoding (0 fp32, 1 fp16, 2 bf16). */
    public static final int FLAGS_VALUE_ENCODING_MASK = 0x03;
    /** The largest value encoding the flags may name; 3 is reserved. */
    public static final int FLAGS_MAX_VALUE_ENCODING = 2;
    /** Bits of the flags byte that must be 0. */
    public static final int FLAGS_RESERVED_MASK = 0xFC;
    public static final int STEP_OFFSET = 8;
    public static final int LENGTH_OFFSET = 12;
    public static final int SENDER_OFFSET = 16;
    public static final int STREAM_OFFSET = 18;
    public static final int JOB_OFFSET = 20;
    /** Bytes before the payload. */
    public static final int HEADER_LENGTH = 24;
    /** Bytes after the payload (the CRC32C). */
    public static final int TRAILER_LENGTH = 4;
    /** Header plus trailer: what every frame costs on top of its payload. */
    public static final int OVERHEAD = HEADER_LENGTH + TRAILER_LENGTH;
    /** Largest payload a frame may declare (1 GiB); a decoder rejects more before allocating anything. */
    public static final int MAX_PAYLOAD_LENGTH = 1 << 30;
    /** Endpoints and streams are unsigned 16-bit fields. */
    public static final int MAX_ENDPOINT = 0xFFFF;

    private FrameDescriptor() {
    }

    /**
     * Why {@code flags} is not a flags byte this version writes, or {@code null} when it is one: a reserved bit set,
     * or the reserved value encoding 3.
     */
    public static String flagsError(int flags) {
        if (flags < 0 || flags > 0xFF || (flags & FLAGS_RESERVED_MASK) != 0) {
            return String.format("unsupported frame flags 0x%02X: bits 2-7 are reserved and must be 0", flags);
        }
        if ((flags & FLAGS_VALUE_ENCODING_MASK) > FLAGS_MAX_VALUE_ENCODING) {
            return String.format("unsupported frame flags 0x%02X: value encoding 3 in bits 0-1 is reserved"
                    + " (0 fp32, 1 fp16, 2 bf16)", flags);
        }
        return null;
    }

    /** Bytes on the wire of a frame whose payload has {@code payloadLength} bytes. */
    public static int frameLength(int payloadLength) {
        return OVERHEAD + payloadLength;
    }
}

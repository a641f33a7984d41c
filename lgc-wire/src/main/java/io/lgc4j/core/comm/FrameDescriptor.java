package io.lgc4j.core.comm;

/**
 * Layout of a frame on the wire, version 2; all multi-byte fields little-endian.
 *
 * <pre>
 *  0 magic 0x3443474C ("LGC4") | 4 version 2 | 5 kind ({@link TrafficKind#wireId()})
 *  6 stage ({@link io.lgc4j.core.stage.Stage#wireId()}) | 7 flags: bits 0–1 value encoding (0 fp32, 1 fp16, 2 bf16)
 *  8 step (int32, -1 outside a step) | 12 payload length L | 16 sender endpoint (uint16, stamped by the transport)
 *  18 stream (uint16, 0 for the only one) | 20 job id (stamped by the transport) | 24 payload
 *  24+L CRC32C of bytes [0, 24+L)
 * </pre>
 *
 * <p>Only float payloads ({@link io.lgc4j.core.comm.ValueEncoding}) set the encoding bits; decoders reject reserved
 * flag bits, encoding 3 and version 1 frames with a message naming them.
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

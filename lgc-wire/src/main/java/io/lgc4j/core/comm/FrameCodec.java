package io.lgc4j.core.comm;

import io.lgc4j.core.stage.Stage;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

import static io.lgc4j.core.comm.FrameDescriptor.*;

/**
 * Writes and checks frames in the layout of {@link FrameDescriptor}.
 *
 * <p>Writing is in place: {@link #allocate} gives a buffer whose payload region the caller fills directly (one copy
 * from the tensor to the wire), then {@link #seal} writes header and CRC. Reading never allocates: {@link #decode}
 * checks every field against the bytes at hand and returns a view of the payload.
 *
 * <pre>{@code
 * ByteBuffer frame = FrameCodec.allocate(4 * values.length);
 * frame.asFloatBuffer().put(values);            // little-endian view at the payload offset
 * byte[] wire = FrameCodec.seal(frame, TrafficKind.VALUES, Stage.FULL, step);
 * Frame decoded = FrameCodec.decode(wire);      // throws FrameException on any inconsistency
 * }</pre>
 */
public final class FrameCodec {

    private FrameCodec() {
    }

    /**
     * A buffer for one frame with room for {@code payloadLength} payload bytes: little-endian, its position at the
     * payload's first byte and its limit at the payload's end. Fill the payload, then call {@link #seal}.
     */
    public static ByteBuffer allocate(int payloadLength) {
        if (payloadLength < 0 || payloadLength > MAX_PAYLOAD_LENGTH) {
            throw new IllegalArgumentException("payload length must be in [0, " + MAX_PAYLOAD_LENGTH + "], found "
                    + payloadLength);
        }
        ByteBuffer buffer = ByteBuffer.wrap(new byte[frameLength(payloadLength)]).order(ByteOrder.LITTLE_ENDIAN);
        buffer.position(HEADER_LENGTH).limit(HEADER_LENGTH + payloadLength);
        return buffer.slice().order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * Writes the header and CRC around a payload filled in a buffer from {@link #allocate} and returns the frame's
     * bytes. The payload buffer's position is ignored: its whole capacity is the payload.
     */
    public static byte[] seal(ByteBuffer payload, TrafficKind kind, Stage stage, int step) {
        return seal(payload, kind, stage, step, 0);
    }

    /** As {@link #seal(ByteBuffer, TrafficKind, Stage, int)}, for one of a step's parallel {@code stream}s. */
    public static byte[] seal(ByteBuffer payload, TrafficKind kind, Stage stage, int step, int stream) {
        return seal(payload, kind, stage, step, stream, 0);
    }

    /**
     * As {@link #seal(ByteBuffer, TrafficKind, Stage, int, int)}, with the header's {@code flags} byte (a float
     * payload's value encoding, {@link FrameDescriptor#FLAGS_VALUE_ENCODING_MASK}).
     */
    public static byte[] seal(ByteBuffer payload, TrafficKind kind, Stage stage, int step, int stream, int flags) {
        if (!payload.hasArray() || payload.arrayOffset() != HEADER_LENGTH) {
            throw new IllegalArgumentException("payload buffer must come from FrameCodec.allocate");
        }
        byte[] bytes = payload.array();
        sealFrame(ByteBuffer.wrap(bytes, 0, frameLength(payload.capacity())).slice(), kind, stage, step, stream,
                flags);
        return bytes;
    }

    /**
     * Writes header and CRC of the frame that fills {@code frame} from index 0 to its capacity (heap or direct), its
     * payload already in place.
     */
    static void sealFrame(ByteBuffer frame, TrafficKind kind, Stage stage, int step, int stream, int flags) {
        String badFlags = flagsError(flags);
        if (badFlags != null) {
            throw new IllegalArgumentException(badFlags);
        }
        if (stream < 0 || stream > MAX_ENDPOINT) {
            throw new IllegalArgumentException("stream must be in [0, " + MAX_ENDPOINT + "], found " + stream);
        }
        if (kind == TrafficKind.HEADER) {
            throw new IllegalArgumentException("HEADER is a meter category, not a frame kind");
        }
        ByteBuffer b = frame.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        int payloadLength = b.capacity() - OVERHEAD;
        b.putInt(MAGIC_OFFSET, MAGIC);
        b.put(VERSION_OFFSET, (byte) VERSION);
        b.put(KIND_OFFSET, (byte) kind.wireId());
        b.put(STAGE_OFFSET, (byte) stage.wireId());
        b.put(FLAGS_OFFSET, (byte) flags);
        b.putInt(STEP_OFFSET, step);
        b.putInt(LENGTH_OFFSET, payloadLength);
        b.putShort(SENDER_OFFSET, (short) 0);
        b.putShort(STREAM_OFFSET, (short) stream);
        b.putInt(JOB_OFFSET, 0);
        b.putInt(HEADER_LENGTH + payloadLength, crc(b, HEADER_LENGTH + payloadLength));
    }

    /** CRC32C of {@code frame}'s bytes [0, length), heap or direct. */
    private static int crc(ByteBuffer frame, int length) {
        CRC32C crc = new CRC32C();
        crc.update(frame.duplicate().limit(length).position(0));
        return (int) crc.getValue();
    }

    /**
     * Writes the sender endpoint and the job id into a sealed frame (and its CRC), as a transport does when it puts
     * the frame on a link. A frame that already carries them is left untouched, so the same bytes can be sent to
     * several peers (a broadcast) while receivers read them.
     */
    public static void stamp(byte[] frame, int sender, int job) {
        stamp(ByteBuffer.wrap(frame), sender, job);
    }

    /** As {@link #stamp(byte[], int, int)}, for the frame that fills {@code frame} from index 0 to its capacity. */
    static void stamp(ByteBuffer frame, int sender, int job) {
        if (sender < 0 || sender > MAX_ENDPOINT) {
            throw new IllegalArgumentException("sender endpoint must be in [0, " + MAX_ENDPOINT + "], found " + sender);
        }
        ByteBuffer b = frame.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        if ((b.getShort(SENDER_OFFSET) & 0xFFFF) == sender && b.getInt(JOB_OFFSET) == job) {
            return;
        }
        byte[] before = new byte[HEADER_LENGTH - SENDER_OFFSET];
        b.get(SENDER_OFFSET, before);
        b.putShort(SENDER_OFFSET, (short) sender);
        b.putInt(JOB_OFFSET, job);
        byte[] after = new byte[HEADER_LENGTH - SENDER_OFFSET];
        b.get(SENDER_OFFSET, after);
        int end = b.capacity() - TRAILER_LENGTH;
        // only the header changed: update the CRC from the old one instead of reading the payload again
        b.putInt(end, Crc32cShift.update(b.getInt(end), before, after, end - HEADER_LENGTH));
    }

    /** Encodes a frame around a copy of {@code payload}'s remaining bytes. */
    public static byte[] encode(TrafficKind kind, Stage stage, int step, ByteBuffer payload) {
        ByteBuffer frame = allocate(payload.remaining());
        frame.put(payload.duplicate());
        return seal(frame, kind, stage, step);
    }

    /**
     * Checks a frame and returns it decoded. The frame must be exactly {@code bytes}: trailing bytes are an error.
     *
     * @throws FrameException saying what was expected and what was found
     */
    public static Frame decode(byte[] bytes) {
        return decode(ByteBuffer.wrap(bytes), true);
    }

    /**
     * As {@link #decode(byte[])}, for a frame in {@code frame}'s bytes [position, limit), heap or direct (a network
     * transport's receive buffer): the returned payload is a view of those bytes.
     */
    public static Frame decode(ByteBuffer frame) {
        return decode(frame, true);
    }

    /**
     * Reads a frame this process sealed itself, checking its structure but not recomputing its CRC (the sender's
     * meter reads the header back instead of trusting its caller).
     */
    static Frame peek(byte[] bytes) {
        return decode(ByteBuffer.wrap(bytes), false);
    }

    /** As {@link #peek(byte[])}, for a sealed frame in {@code frame}'s bytes [position, limit). */
    static Frame peek(ByteBuffer frame) {
        return decode(frame, false);
    }

    /** A copy of {@code frame} on the heap: the same fields, its payload in an array of its own. */
    public static Frame copy(Frame frame) {
        byte[] bytes = new byte[frame.payloadLength()];
        frame.payload().duplicate().get(bytes);
        ByteBuffer payload = ByteBuffer.wrap(bytes).asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN);
        return new Frame(frame.kind(), frame.stage(), frame.flags(), frame.step(), frame.sender(), frame.stream(), frame.job(),
                payload, frame.wireLength());
    }

    private static Frame decode(ByteBuffer bytes, boolean checkCrc) {
        ByteBuffer frame = bytes.slice().order(ByteOrder.LITTLE_ENDIAN);
        int length = frame.capacity();
        if (length < OVERHEAD) {
            throw new FrameException("truncated frame: " + length + " bytes, a frame needs at least " + OVERHEAD);
        }
        int magic = frame.getInt(MAGIC_OFFSET);
        if (magic != MAGIC) {
            throw new FrameException(String.format("bad frame magic: expected 0x%08X, found 0x%08X", MAGIC, magic));
        }
        int version = frame.get(VERSION_OFFSET) & 0xFF;
        if (version == 1) {
            throw new FrameException("unsupported frame version: expected " + VERSION + ", found 1 (the 16-byte header"
                    + " of LGC4J before the network runtime, without sender, stream and job id: both ends must run the"
                    + " same LGC4J)");
        }
        if (version != VERSION) {
            throw new FrameException("unsupported frame version: expected " + VERSION + ", found " + version);
        }
        int payloadLength = frame.getInt(LENGTH_OFFSET);
        if (payloadLength < 0 || payloadLength > MAX_PAYLOAD_LENGTH) {
            throw new FrameException("frame payload length out of range: expected 0.." + MAX_PAYLOAD_LENGTH
                    + ", found " + Integer.toUnsignedString(payloadLength));
        }
        if (payloadLength != length - OVERHEAD) {
            throw new FrameException("frame length mismatch: header declares " + payloadLength
                    + " payload bytes, found " + (length - OVERHEAD));
        }
        if (checkCrc) {
            int expectedCrc = crc(frame, HEADER_LENGTH + payloadLength);
            int foundCrc = frame.getInt(HEADER_LENGTH + payloadLength);
            if (expectedCrc != foundCrc) {
                throw new FrameException(String.format("frame CRC32C mismatch: computed 0x%08X, frame says 0x%08X",
                        expectedCrc, foundCrc));
            }
        }
        int kindId = frame.get(KIND_OFFSET) & 0xFF;
        TrafficKind kind = TrafficKind.ofWireIdOrNull(kindId);
        if (kind == null || kind == TrafficKind.HEADER) {
            throw new FrameException("unknown frame kind: expected 1.." + (TrafficKind.values().length - 1)
                    + ", found " + kindId);
        }
        int stageId = frame.get(STAGE_OFFSET) & 0xFF;
        Stage stage;
        try {
            stage = Stage.ofWireId(stageId);
        } catch (IllegalArgumentException e) {
            throw new FrameException("unknown frame stage: expected 0.." + (Stage.values().length - 1)
                    + ", found " + stageId);
        }
        int flags = frame.get(FLAGS_OFFSET) & 0xFF;
        String badFlags = flagsError(flags);
        if (badFlags != null) {
            throw new FrameException(badFlags);
        }
        int step = frame.getInt(STEP_OFFSET);
        int sender = frame.getShort(SENDER_OFFSET) & 0xFFFF;
        int stream = frame.getShort(STREAM_OFFSET) & 0xFFFF;
        int job = frame.getInt(JOB_OFFSET);
        ByteBuffer payload = frame.slice(HEADER_LENGTH, payloadLength).asReadOnlyBuffer()
                .order(ByteOrder.LITTLE_ENDIAN);
        return new Frame(kind, stage, flags, step, sender, stream, job, payload, length);
    }
}

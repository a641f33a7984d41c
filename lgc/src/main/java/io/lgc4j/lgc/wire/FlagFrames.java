package io.lgc4j.lgc.wire;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.stage.Stage;

import java.nio.ByteBuffer;

/**
 * The flag layout: a {@link TrafficKind#CONTROL} payload of one byte carrying one yes/no decision, such as the drift
 * guard's "the next step is compressed" that a parameter server or the ring's trainer sends after a check or a
 * fallback step ({@link Flag}).
 *
 * <pre>
 *  offset  size  field
 *  0       1     flag: {@value #TRUE} (yes) or {@value #FALSE} (no); any other byte is rejected
 *  1             end: the payload is exactly {@value #LENGTH} byte
 * </pre>
 *
 * <pre>{@code
 * transport.send(peer, FlagFrames.encode(true, tag.stage(), tag.step()));
 * boolean compressed = FlagFrames.decode(frame, "worker 2's stage flag");
 * }</pre>
 */
public final class FlagFrames {
    /** Offset of the flag byte. */
    public static final int FLAG_OFFSET = 0;
    /** Payload bytes of a flag. */
    public static final int LENGTH = 1;
    /** The byte that means no. */
    public static final byte FALSE = 0;
    /** The byte that means yes. */
    public static final byte TRUE = 1;

    private FlagFrames() {
    }

    /** Seals a CONTROL frame whose payload is the byte {@link #TRUE} ({@code flag}) or {@link #FALSE}. */
    public static byte[] encode(boolean flag, Stage stage, int step) {
        ByteBuffer payload = FrameCodec.allocate(LENGTH);
        payload.put(FLAG_OFFSET, flag ? TRUE : FALSE);
        return FrameCodec.seal(payload, TrafficKind.CONTROL, stage, step);
    }

    /**
     * The flag a frame carries.
     *
     * @param what names the flag in the error message, e.g. {@code "worker 2's stage flag"}
     * @throws FrameException if the payload is not exactly one byte holding 0 or 1
     */
    public static boolean decode(Frame frame, String what) {
        if (frame.payloadLength() != LENGTH) {
            throw new FrameException(what + ": expected a 1-byte flag, found " + frame.payloadLength() + " bytes");
        }
        byte b = frame.payload().get(frame.payload().position() + FLAG_OFFSET);
        if (b != FALSE && b != TRUE) {
            throw new FrameException(what + ": expected a flag byte 0 or 1, found " + b);
        }
        return b == TRUE;
    }
}

package io.lgc4j.core.protocol;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.stage.Stage;

import java.nio.ByteBuffer;

/**
 * CONTROL frames carrying one yes/no decision as a single byte (1 or 0), such as the drift guard's "the next step is
 * compressed" that a parameter server or the ring's trainer sends after a check or a fallback step.
 *
 * <pre>{@code
 * transport.send(peer, FlagFrames.encode(true, tag.stage(), tag.step()));
 * boolean compressed = FlagFrames.decode(frame, "worker 2's stage flag");
 * }</pre>
 */
public final class FlagFrames {

    private FlagFrames() {
    }

    /** Seals a CONTROL frame whose payload is the byte 1 ({@code flag}) or 0. */
    public static byte[] encode(boolean flag, Stage stage, int step) {
        ByteBuffer payload = FrameCodec.allocate(1);
        payload.put((byte) (flag ? 1 : 0));
        return FrameCodec.seal(payload, TrafficKind.CONTROL, stage, step);
    }

    /**
     * The flag a frame carries.
     *
     * @param what names the flag in the error message, e.g. {@code "worker 2's stage flag"}
     * @throws FrameException if the payload is not exactly one byte holding 0 or 1
     */
    public static boolean decode(Frame frame, String what) {
        if (frame.payloadLength() != 1) {
            throw new FrameException(what + ": expected a 1-byte flag, found " + frame.payloadLength() + " bytes");
        }
        byte b = frame.payload().get(frame.payload().position());
        if (b != 0 && b != 1) {
            throw new FrameException(what + ": expected a flag byte 0 or 1, found " + b);
        }
        return b == 1;
    }
}

package io.lgc4j.net;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.stage.Stage;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A link's own messages, carried as frames of kind {@link TrafficKind#LINK}, stage SETUP, step -1, consumed by the
 * transport and never delivered. Payload: one type byte, then the body.
 *
 * <pre>
 *  HEARTBEAT (1)  nothing: the link's writer was idle (keeps the peer's idle timer from firing)
 *  ABORT     (2)  lost endpoint u16, reason UTF-8 (&lt;= 1024 bytes): the sender lost that endpoint; the job stops
 *  GOODBYE   (3)  nothing: orderly close; what came before it is all the sender will send
 * </pre>
 */
sealed interface LinkMessage {
    int HEARTBEAT = 1;
    int ABORT = 2;
    int GOODBYE = 3;
    int TYPE_OFFSET = 0;
    int ABORT_LOST_OFFSET = 1;
    int ABORT_REASON_OFFSET = 3;
    int MAX_REASON_LENGTH = 1024;

    /** Nothing to say; the link is alive. */
    record Heartbeat() implements LinkMessage {
    }

    /** The sender lost {@code lost} for {@code reason}. */
    record Abort(int lost, String reason) implements LinkMessage {
    }

    /** The sender closes the link in order. */
    record Goodbye() implements LinkMessage {
    }

    /** The sealed frame (sender and job not yet stamped). */
    static byte[] encode(LinkMessage message) {
        if (message instanceof Abort a) {
            byte[] reason = a.reason().getBytes(StandardCharsets.UTF_8);
            int length = Math.min(reason.length, MAX_REASON_LENGTH);
            ByteBuffer payload = FrameCodec.allocate(ABORT_REASON_OFFSET + length);
            payload.put(TYPE_OFFSET, (byte) ABORT).putShort(ABORT_LOST_OFFSET, (short) a.lost())
                    .put(ABORT_REASON_OFFSET, reason, 0, length);
            return seal(payload);
        }
        ByteBuffer payload = FrameCodec.allocate(1);
        payload.put(TYPE_OFFSET, (byte) (message instanceof Heartbeat ? HEARTBEAT : GOODBYE));
        return seal(payload);
    }

    /**
     * Reads the message a decoded LINK frame carries.
     *
     * @throws FrameException naming what is wrong
     */
    static LinkMessage decode(Frame frame) {
        ByteBuffer p = frame.payload();
        if (p.remaining() < 1) {
            throw new FrameException("empty LINK frame: expected a message type byte");
        }
        int type = p.get(p.position() + TYPE_OFFSET) & 0xFF;
        switch (type) {
            case HEARTBEAT:
                return new Heartbeat();
            case GOODBYE:
                return new Goodbye();
            case ABORT:
                if (p.remaining() < ABORT_REASON_OFFSET || p.remaining() > ABORT_REASON_OFFSET + MAX_REASON_LENGTH) {
                    throw new FrameException("LINK abort of " + p.remaining() + " bytes: expected "
                            + ABORT_REASON_OFFSET + ".." + (ABORT_REASON_OFFSET + MAX_REASON_LENGTH));
                }
                int lost = p.getShort(p.position() + ABORT_LOST_OFFSET) & 0xFFFF;
                byte[] reason = new byte[p.remaining() - ABORT_REASON_OFFSET];
                p.get(p.position() + ABORT_REASON_OFFSET, reason);
                return new Abort(lost, new String(reason, StandardCharsets.UTF_8));
            default:
                throw new FrameException("unknown LINK message type: expected " + HEARTBEAT + ".." + GOODBYE
                        + ", found " + type);
        }
    }

    private static byte[] seal(ByteBuffer payload) {
        return FrameCodec.seal(payload, TrafficKind.LINK, Stage.SETUP, -1);
    }

}

package io.lgc4j.core.comm;

import io.lgc4j.core.stage.Stage;

import java.nio.ByteBuffer;

/**
 * A decoded, checked frame: its kind, the stage and step that sent it, and a read-only little-endian view of its
 * payload (no copy of the received bytes).
 *
 * @param kind        what the payload carries
 * @param stage       the stage of the sending step
 * @param flags       the header's flags byte: a float payload's value encoding in bits 0–1
 *                    ({@link io.lgc4j.core.comm.ValueEncoding#of(Frame)}), 0 otherwise
 * @param step        the sending step, -1 outside training steps
 * @param sender      the endpoint that sent it (stamped by its transport)
 * @param stream      which of the step's parallel streams it belongs to (0 for the only one)
 * @param job         the job id of the session it belongs to (stamped by its transport)
 * @param payload     read-only, little-endian, positioned at the payload's first byte
 * @param wireLength  bytes of the whole frame on the wire (header, payload and trailer)
 */
public record Frame(TrafficKind kind, Stage stage, int flags, int step, int sender, int stream, int job, ByteBuffer payload,
                    int wireLength) {

    /** Payload length in bytes. */
    public int payloadLength() {
        return payload.remaining();
    }
}

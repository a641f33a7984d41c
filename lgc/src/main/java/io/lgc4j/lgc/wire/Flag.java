package io.lgc4j.lgc.wire;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.StepTag;

import java.util.List;

/**
 * A yes/no decision, as one {@link TrafficKind#CONTROL} frame of one byte ({@link FlagFrames}): in LGC, "the next
 * step is compressed", sent by the parameter server (or the ring's trainer) after a check step or a fallback step.
 *
 * @param value the decision
 */
public record Flag(boolean value) implements LgcPayload {
    /** The kind of its frame. */
    public static final TrafficKind KIND = TrafficKind.CONTROL;

    @Override
    public List<TrafficKind> kinds() {
        return List.of(KIND);
    }

    /** Its frame. */
    public byte[] encode(StepTag tag) {
        return FlagFrames.encode(value, tag.stage(), tag.step());
    }

    /**
     * The flag a frame carries.
     *
     * @param what names the flag in the error message, e.g. {@code "worker 2's stage flag"}
     * @throws io.lgc4j.core.comm.FrameException if the payload is not one byte holding 0 or 1
     */
    public static Flag decode(Frame frame, String what) {
        return new Flag(FlagFrames.decode(frame, what));
    }
}

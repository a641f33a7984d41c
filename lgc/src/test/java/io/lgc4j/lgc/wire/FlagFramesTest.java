package io.lgc4j.lgc.wire;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.stage.Stage;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FlagFramesTest {

    @Test
    void shouldRoundTripBothValuesAsOneControlByte() {
        Frame yes = FrameCodec.decode(FlagFrames.encode(true, Stage.COMPRESSED, 7));
        Frame no = FrameCodec.decode(FlagFrames.encode(false, Stage.COMPRESSED, 7));
        assertEquals(TrafficKind.CONTROL, yes.kind());
        assertEquals(1, yes.payloadLength());
        assertEquals(7, yes.step());
        assertTrue(FlagFrames.decode(yes, "flag"));
        assertFalse(FlagFrames.decode(no, "flag"));
    }

    @Test
    void shouldRejectAnotherLengthOrValueNamingTheFlag() {
        Frame two = FrameCodec.decode(FrameCodec.encode(TrafficKind.CONTROL, Stage.COMPRESSED, 1,
                ByteBuffer.wrap(new byte[] {1, 0})));
        assertEquals("worker 3's stage flag: expected a 1-byte flag, found 2 bytes",
                assertThrows(FrameException.class, () -> FlagFrames.decode(two, "worker 3's stage flag"))
                        .getMessage());
        Frame seven = FrameCodec.decode(FrameCodec.encode(TrafficKind.CONTROL, Stage.COMPRESSED, 1,
                ByteBuffer.wrap(new byte[] {7})));
        assertEquals("recovery flag: expected a flag byte 0 or 1, found 7",
                assertThrows(FrameException.class, () -> FlagFrames.decode(seven, "recovery flag")).getMessage());
    }
}

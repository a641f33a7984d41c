package io.lgc4j.core.protocol;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.TrafficKind;
import org.junit.jupiter.api.Test;

import static io.lgc4j.core.protocol.PayloadGoldenTest.TAG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The values layout and the payloads built on it: exact lengths, reads at the caller's offsets. */
class FloatFramesTest {

    @Test
    void shouldEncodeARangeAndCopyOrAddItAtTheReceiversOffset() {
        Frame frame = FrameCodec.decode(FloatFrames.encode(new float[] {9, 1, 2, 9}, 1, 3, TrafficKind.VALUES,
                TAG.stage(), TAG.step()));
        assertEquals(FloatFrames.payloadLength(2), frame.payloadLength());
        float[] dst = {5, 5, 5};
        FloatFrames.copyInto(frame, dst, 1, 3);
        assertArrayEquals(new float[] {5, 1, 2}, dst);
        FloatFrames.addInto(frame, dst, 0, 2);
        assertArrayEquals(new float[] {6, 3, 2}, dst);
    }

    @Test
    void shouldRejectValuesOfAnotherCount() {
        Frame frame = FrameCodec.decode(new SupportValues(new float[3]).encode(TAG));
        assertEquals("expected 4 floats (16 bytes) in a VALUES frame of step 7, found 12 bytes",
                assertThrows(FrameException.class, () -> SupportValues.decode(frame, 4)).getMessage());
    }

    @Test
    void shouldRejectADriftGuardSampleOfAnotherLength() {
        Frame frame = FrameCodec.decode(new Sample(new float[2]).encode(TAG));
        assertEquals("drift-guard sample of step 7: expected 3 floats (12 bytes), found 8 bytes",
                assertThrows(FrameException.class, () -> Sample.decode(frame, 3)).getMessage());
    }

    @Test
    void shouldRejectATrainingSampleOfAnotherLength() {
        Frame frame = FrameCodec.decode(new AeSample(new float[5]).encode(TAG));
        assertEquals("expected 4 floats (16 bytes) in a AE_SAMPLES frame of step 7, found 20 bytes",
                assertThrows(FrameException.class, () -> AeSample.decode(frame, 4)).getMessage());
    }

    @Test
    void shouldGatherASampleAtItsPositions() {
        assertArrayEquals(new float[] {10, 30}, Sample.at(new float[] {0, 10, 20, 30}, new int[] {1, 3}).values());
    }
}

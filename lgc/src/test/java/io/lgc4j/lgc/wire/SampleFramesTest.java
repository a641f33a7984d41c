package io.lgc4j.lgc.wire;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.comm.FrameException;
import org.junit.jupiter.api.Test;

import static io.lgc4j.lgc.wire.LgcPayloadGoldenTest.TAG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** LGC's two kinds of sample, in the core's float layout: their lengths checked with the names a receiver reads. */
class SampleFramesTest {

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

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
    void shouldAddFramesLongerThanItsBlockFromDirectMemoryAtAnOffset() {
        int n = 2 * 1024 + 77;
        float[] values = new float[n];
        float[] dst = new float[n + 10];
        java.util.Random random = new java.util.Random(5);
        for (int i = 0; i < n; i++) {
            values[i] = random.nextFloat() - 0.5f;
        }
        for (int i = 0; i < dst.length; i++) {
            dst[i] = random.nextFloat();
        }
        float[] expected = dst.clone();
        for (int i = 0; i < n; i++) {
            expected[3 + i] += values[i];
        }
        io.lgc4j.core.comm.FrameBuffer direct = FloatFrames.encode(length -> io.lgc4j.core.comm.FrameBuffer.lease(
                java.nio.ByteBuffer.allocateDirect(io.lgc4j.core.comm.FrameDescriptor.frameLength(length)), length,
                () -> { }), values, 0, n, io.lgc4j.core.comm.TrafficKind.VALUES, TAG.stage(), TAG.step());
        FloatFrames.addInto(FrameCodec.decode(direct.bytes()), dst, 3, 3 + n);
        assertArrayEquals(expected, dst, "the same additions, element by element");
    }

    @Test
    void shouldRejectValuesOfAnotherCount() {
        Frame frame = FrameCodec.decode(new Values(new float[3]).encode(TAG));
        assertEquals("expected 4 floats (16 bytes) in a VALUES frame of step 7, found 12 bytes",
                assertThrows(FrameException.class, () -> Values.decode(frame, 4)).getMessage());
    }
}

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

/** Sketch frames and the ring's bitmap chunks: sizes checked exactly, words OR-ed or copied where they belong. */
class SketchFramesTest {
    private static final Sketch SKETCH = new Sketch(new float[] {1, 2, 3, 4}, new long[] {1L, 2L});

    private static Frame[] frames() {
        byte[][] f = new SketchPayload(SKETCH).encode(TAG);
        return new Frame[] {FrameCodec.decode(f[0]), FrameCodec.decode(f[1])};
    }

    @Test
    void shouldRejectCountersOfAnotherLength() {
        Frame[] f = frames();
        assertEquals("expected 5 floats (20 bytes) in a VALUES frame of step 7, found 16 bytes",
                assertThrows(FrameException.class, () -> SketchPayload.decode(f[0], f[1], 5, 2)).getMessage());
    }

    @Test
    void shouldRejectABitmapOfAnotherSize() {
        Frame[] f = frames();
        assertEquals("expected a sketch bitmap of 3 words (24 bytes) in step 7, found 16 bytes",
                assertThrows(FrameException.class, () -> SketchPayload.decode(f[0], f[1], 4, 3)).getMessage());
    }

    @Test
    void shouldOrAndCopyRingChunksInPlace() {
        long[] mine = {0b0001L, 0b0010L, 0b0100L, 0b1000L};
        Frame chunk = FrameCodec.decode(SketchFrames.encodeWords(new long[] {0, 0b0110L, 0b0001L, 0},
                1, 3, TrafficKind.INDICES, TAG.stage(), TAG.step()));
        SketchFrames.orInto(chunk, mine, 1, 3);
        assertArrayEquals(new long[] {0b0001L, 0b0110L, 0b0101L, 0b1000L}, mine);
        SketchFrames.copyInto(chunk, mine, 2, 4);
        assertArrayEquals(new long[] {0b0001L, 0b0110L, 0b0110L, 0b0001L}, mine);
    }

    @Test
    void shouldRejectARingChunkOfAnotherSize() {
        Frame chunk = FrameCodec.decode(SketchFrames.encodeWords(new long[] {7L}, 0, 1, TrafficKind.INDICES,
                TAG.stage(), TAG.step()));
        assertEquals("expected 2 bitmap words (16 bytes) in a INDICES frame of step 7, found 8 bytes",
                assertThrows(FrameException.class, () -> SketchFrames.orInto(chunk, new long[2], 0, 2))
                        .getMessage());
    }
}

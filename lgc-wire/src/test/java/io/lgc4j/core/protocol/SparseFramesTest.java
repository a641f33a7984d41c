package io.lgc4j.core.protocol;

import io.lgc4j.core.codec.IndexCodec;
import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.sparse.SparseVector;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.comm.StepTag;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Sparse frames reject every malformed input with a message naming the step, block and what was wrong. */
class SparseFramesTest {
    private static final List<ParamBlock> BLOCKS = List.of(
            new ParamBlock(0, 1, "fc", "W", 0, 1000, new long[] {1000}, LayerPolicy.LEARNED),
            new ParamBlock(1, 2, "out", "W", 1000, 100, new long[] {100}, LayerPolicy.TOP_K));
    private static final IndexCodec CODEC = IndexCodecs.defaultCodec();
    private static final StepTag TAG = new StepTag(9, Stage.TOP_K);

    private static SparseSet set() {
        return new SparseSet(List.of(new SparseVector(1000, new int[] {3, 500, 999}, new float[] {1, 2, 3}),
                new SparseVector(100, new int[] {7}, new float[] {4})));
    }

    @Test
    void shouldRoundTripASparseSet() {
        byte[][] frames = SparseFrames.encode(set(), BLOCKS, CODEC, TAG);
        int[][] supports = SparseFrames.decodeIndices(FrameCodec.decode(frames[0]), BLOCKS, CODEC, new int[] {3, 1});
        assertEquals(set(), SparseFrames.decode(supports, FrameCodec.decode(frames[1]), BLOCKS));
    }

    @Test
    void shouldRejectMoreIndicesThanTheReceiverAccepts() {
        byte[][] frames = SparseFrames.encode(set(), BLOCKS, CODEC, TAG);
        FrameException e = assertThrows(FrameException.class, () -> SparseFrames.decodeIndices(
                FrameCodec.decode(frames[0]), BLOCKS, CODEC, new int[] {2, 1}));
        assertTrue(e.getMessage().startsWith("indices frame of step 9, block 0 (fc/W): "), e.getMessage());
    }

    @Test
    void shouldRejectAnIndexBeyondTheBlock() {
        int[][] supports = {{3, 500, 999}, {7}};
        byte[] frame = SparseFrames.encodeIndices(supports, new int[] {3, 1}, List.of(BLOCKS.get(0),
                new ParamBlock(1, 2, "out", "W", 1000, 1000, new long[] {1000}, LayerPolicy.TOP_K)), CODEC, TAG);
        int[][] big = {{3, 500, 999}, {700}};
        byte[] beyond = SparseFrames.encodeIndices(big, new int[] {3, 1}, List.of(BLOCKS.get(0),
                new ParamBlock(1, 2, "out", "W", 1000, 1000, new long[] {1000}, LayerPolicy.TOP_K)), CODEC, TAG);
        SparseFrames.decodeIndices(FrameCodec.decode(frame), BLOCKS, CODEC, new int[] {3, 1});
        FrameException e = assertThrows(FrameException.class, () -> SparseFrames.decodeIndices(
                FrameCodec.decode(beyond), BLOCKS, CODEC, new int[] {3, 1}));
        assertTrue(e.getMessage().startsWith("indices frame of step 9, block 1 (out/W): "), e.getMessage());
    }

    @Test
    void shouldRejectABlockLengthBeyondTheFrame() {
        ByteBuffer payload = FrameCodec.allocate(8);
        payload.order(ByteOrder.LITTLE_ENDIAN).putInt(1_000_000).putInt(0);
        Frame frame = FrameCodec.decode(FrameCodec.seal(payload, TrafficKind.INDICES, Stage.TOP_K, 9));
        FrameException e = assertThrows(FrameException.class,
                () -> SparseFrames.decodeIndices(frame, BLOCKS, CODEC, new int[] {3, 1}));
        assertEquals("indices frame of step 9, block 0 (fc/W): declares 1000000 coded bytes, 4 remain",
                e.getMessage());
    }

    @Test
    void shouldRejectATruncatedIndicesFrame() {
        byte[][] frames = SparseFrames.encode(set(), BLOCKS, CODEC, TAG);
        Frame whole = FrameCodec.decode(frames[0]);
        ByteBuffer cut = whole.payload().duplicate();
        int firstLength = cut.duplicate().order(ByteOrder.LITTLE_ENDIAN).getInt(0);
        cut.limit(4 + firstLength + 2);
        Frame truncated = FrameCodec.decode(FrameCodec.encode(TrafficKind.INDICES, Stage.TOP_K, 9, cut));
        FrameException e = assertThrows(FrameException.class,
                () -> SparseFrames.decodeIndices(truncated, BLOCKS, CODEC, new int[] {3, 1}));
        assertEquals("indices frame of step 9 ends before block 1 (out/W): 2 bytes left, a length needs 4",
                e.getMessage());
    }

    @Test
    void shouldRejectValuesThatDoNotMatchTheSupports() {
        byte[][] frames = SparseFrames.encode(set(), BLOCKS, CODEC, TAG);
        int[][] supports = SparseFrames.decodeIndices(FrameCodec.decode(frames[0]), BLOCKS, CODEC, new int[] {3, 1});
        Frame shortValues = FrameCodec.decode(FloatFrames.encode(new float[3], 0, 3, TrafficKind.VALUES, Stage.TOP_K,
                9));
        FrameException e = assertThrows(FrameException.class,
                () -> SparseFrames.decode(supports, shortValues, BLOCKS));
        assertEquals("expected 4 floats (16 bytes) in a VALUES frame of step 9, found 12 bytes", e.getMessage());
    }

    @Test
    void shouldRejectTrailingBytesAfterTheLastBlock() {
        byte[][] frames = SparseFrames.encode(set(), BLOCKS, CODEC, TAG);
        Frame whole = FrameCodec.decode(frames[0]);
        ByteBuffer longer = ByteBuffer.allocate(whole.payloadLength() + 3);
        longer.put(whole.payload().duplicate()).put(new byte[3]).flip();
        Frame padded = FrameCodec.decode(FrameCodec.encode(TrafficKind.INDICES, Stage.TOP_K, 9, longer));
        FrameException e = assertThrows(FrameException.class,
                () -> SparseFrames.decodeIndices(padded, BLOCKS, CODEC, new int[] {3, 1}));
        assertEquals("indices frame of step 9: 3 bytes after the last block", e.getMessage());
    }
}

package io.lgc4j.core.protocol;

import io.lgc4j.core.codec.CodecException;
import io.lgc4j.core.codec.IndexCodec;
import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.sparse.SparseVector;
import io.lgc4j.core.comm.StepTag;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The support layout, and a {@link SparseSet} as a support followed by its values. A support is one
 * {@link TrafficKind#INDICES} frame holding, per compressible block in layout order, the uint32 little-endian byte
 * length of that block's coded indices, then the shared {@link IndexCodec}'s bytes (indices relative to the block);
 * nothing after the last. The values follow as a {@link TrafficKind#VALUES} frame in the {@link FloatFrames} layout,
 * block after block in index order, so the meter counts indices and values apart. Decoding checks every length and
 * each block's count against the caller's bound before allocating, and names the step and block on failure.
 *
 * <pre>{@code
 * byte[] indices = SparseFrames.encodeIndices(support, counts, blocks, codec, tag);
 * int[][] back = SparseFrames.decodeIndices(frame, blocks, codec, maxCounts);
 * }</pre>
 */
public final class SparseFrames {
    /** Offset of a block entry's coded length, from the entry's start. */
    public static final int BLOCK_LENGTH_OFFSET = 0;
    /** Bytes of a block entry's coded length (uint32). */
    public static final int BLOCK_LENGTH_SIZE = 4;
    /** Offset of a block entry's coded indices, from the entry's start. */
    public static final int BLOCK_CODED_OFFSET = BLOCK_LENGTH_OFFSET + BLOCK_LENGTH_SIZE;

    private SparseFrames() {
    }

    /**
     * The indices frame of a set of supports (per block, ascending indices relative to the block).
     *
     * @param counts per block, how many of its indices to send (the first {@code counts[b]})
     */
    public static byte[] encodeIndices(int[][] supports, int[] counts, List<ParamBlock> blocks, IndexCodec codec,
                                       StepTag tag) {
        byte[][] coded = new byte[blocks.size()][];
        int total = 0;
        for (int b = 0; b < blocks.size(); b++) {
            coded[b] = codec.encode(supports[b], counts[b], blocks.get(b).length());
            total = Math.addExact(total, BLOCK_CODED_OFFSET + coded[b].length);
        }
        ByteBuffer payload = FrameCodec.allocate(total);
        for (byte[] c : coded) {
            payload.putInt(c.length).put(c);
        }
        return FrameCodec.seal(payload, TrafficKind.INDICES, tag.stage(), tag.step());
    }

    /** The two frames of {@code set}: indices first, then values. */
    public static byte[][] encode(SparseSet set, List<ParamBlock> blocks, IndexCodec codec, StepTag tag) {
        int[][] supports = new int[blocks.size()][];
        int[] counts = new int[blocks.size()];
        int total = 0;
        for (int b = 0; b < blocks.size(); b++) {
            supports[b] = set.blocks().get(b).indices();
            counts[b] = supports[b].length;
            total += counts[b];
        }
        float[] values = new float[total];
        int at = 0;
        for (SparseVector v : set.blocks()) {
            System.arraycopy(v.values(), 0, values, at, v.nnz());
            at += v.nnz();
        }
        return new byte[][] {encodeIndices(supports, counts, blocks, codec, tag),
                FloatFrames.encode(values, 0, values.length, TrafficKind.VALUES, tag.stage(), tag.step(),
                        tag.values())};
    }

    /**
     * Decodes an indices frame into one support per block.
     *
     * @param maxCounts per block, the most indices the receiver accepts
     * @throws FrameException naming the block when a length or a coded set is wrong
     */
    public static int[][] decodeIndices(Frame frame, List<ParamBlock> blocks, IndexCodec codec, int[] maxCounts) {
        ByteBuffer in = frame.payload().duplicate().order(frame.payload().order());
        int[][] supports = new int[blocks.size()][];
        for (int b = 0; b < blocks.size(); b++) {
            if (in.remaining() < BLOCK_LENGTH_SIZE) {
                throw new FrameException("indices frame of step " + frame.step() + " ends before block " + b + " ("
                        + blocks.get(b).qualifiedName() + "): " + in.remaining() + " bytes left, a length needs "
                        + BLOCK_LENGTH_SIZE);
            }
            int length = in.getInt();
            if (length < 0 || length > in.remaining()) {
                throw new FrameException("indices frame of step " + frame.step() + ", block " + b + " ("
                        + blocks.get(b).qualifiedName() + "): declares " + Integer.toUnsignedString(length)
                        + " coded bytes, " + in.remaining() + " remain");
            }
            byte[] coded = new byte[length];
            in.get(coded);
            try {
                supports[b] = codec.decode(coded, blocks.get(b).length(), maxCounts[b]);
            } catch (CodecException e) {
                throw new FrameException("indices frame of step " + frame.step() + ", block " + b + " ("
                        + blocks.get(b).qualifiedName() + "): " + e.getMessage());
            }
        }
        if (in.hasRemaining()) {
            throw new FrameException("indices frame of step " + frame.step() + ": " + in.remaining()
                    + " bytes after the last block");
        }
        return supports;
    }

    /** Decodes a values frame laid out on {@code supports}. */
    public static SparseSet decode(int[][] supports, Frame values, List<ParamBlock> blocks) {
        int total = 0;
        for (int[] s : supports) {
            total += s.length;
        }
        float[] all = FloatFrames.read(values, total);
        List<SparseVector> out = new ArrayList<>(blocks.size());
        int at = 0;
        for (int b = 0; b < blocks.size(); b++) {
            float[] v = Arrays.copyOfRange(all, at, at + supports[b].length);
            at += supports[b].length;
            out.add(new SparseVector(blocks.get(b).length(), supports[b], v));
        }
        return new SparseSet(out);
    }
}

package io.lgc4j.core.protocol;

import io.lgc4j.core.codec.IndexCodec;
import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.comm.StepTag;

import java.util.List;

/**
 * A support: per compressible block, ascending indices relative to the block, as one {@link TrafficKind#INDICES}
 * frame in the {@link SparseFrames} layout (per block: a uint32 length and the index codec's bytes).
 *
 * @param indices per block, in layout order, its ascending indices
 */
public record Support(int[][] indices) implements Payload {
    /** The kind of its frame. */
    public static final TrafficKind KIND = TrafficKind.INDICES;

    @Override
    public List<TrafficKind> kinds() {
        return List.of(KIND);
    }

    /** The number of indices over all blocks (the count of its {@link Values}). */
    public int size() {
        int total = 0;
        for (int[] block : indices) {
            total += block.length;
        }
        return total;
    }

    /** Its frame: every block's indices through {@code codec}. */
    public byte[] encode(List<ParamBlock> blocks, IndexCodec codec, StepTag tag) {
        int[] counts = new int[indices.length];
        for (int b = 0; b < counts.length; b++) {
            counts[b] = indices[b].length;
        }
        return SparseFrames.encodeIndices(indices, counts, blocks, codec, tag);
    }

    /**
     * The support a frame carries.
     *
     * @param maxCounts per block, the most indices the receiver accepts
     * @throws io.lgc4j.core.comm.FrameException naming the step and block when a length or a coded set is wrong
     */
    public static Support decode(Frame frame, List<ParamBlock> blocks, IndexCodec codec, int[] maxCounts) {
        return new Support(SparseFrames.decodeIndices(frame, blocks, codec, maxCounts));
    }
}

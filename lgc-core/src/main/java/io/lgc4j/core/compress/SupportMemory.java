package io.lgc4j.core.compress;

import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.checkpoint.Persistent.Regrouping;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.sparse.TopK;

import java.util.Arrays;

/**
 * One rank's state for a shared-support compressor: the compensated vector {@code m + g}, the top
 * {@link Compressor#count} entries of each block when this rank leads, the values on the step's support taken out
 * (sent), and the memory that stays, low-pass filtered with β ({@code m ← (1 − β)·m + β·(m + g − sent)}; β = 1 is
 * plain error feedback): an {@link ErrorFeedback#lowPass} memory. In a half-precision run "sent" is what the receivers
 * decode: the values are rounded as one frame, and what the rounding lost stays in {@code m + g − sent}.
 */
final class SupportMemory implements SharedSupportCompressor.State {
    private final Region region;
    private final Compressor compressor;
    private final ErrorFeedback memory;
    private final TopK topK = new TopK();

    /** @param compressor says how many entries of each block the support holds */
    SupportMemory(Region region, Compressor compressor, double lowPass) {
        this.region = region;
        this.compressor = compressor;
        this.memory = ErrorFeedback.lowPass(region, "memory", lowPass);
    }

    /** The (filtered) error-feedback memory, region coordinates; the compensated vector is the step's own. */
    @Override
    public void save(CheckpointPart.Builder part, String prefix) {
        memory.save(part, prefix);
    }


    @Override

    public Regrouping regrouping(String prefix) {

        return memory.regrouping(prefix);

    }

    @Override
    public void restore(CheckpointPart part, String prefix) throws CheckpointException {
        memory.restore(part, prefix);
    }

    @Override
    public void compensate(float[] gradient, int step) {
        for (int b = 0; b < region.blockCount(); b++) {
            memory.compensate(b, gradient);
        }
    }

    @Override
    public int[][] chooseSupport(int step) {
        int[][] support = new int[region.blockCount()][];
        for (int b = 0; b < region.blockCount(); b++) {
            int length = region.block(b).length();
            int k = compressor.count(step, region.block(b));
            int[] idx = new int[k];
            int count = topK.select(memory.compensated(), region.start(b), region.start(b) + length, k, idx);
            support[b] = count == k ? idx : Arrays.copyOf(idx, count);
        }
        return support;
    }

    @Override
    public float[] take(int[][] support) {
        requireBlocks(support);
        int total = 0;
        for (int[] s : support) {
            total += s.length;
        }
        float[] sent = new float[total];
        int at = 0;
        for (int b = 0; b < region.blockCount(); b++) {
            at = memory.take(b, support[b], sent, at);
        }
        memory.round(support, sent);
        memory.update();
        return sent;
    }

    @Override
    public void tap(OfferTap tap) {
        memory.tap(tap);
    }

    @Override
    public void values(ValueEncoding encoding) {
        memory.values(encoding);
    }

    @Override
    public void feedBack(int[][] support, float[] amounts) {
        requireBlocks(support);
        memory.feedBack(support, amounts);
    }

    private void requireBlocks(int[][] support) {
        if (support.length != region.blockCount()) {
            throw new IllegalArgumentException("support has " + support.length + " blocks, expected "
                    + region.blockCount());
        }
    }

    @Override
    public float[] residual() {
        return memory.residual();
    }

    @Override
    public boolean absorb(float[] residual) {
        memory.absorb(residual);
        return true;
    }
}

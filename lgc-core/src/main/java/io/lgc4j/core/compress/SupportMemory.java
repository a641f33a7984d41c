package io.lgc4j.core.compress;

import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.sparse.TopK;

/**
 * One rank's memory for a shared-support compressor: the compensated vector {@code m + g}, the top
 * {@link Compressor#count} entries of each block when this rank leads, the values on the step's support taken out
 * (sent), and the memory that stays, low-pass filtered with β ({@code m ← (1 − β)·m + β·(m + g − sent)}; β = 1 is
 * plain error feedback). In a half-precision run "sent" is what the receivers decode: the values are rounded as one
 * frame, and what the rounding lost stays in {@code m + g − sent}.
 */
final class SupportMemory implements SharedSupportCompressor.State {
    private final Region region;
    private final Compressor compressor;
    private final double lowPass;
    private final float[] memory;
    private final float[] compensated;
    private final TopK topK = new TopK();
    private OfferTap tap;
    private ValueEncoding values = ValueEncoding.FP32;

    /** @param compressor says how many entries of each block the support holds */
    SupportMemory(Region region, Compressor compressor, double lowPass) {
        this.region = region;
        this.compressor = compressor;
        this.lowPass = lowPass;
        this.memory = new float[region.length()];
        this.compensated = new float[region.length()];
    }

    /** The (filtered) error-feedback memory, region coordinates; the compensated vector is the step's own. */
    @Override
    public void save(CheckpointPart.Builder part, String prefix) {
        part.section(prefix + "/memory").putFloats(memory);
    }

    @Override
    public void restore(CheckpointPart part, String prefix) throws CheckpointException {
        part.floatsInto(prefix + "/memory", memory);
    }

    @Override
    public void compensate(float[] gradient, int step) {
        for (int b = 0; b < region.blockCount(); b++) {
            ParamBlock block = region.block(b);
            int start = region.start(b);
            for (int i = 0; i < block.length(); i++) {
                compensated[start + i] = memory[start + i] + gradient[block.offset() + i];
            }
        }
    }

    @Override
    public int[][] chooseSupport(int step) {
        int[][] support = new int[region.blockCount()][];
        for (int b = 0; b < region.blockCount(); b++) {
            int length = region.block(b).length();
            int k = compressor.count(step, region.block(b));
            int[] idx = new int[k];
            int count = topK.select(compensated, region.start(b), region.start(b) + length, k, idx);
            support[b] = count == k ? idx : java.util.Arrays.copyOf(idx, count);
        }
        return support;
    }

    @Override
    public float[] take(int[][] support) {
        if (support.length != region.blockCount()) {
            throw new IllegalArgumentException("support has " + support.length + " blocks, expected "
                    + region.blockCount());
        }
        int total = 0;
        for (int[] s : support) {
            total += s.length;
        }
        float[] sent = new float[total];
        float beta = (float) lowPass;
        int at = 0;
        for (int b = 0; b < region.blockCount(); b++) {
            int start = region.start(b);
            if (tap != null) {
                tap.offered(region.block(b), compensated, start, support[b], support[b].length);
            }
            for (int index : support[b]) {
                sent[at++] = compensated[start + index];
                compensated[start + index] = 0f; // what stays behind: compensated − sent
            }
        }
        if (values != ValueEncoding.FP32) {
            roundSent(support, sent);
        }
        for (int i = 0; i < memory.length; i++) {
            memory[i] = beta == 1f ? compensated[i] : (1 - beta) * memory[i] + beta * compensated[i];
        }
        return sent;
    }

    /** Rounds {@code sent} as one frame; compensated − decoded (exact) stays behind on the support. */
    private void roundSent(int[][] support, float[] sent) {
        int exponent = values.exponentOf(sent, 0, sent.length);
        int at = 0;
        for (int b = 0; b < region.blockCount(); b++) {
            int start = region.start(b);
            for (int index : support[b]) {
                float decoded = values.round(sent[at], exponent);
                compensated[start + index] = sent[at] - decoded;
                sent[at++] = decoded;
            }
        }
    }

    @Override
    public void tap(OfferTap tap) {
        this.tap = tap;
    }

    @Override
    public void values(ValueEncoding encoding) {
        this.values = java.util.Objects.requireNonNull(encoding, "encoding");
    }

    @Override
    public void feedBack(int[][] support, float[] amounts) {
        if (support.length != region.blockCount()) {
            throw new IllegalArgumentException("support has " + support.length + " blocks, expected "
                    + region.blockCount());
        }
        // take() left (1−β)m on the support, as if all of m + g had been applied; of what was not, the filter keeps
        // β (with β < 1 adding it whole counts the old memory twice: the accumulators grow ~(2−β)× per step)
        float beta = (float) lowPass;
        int at = 0;
        for (int b = 0; b < region.blockCount(); b++) {
            int start = region.start(b);
            for (int index : support[b]) {
                memory[start + index] += beta * amounts[at++];
            }
        }
        if (at != amounts.length) {
            throw new IllegalArgumentException("expected " + at + " feedback amounts, got " + amounts.length);
        }
    }

    @Override
    public float[] residual() {
        return memory.clone();
    }
}

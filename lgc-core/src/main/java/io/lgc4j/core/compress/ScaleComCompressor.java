package io.lgc4j.core.compress;

import io.lgc4j.core.layout.ParamBlock;

import java.util.List;

/**
 * ScaleCom (Chen et al., NeurIPS 2020): cyclic local top-k. At step t the leader rank {@code t mod K} picks the top
 * {@code ratio} of each block of its memory-compensated gradient; every rank sends its own compensated values on
 * that one support, so the value vectors sum element-wise (ring allreduce). The memory is low-pass filtered:
 * {@code m ← (1 − β)·m + β·(m + g − sent)}; β = 1 is plain error feedback.
 *
 * <pre>{@code
 * SharedSupportCompressor scalecom = new ScaleComCompressor(0.001, 1.0);
 * }</pre>
 */
public final class ScaleComCompressor implements SharedSupportCompressor {
    private final double ratio;
    private final double lowPass;

    /**
     * @param ratio   fraction of each block sent, in (0, 1]
     * @param lowPass the memory filter β in (0, 1]
     */
    public ScaleComCompressor(double ratio, double lowPass) {
        if (!(ratio > 0 && ratio <= 1)) {
            throw new IllegalArgumentException("ratio must be in (0, 1], found " + ratio);
        }
        if (!(lowPass > 0 && lowPass <= 1)) {
            throw new IllegalArgumentException("lowPass must be in (0, 1], found " + lowPass);
        }
        this.ratio = ratio;
        this.lowPass = lowPass;
    }

    @Override
    public String name() {
        return "scalecom";
    }

    @Override
    public String toString() {
        return "scalecom(ratio=" + ratio + ", lowPass=" + lowPass + ")";
    }

    @Override
    public double density(int step) {
        return ratio;
    }

    @Override
    public int leader(int step, int workers) {
        return Math.floorMod(step, workers);
    }

    @Override
    public State newRank(List<ParamBlock> blocks) {
        return new SupportMemory(new Region(blocks), ratio, lowPass);
    }
}

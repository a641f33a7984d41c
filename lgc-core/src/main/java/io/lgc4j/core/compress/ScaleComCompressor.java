package io.lgc4j.core.compress;

import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.sparse.TopK;

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
        return new RankState(new Region(blocks));
    }

    private final class RankState implements State {
        private final Region region;
        private final float[] memory;
        private final float[] compensated;
        private final TopK topK = new TopK();

        RankState(Region region) {
            this.region = region;
            this.memory = new float[region.length()];
            this.compensated = new float[region.length()];
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
                int k = TopK.countFor(length, ratio);
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
                for (int index : support[b]) {
                    sent[at++] = compensated[start + index];
                    compensated[start + index] = 0f; // what stays behind: compensated − sent
                }
            }
            for (int i = 0; i < memory.length; i++) {
                memory[i] = beta == 1f ? compensated[i] : (1 - beta) * memory[i] + beta * compensated[i];
            }
            return sent;
        }

        @Override
        public float[] residual() {
            return memory.clone();
        }
    }
}

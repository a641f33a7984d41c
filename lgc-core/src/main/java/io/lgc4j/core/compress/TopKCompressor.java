package io.lgc4j.core.compress;

import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.checkpoint.Persistent.Regrouping;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.protocol.SparseSet;
import io.lgc4j.core.sparse.SparseVector;
import io.lgc4j.core.sparse.TopK;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Sparse GD (Strom 2015; Aji and Heafield 2017): each rank adds its residual to its gradient, sends the top
 * {@code ratio} of each block by magnitude ({@code learnedRatio} of a LEARNED block), and keeps the rest as its new
 * residual (error feedback); in a half-precision run the values sent are rounded to what the receivers decode and the
 * rounding stays in the residual too.
 *
 * <pre>{@code
 * GatherCompressor topk = new TopKCompressor(0.001);      // 0.1% of every block
 * GatherCompressor.State rank = topk.newRank(layout.blocks(LayerPolicy.LEARNED));
 * SparseSet sent = rank.compress(gradient, step);         // residual = (residual + gradient) - sent
 * }</pre>
 */
public final class TopKCompressor implements GatherCompressor {

    /**
     * The settings of {@code compressor: {type: topk}}.
     *
     * @param ratio        fraction of each TOP_K block sent per step once warmed up, in (0, 1]
     * @param warmupSteps  steps of DGC's exponential sparsity warm-up, {@code >= 0}; 0 sends {@code ratio} from the
     *                     first step
     * @param learnedRatio fraction of each LEARNED block sent per step once warmed up, in (0, 1]; a configuration
     *                     without it takes {@code ratio}
     */
    public record Settings(double ratio, int warmupSteps, double learnedRatio) {
        /** Checks every component, naming the first that is out of range. */
        public Settings {
            CompressorKeys.requireRatio(ratio);
            CompressorKeys.requireWarmupSteps(warmupSteps);
            BlockRatios.checkLearnedRatio(learnedRatio);
        }

        /** One ratio for every block. */
        public Settings(double ratio, int warmupSteps) {
            this(ratio, warmupSteps, ratio);
        }
    }

    /** Registers {@code topk} (META-INF/services). */
    public static final class Provider extends SparseProvider<Settings> {
        public Provider() {
            super("topk", Settings.class, Map.of(), (s, seed) -> new TopKCompressor(s));
        }
    }

    private final Settings settings;
    private final BlockRatios ratios;
    private final int warmupSteps;

    /** @param ratio fraction of each block sent per step, in (0, 1] */
    public TopKCompressor(double ratio) {
        this(ratio, 0);
    }

    /**
     * @param ratio       fraction of each block sent per step once warmed up, in (0, 1]
     * @param warmupSteps steps of DGC's exponential sparsity warm-up (25%, 6.25%, 1.5625%, 0.4%, then {@code ratio});
     *                    0 sends {@code ratio} from the first step
     */
    public TopKCompressor(double ratio, int warmupSteps) {
        this(new Settings(ratio, warmupSteps));
    }

    /** @param settings ratio and warm-up */
    public TopKCompressor(Settings settings) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.ratios = new BlockRatios(settings.ratio(), settings.learnedRatio());
        this.warmupSteps = settings.warmupSteps();
    }

    @Override
    public String name() {
        return "topk";
    }

    @Override
    public Settings settings() {
        return settings;
    }

    @Override
    public String toString() {
        return "topk(ratio=" + ratios.ratio() + ratios.describeLearned()
                + (warmupSteps > 0 ? ", warmupSteps=" + warmupSteps : "") + ")";
    }

    @Override
    public double density(int step, ParamBlock block) {
        return ratios.density(block, warmupSteps, step);
    }

    @Override
    public State newRank(List<ParamBlock> blocks) {
        return new RankState(new Region(blocks));
    }

    private final class RankState implements State {
        private final Region region;
        private final ErrorFeedback residual;
        private final TopK topK = new TopK();
        private int[] scratch = new int[0];

        RankState(Region region) {
            this.region = region;
            this.residual = ErrorFeedback.inPlace(region, "residual");
        }

        /** The residual (error-feedback memory), region coordinates. */
        @Override
        public void save(CheckpointPart.Builder part, String prefix) {
            residual.save(part, prefix);
        }


        @Override

        public Regrouping regrouping(String prefix) {

            return residual.regrouping(prefix);

        }

        @Override
        public void restore(CheckpointPart part, String prefix) throws CheckpointException {
            residual.restore(part, prefix);
        }

        @Override
        public SparseSet compress(float[] gradient, int step) {
            List<SparseVector> out = new ArrayList<>(region.blockCount());
            for (int b = 0; b < region.blockCount(); b++) {
                ParamBlock block = region.block(b);
                int start = region.start(b);
                residual.compensate(b, gradient);
                int k = count(step, block);
                if (scratch.length < k) {
                    scratch = new int[k];
                }
                int count = topK.select(residual.compensated(), start, start + block.length(), k, scratch);
                out.add(residual.take(b, scratch, count));
            }
            residual.round(out);
            return new SparseSet(out);
        }

        @Override
        public void tap(OfferTap tap) {
            residual.tap(tap);
        }

        @Override
        public void values(ValueEncoding encoding) {
            residual.values(encoding);
        }

        @Override
        public float[] residual() {
            return residual.residual();
        }

        @Override
        public boolean absorb(float[] warmupResidual) {
            residual.absorb(warmupResidual);
            return true;
        }
    }
}

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
 * Deep Gradient Compression (Lin et al., ICLR 2018) on each rank: local gradient clipping, momentum correction
 * ({@code u ← m·u + g; v ← v + u}), top-k of {@code |v|} per block ({@code ratio}, or {@code learnedRatio} for a
 * LEARNED block), momentum-factor masking ({@code u} and {@code v} zeroed where sent), and the exponential warm-up
 * of sparsity (densities 25%, 6.25%, 1.5625%, 0.4%, then the target, over {@code warmupSteps} split in four equal
 * phases).
 *
 * <p>Momentum is applied here, so the model's updater must be plain SGD ({@link #appliesMomentum()}).
 *
 * <pre>{@code
 * GatherCompressor dgc = new DgcCompressor(0.001, 0.9, 0.0, 200);   // ratio, momentum, clip norm (0: off), warm-up
 * }</pre>
 */
public final class DgcCompressor implements GatherCompressor {

    /**
     * The settings of {@code compressor: {type: dgc}}.
     *
     * @param ratio        target fraction of each TOP_K block sent, in (0, 1]
     * @param momentum     momentum factor m in [0, 1)
     * @param clipNorm     local clipping of the region's L2 norm before accumulation, {@code >= 0} and finite; 0 off
     * @param warmupSteps  steps of exponential sparsity warm-up, {@code >= 0}; 0 starts at {@code ratio}
     * @param learnedRatio target fraction of each LEARNED block sent, in (0, 1]; a configuration without it takes
     *                     {@code ratio}. During the warm-up a LEARNED block sends the warm-up's density times
     *                     {@code learnedRatio / ratio} (at most 1), so both policies keep their proportion
     */
    public record Settings(double ratio, double momentum, double clipNorm, int warmupSteps, double learnedRatio) {
        /** Checks every component, naming the first that is out of range. */
        public Settings {
            CompressorKeys.requireRatio(ratio);
            CompressorKeys.requireMomentum(momentum);
            CompressorKeys.requireClipNorm(clipNorm);
            CompressorKeys.requireWarmupSteps(warmupSteps);
            BlockRatios.checkLearnedRatio(learnedRatio);
        }

        /** One ratio for every block. */
        public Settings(double ratio, double momentum, double clipNorm, int warmupSteps) {
            this(ratio, momentum, clipNorm, warmupSteps, ratio);
        }
    }

    /** Registers {@code dgc} (META-INF/services). */
    public static final class Provider extends SparseProvider<Settings> {
        public Provider() {
            super("dgc", Settings.class, Map.of(), (s, seed) -> new DgcCompressor(s));
        }
    }

    private final Settings settings;
    private final BlockRatios ratios;
    private final double momentum;
    private final double clipNorm;
    private final int warmupSteps;

    /**
     * @param ratio       target fraction of each block sent, in (0, 1]
     * @param momentum    momentum factor m in [0, 1)
     * @param clipNorm    local clipping of the region's L2 norm before accumulation; 0 turns it off
     * @param warmupSteps steps of exponential sparsity warm-up; 0 starts at {@code ratio}
     */
    public DgcCompressor(double ratio, double momentum, double clipNorm, int warmupSteps) {
        this(new Settings(ratio, momentum, clipNorm, warmupSteps));
    }

    /** @param settings ratio, momentum, clipping and warm-up */
    public DgcCompressor(Settings settings) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.ratios = new BlockRatios(settings.ratio(), settings.learnedRatio());
        this.momentum = settings.momentum();
        this.clipNorm = settings.clipNorm();
        this.warmupSteps = settings.warmupSteps();
    }

    @Override
    public String name() {
        return "dgc";
    }

    @Override
    public Settings settings() {
        return settings;
    }

    /** The momentum factor m. */
    public double momentumFactor() {
        return momentum;
    }

    @Override
    public String toString() {
        return "dgc(ratio=" + ratios.ratio() + ratios.describeLearned() + ", momentum=" + momentum + ", clipNorm="
                + clipNorm + ", warmupSteps=" + warmupSteps + ")";
    }

    @Override
    public boolean appliesMomentum() {
        return true;
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
        private final float[] u;
        /** The accumulated velocity v: error feedback, accumulating u instead of the gradient. */
        private final ErrorFeedback v;
        private final TopK topK = new TopK();
        private int[] scratch = new int[0];

        RankState(Region region) {
            this.region = region;
            this.u = new float[region.length()];
            this.v = ErrorFeedback.inPlace(region, "v");
        }

        /** The momentum u and the accumulated velocity v, region coordinates. */
        @Override
        public void save(CheckpointPart.Builder part, String prefix) {
            part.section(prefix + "/u").putFloats(u);
            v.save(part, prefix);
        }

        @Override
        public Regrouping regrouping(String prefix) {
            // u (the local momentum) is linear in the gradient: its mean is the momentum of the mean gradient
            return Regrouping.of(prefix + "/u", Regrouping.Rule.MEMORY).and(v.regrouping(prefix));
        }

        @Override
        public void restore(CheckpointPart part, String prefix) throws CheckpointException {
            part.floatsInto(prefix + "/u", u);
            v.restore(part, prefix);
        }

        @Override
        public SparseSet compress(float[] gradient, int step) {
            float scale = clipScale(gradient);
            float m = (float) momentum;
            float[] velocity = v.compensated(); // momentum correction: v accumulates u, not the gradient
            List<SparseVector> out = new ArrayList<>(region.blockCount());
            for (int b = 0; b < region.blockCount(); b++) {
                ParamBlock block = region.block(b);
                int start = region.start(b);
                for (int i = 0; i < block.length(); i++) {
                    int r = start + i;
                    u[r] = m * u[r] + scale * gradient[block.offset() + i];
                    velocity[r] += u[r];
                }
                int k = count(step, block);
                if (scratch.length < k) {
                    scratch = new int[k];
                }
                int count = topK.select(velocity, start, start + block.length(), k, scratch);
                out.add(v.take(b, scratch, count));
                for (int j = 0; j < count; j++) {
                    u[start + scratch[j]] = 0f;
                }
            }
            // v keeps what the rounding lost (v = c − decoded where sent); u stays masked there
            v.round(out);
            return new SparseSet(out);
        }

        private float clipScale(float[] gradient) {
            if (clipNorm == 0) {
                return 1f;
            }
            double sum = 0;
            for (int b = 0; b < region.blockCount(); b++) {
                ParamBlock block = region.block(b);
                for (int i = block.offset(); i < block.end(); i++) {
                    sum += (double) gradient[i] * gradient[i];
                }
            }
            double norm = Math.sqrt(sum);
            return norm > clipNorm ? (float) (clipNorm / norm) : 1f;
        }

        @Override
        public void tap(OfferTap tap) {
            v.tap(tap);
        }

        @Override
        public void values(ValueEncoding encoding) {
            v.values(encoding);
        }

        @Override
        public float[] residual() {
            return v.residual();
        }

        @Override
        public boolean absorb(float[] residual) {
            v.absorb(residual);
            return true;
        }
    }
}

package io.lgc4j.core.compress;

import io.lgc4j.core.layout.ParamBlock;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * ScaleCom (Chen et al., NeurIPS 2020): cyclic local top-k. At step t the leader rank {@code t mod K} picks the top
 * {@code ratio} of each block of its memory-compensated gradient ({@code learnedRatio} of a LEARNED block); every
 * rank sends its own compensated values on that one support, so the value vectors sum element-wise (ring
 * allreduce). The memory is low-pass filtered: {@code m ← (1 − β)·m + β·(m + g − sent)}; β = 1 is plain error
 * feedback.
 *
 * <pre>{@code
 * SharedSupportCompressor scalecom = new ScaleComCompressor(0.001, 1.0);
 * }</pre>
 */
public final class ScaleComCompressor implements SharedSupportCompressor {

    /**
     * The settings of {@code compressor: {type: scalecom}}.
     *
     * @param ratio        fraction of each TOP_K block sent, in (0, 1]
     * @param lowPass      the memory filter β in (0, 1]; 1 = plain error feedback
     * @param learnedRatio fraction of each LEARNED block sent, in (0, 1]; a configuration without it takes
     *                     {@code ratio}
     */
    public record Settings(double ratio, double lowPass, double learnedRatio) {
        /** Checks every component, naming the first that is out of range. */
        public Settings {
            CompressorKeys.requireRatio(ratio);
            CompressorKeys.requireLowPass(lowPass);
            BlockRatios.checkLearnedRatio(learnedRatio);
        }

        /** One ratio for every block. */
        public Settings(double ratio, double lowPass) {
            this(ratio, lowPass, ratio);
        }
    }

    /** Registers {@code scalecom} (META-INF/services). */
    public static final class Provider extends SparseProvider<Settings> {
        public Provider() {
            super("scalecom", Settings.class, Map.of(), (s, seed) -> new ScaleComCompressor(s));
        }
    }

    private final Settings settings;
    private final BlockRatios ratios;
    private final double lowPass;

    /**
     * @param ratio   fraction of each block sent, in (0, 1]
     * @param lowPass the memory filter β in (0, 1]
     */
    public ScaleComCompressor(double ratio, double lowPass) {
        this(new Settings(ratio, lowPass));
    }

    /** @param settings ratio and memory filter */
    public ScaleComCompressor(Settings settings) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.ratios = new BlockRatios(settings.ratio(), settings.learnedRatio());
        this.lowPass = settings.lowPass();
    }

    @Override
    public String name() {
        return "scalecom";
    }

    @Override
    public Settings settings() {
        return settings;
    }

    @Override
    public String toString() {
        return "scalecom(ratio=" + ratios.ratio() + ratios.describeLearned() + ", lowPass=" + lowPass + ")";
    }

    @Override
    public double density(int step, ParamBlock block) {
        return ratios.of(block);
    }

    @Override
    public int leader(int step, int workers) {
        return Math.floorMod(step, workers);
    }

    @Override
    public State newRank(List<ParamBlock> blocks) {
        return new SupportMemory(new Region(blocks), this, lowPass);
    }
}

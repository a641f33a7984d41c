package io.lgc4j.lgc.support;

import io.lgc4j.core.compress.CompressorKeys;
import io.lgc4j.core.compress.SharedSupportCompressor;
import io.lgc4j.core.layout.ParamBlock;

import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * The support selection of LGC (seeds/003 Section V-A, ring-allreduce pattern): each step a leader drawn at random
 * picks the top {@code ratio} of each block of its error-accumulated gradient, and every rank takes its own
 * accumulator's values on that support, so the compact vectors of all ranks line up (and their latents can be
 * averaged). What is not sent stays in the accumulator: plain error feedback (the paper), or, with a low-pass
 * factor β &lt; 1, ScaleCom's filtered memory m ← (1−β)m + β(m + g − sent), which keeps stale large entries from
 * crowding the leader's support.
 *
 * <p>The leader is a pure function of the seed and the step, so every rank draws the same one without a message.
 * The LGC topologies put the LEARNED part of the aligned compact vector through an autoencoder; on its own this
 * compressor is a ScaleCom with random instead of cyclic leaders.
 *
 * <pre>{@code
 * SharedSupportCompressor support = new LgcSupportCompressor(0.001, seed);
 * int leader = support.leader(step, workers);   // the same on every rank
 * }</pre>
 */
public final class LgcSupportCompressor implements SharedSupportCompressor {

    /**
     * What an LGC support compressor is built with. LGC's own settings (the autoencoder's too) are the LGC
     * topologies'; this compressor is their support selection.
     *
     * @param ratio   fraction of each block sent, in (0, 1]
     * @param seed    seed of the leader draw
     * @param lowPass the memory's low-pass factor β in (0, 1]; 1 = plain error feedback
     */
    public record Settings(double ratio, long seed, double lowPass) {
        /** Checks ratio and low-pass factor. */
        public Settings {
            CompressorKeys.requireRatio(ratio);
            CompressorKeys.requireLowPass(lowPass);
        }
    }

    private final Settings settings;
    private final double ratio;
    private final long seed;
    private final double lowPass;

    /**
     * Plain error feedback, as in the paper.
     *
     * @param ratio fraction of each block sent, in (0, 1]
     * @param seed  seed of the leader draw
     */
    public LgcSupportCompressor(double ratio, long seed) {
        this(ratio, seed, 1.0);
    }

    /**
     * @param ratio   fraction of each block sent, in (0, 1]
     * @param seed    seed of the leader draw
     * @param lowPass the memory's low-pass factor β in (0, 1]; 1 = plain error feedback
     */
    public LgcSupportCompressor(double ratio, long seed, double lowPass) {
        this(new Settings(ratio, seed, lowPass));
    }

    /** @param settings ratio, leader seed and low-pass factor */
    public LgcSupportCompressor(Settings settings) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.ratio = settings.ratio();
        this.seed = settings.seed();
        this.lowPass = settings.lowPass();
    }

    @Override
    public String name() {
        return "lgc";
    }

    @Override
    public Settings settings() {
        return settings;
    }

    @Override
    public String toString() {
        return "lgc(ratio=" + ratio + ", seed=" + seed + (lowPass == 1.0 ? "" : ", lowPass=" + lowPass) + ")";
    }

    @Override
    public double density(int step, ParamBlock block) {
        return ratio;
    }

    @Override
    public int leader(int step, int workers) {
        return new SplittableRandom(seed ^ (0x9E3779B97F4A7C15L * (step + 1L))).nextInt(workers);
    }

    @Override
    public State newRank(List<ParamBlock> blocks) {
        return SharedSupportCompressor.lowPassMemory(blocks, this, lowPass);
    }
}

package io.lgc4j.core.compress;

import io.lgc4j.core.layout.ParamBlock;

import java.util.List;
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
        if (!(ratio > 0 && ratio <= 1)) {
            throw new IllegalArgumentException("ratio must be in (0, 1], found " + ratio);
        }
        if (!(lowPass > 0 && lowPass <= 1)) {
            throw new IllegalArgumentException("lowPass must be in (0, 1], found " + lowPass);
        }
        this.ratio = ratio;
        this.seed = seed;
        this.lowPass = lowPass;
    }

    @Override
    public String name() {
        return "lgc";
    }

    @Override
    public String toString() {
        return "lgc(ratio=" + ratio + ", seed=" + seed + (lowPass == 1.0 ? "" : ", lowPass=" + lowPass) + ")";
    }

    @Override
    public double density(int step) {
        return ratio;
    }

    @Override
    public int leader(int step, int workers) {
        return new SplittableRandom(seed ^ (0x9E3779B97F4A7C15L * (step + 1L))).nextInt(workers);
    }

    @Override
    public State newRank(List<ParamBlock> blocks) {
        return new SupportMemory(new Region(blocks), ratio, lowPass);
    }
}

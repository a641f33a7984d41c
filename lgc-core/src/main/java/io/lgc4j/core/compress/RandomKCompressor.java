package io.lgc4j.core.compress;

import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.checkpoint.Persistent.Regrouping;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.layout.ParamBlock;


import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * Random-k with error feedback (Stich et al., NeurIPS 2018): each step every rank sends, per block, its
 * memory-compensated values at k = ⌈ratio·n⌉ indices ({@code learnedRatio} for a LEARNED block) drawn uniformly
 * without replacement, and keeps the rest as its memory (m ← m + g − sent). The indices come from a generator seeded
 * by the run's seed, the step and the block, so every rank draws the same ones without a message: the values line up
 * and sum (a {@link SeededSupportCompressor}), and no index bytes cross the wire. It is the control that spends all
 * its bytes on values: at the bytes another method spends, it shows what choosing the entries is worth.
 *
 * <pre>{@code
 * SeededSupportCompressor randomk = new RandomKCompressor(0.001, seed);
 * SharedSupportCompressor.State rank = randomk.newRank(layout.compressibleBlocks());
 * rank.compensate(gradient, step);
 * float[] sent = rank.take(randomk.support(step, layout.compressibleBlocks()));   // memory = m + g − sent
 * }</pre>
 */
public final class RandomKCompressor implements SeededSupportCompressor {

    /** Separates random-k's draws from the other uses of the run's seed ("RANDOMK" in ASCII). */
    private static final long STREAM = 0x52414E444F4D4BL;

    /**
     * The settings of {@code compressor: {type: randomk}}.
     *
     * @param ratio        fraction of each TOP_K block sent, in (0, 1]
     * @param learnedRatio fraction of each LEARNED block sent, in (0, 1]; a configuration without it takes
     *                     {@code ratio}
     * @param lowPass      the memory filter β in (0, 1] ({@code m ← (1 − β)·m + β·(m + g − sent)}, as ScaleCom's and
     *                     LGC's); 1 = plain error feedback. A configuration takes {@code compressor.lowPass} (default
     *                     0.1), so that random-k as a control keeps the memory rule of the method it is held against
     */
    public record Settings(double ratio, double learnedRatio, double lowPass) {
        /** Checks each, naming the one that is out of range. */
        public Settings {
            CompressorKeys.requireRatio(ratio);
            BlockRatios.checkLearnedRatio(learnedRatio);
            CompressorKeys.requireLowPass(lowPass);
        }

        /** Plain error feedback. */
        public Settings(double ratio, double learnedRatio) {
            this(ratio, learnedRatio, 1.0);
        }

        /** One ratio for every block, plain error feedback. */
        public Settings(double ratio) {
            this(ratio, ratio);
        }
    }

    /**
     * Registers {@code randomk} (META-INF/services): without {@code lowPass}, plain error feedback; the indices drawn
     * from the run's seed.
     */
    public static final class Provider extends SparseProvider<Settings> {
        public Provider() {
            super("randomk", Settings.class, Map.of("lowPass", 1.0), RandomKCompressor::new);
        }
    }

    private final Settings settings;
    private final BlockRatios ratios;
    private final long seed;

    /**
     * @param ratio fraction of each block sent, in (0, 1]
     * @param seed  the run's seed; every rank must be given the same
     */
    public RandomKCompressor(double ratio, long seed) {
        this(new Settings(ratio), seed);
    }

    /**
     * @param settings the ratios
     * @param seed     the run's seed; every rank must be given the same
     */
    public RandomKCompressor(Settings settings, long seed) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.ratios = new BlockRatios(settings.ratio(), settings.learnedRatio());
        this.seed = seed;
    }

    @Override
    public String name() {
        return "randomk";
    }

    @Override
    public Settings settings() {
        return settings;
    }

    @Override
    public String toString() {
        return "randomk(ratio=" + ratios.ratio() + ratios.describeLearned()
                + (settings.lowPass() == 1 ? "" : ", lowPass=" + settings.lowPass()) + ", seed=" + seed + ")";
    }

    @Override
    public double density(int step, ParamBlock block) {
        return ratios.of(block);
    }

    @Override
    public int[][] support(int step, List<ParamBlock> blocks) {
        int[][] support = new int[blocks.size()][];
        for (int b = 0; b < support.length; b++) {
            ParamBlock block = blocks.get(b);
            support[b] = RandomSubset.draw(block.length(), count(step, block),
                    new SplittableRandom(drawSeed(step, block.index())));
        }
        return support;
    }

    /** The seed of one block's draw at one step: the run's seed, the step and the block mixed apart. */
    private long drawSeed(int step, int block) {
        long h = mix(seed ^ STREAM);
        h = mix(h + 0x9E3779B97F4A7C15L * (step + 1L));
        return mix(h + 0xC2B2AE3D27D4EB4FL * (block + 1L));
    }

    /** SplitMix64's finalizer: nearby inputs give unrelated outputs. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** A rank's memory is filtered with the settings' β (1: plain error feedback); its support is the seeded one. */
    @Override
    public State newRank(List<ParamBlock> blocks) {
        return new RankState(List.copyOf(blocks), new SupportMemory(new Region(blocks), this, settings.lowPass()));
    }

    private final class RankState implements State {
        private final List<ParamBlock> blocks;
        private final SupportMemory memory;

        RankState(List<ParamBlock> blocks, SupportMemory memory) {
            this.blocks = blocks;
            this.memory = memory;
        }

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
            memory.compensate(gradient, step);
        }

        /** The seeded support, as every other rank draws it. */
        @Override
        public int[][] chooseSupport(int step) {
            return support(step, blocks);
        }

        @Override
        public float[] take(int[][] support) {
            return memory.take(support);
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
        public float[] residual() {
            return memory.residual();
        }

        @Override
        public boolean absorb(float[] residual) {
            return memory.absorb(residual);
        }
    }
}

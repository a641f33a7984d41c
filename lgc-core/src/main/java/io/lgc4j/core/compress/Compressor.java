package io.lgc4j.core.compress;

import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.sparse.TopK;

import java.util.List;
import java.util.function.Function;

/**
 * A gradient compressor for the compressible blocks of a layout (policy TOP_K or LEARNED; DENSE blocks never reach
 * a compressor). The subtypes fix how payloads aggregate, so a topology can check compatibility in types and refuse
 * an incompatible compressor when it is built.
 *
 * <p>Lifecycle: one {@code Compressor} describes the method and its settings; {@code newRank} gives each rank its
 * own state (residual, momentum), created once and used by that rank's thread only.
 */
public sealed interface Compressor permits GatherCompressor, SharedSupportCompressor, SketchCompressor,
        LowRankCompressor {

    /** The name in configs and result files ({@code topk}, {@code dgc}, {@code scalecom}, {@code randomk}). */
    String name();

    /**
     * The settings this compressor was built with, as its settings record (for example
     * {@link DgcCompressor.Settings}): how the compressor describes itself in result files.
     */
    Record settings();

    /** Whether payloads of different ranks sum element-wise (and so can ride a ring allreduce). */
    boolean summable();

    /**
     * The result of the function for this compressor's kind. A caller says what it does with each of the four kinds
     * in one call, so a fifth kind fails to compile wherever kinds are told apart instead of falling through a branch.
     */
    default <R> R byKind(Function<GatherCompressor, R> gather, Function<SharedSupportCompressor, R> shared,
                         Function<SketchCompressor, R> sketch, Function<LowRankCompressor, R> lowRank) {
        if (this instanceof GatherCompressor g) {
            return gather.apply(g);
        }
        if (this instanceof SharedSupportCompressor s) {
            return shared.apply(s);
        }
        if (this instanceof SketchCompressor k) {
            return sketch.apply(k);
        }
        return lowRank.apply((LowRankCompressor) this);
    }

    /**
     * Whether the compressor applies momentum itself (DGC's momentum correction). The model's own updater must then
     * be plain SGD, or momentum would be applied twice.
     */
    default boolean appliesMomentum() {
        return false;
    }

    /**
     * Fraction of {@code block}'s elements sent at {@code step}: the compressor's {@code ratio}, or its
     * {@code learnedRatio} when the block is LEARNED and the compressor has one; during DGC's warm-up it is larger.
     * Every rank and every decoder computes the same, so a receiver can bound what a sender may send.
     */
    double density(int step, ParamBlock block);

    /**
     * Checks that this compressor can work on {@code blocks} (the compressible blocks of a model's layout); the
     * generic topologies call it when the trainer is built, before anything runs. The default accepts any blocks.
     *
     * @throws io.lgc4j.core.settings.SettingsException naming the setting that does not fit the model
     */
    default void check(List<ParamBlock> blocks) {
    }

    /** The number of entries of {@code block} one rank sends at {@code step}: ⌈density·n⌉ ({@link TopK#countFor}). */
    default int count(int step, ParamBlock block) {
        return TopK.countFor(block.length(), density(step, block));
    }

    /** The blocks a rank state covers, in layout order, with the element offsets of each inside the region. */
    static int regionLength(List<ParamBlock> blocks) {
        int n = 0;
        for (ParamBlock b : blocks) {
            n += b.length();
        }
        return n;
    }
}

package io.lgc4j.core.compress;

import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.settings.ResolvedConfig;
import io.lgc4j.core.settings.Section;
import io.lgc4j.core.settings.SettingsException;

import java.util.Map;

/**
 * The fraction of a block sent per step, by the block's policy: {@code learnedRatio} for a LEARNED block (the blocks
 * LGC's autoencoder carries), {@code ratio} for a TOP_K block. {@code learnedRatio} is an optional key of the topk,
 * dgc, scalecom and randomk settings, so that a control can spend on the LEARNED blocks the bytes LGC spends there;
 * a configuration without it gets {@code learnedRatio = ratio}, and the compressor sends exactly what it sent before
 * the key existed.
 *
 * <p>With DGC's warm-up ({@link SparsityWarmup}) a TOP_K block follows the warm-up's densities and a LEARNED block
 * the same densities times {@code learnedRatio / ratio} (at most 1), so the two policies keep their proportion at
 * every step; from the end of the warm-up each sends exactly its ratio.
 */
record BlockRatios(double ratio, double learnedRatio) {

    /** The key of the LEARNED blocks' ratio in the settings records and the {@code compressor} section. */
    static final String LEARNED_RATIO = "learnedRatio";

    /** Checks {@code learnedRatio}; {@code ratio} is checked by the settings record that holds both. */
    static void checkLearnedRatio(double learnedRatio) {
        SettingsException.require(learnedRatio > 0 && learnedRatio <= 1, LEARNED_RATIO,
                "must be in (0, 1], found " + learnedRatio);
    }

    /**
     * The {@code compressor} section of {@code config} bound to {@code type}, {@code learnedRatio} taking the value of
     * {@code ratio} when the section has none.
     *
     * @throws SettingsException naming the dotted key that is missing, of the wrong kind or out of range
     */
    static <S extends Record> S bind(ResolvedConfig config, Class<S> type) {
        return bind(config, type, Map.of());
    }

    /** As {@link #bind(ResolvedConfig, Class)}, with {@code absent}'s value for each of its keys the section lacks. */
    static <S extends Record> S bind(ResolvedConfig config, Class<S> type, Map<String, Object> absent) {
        Section section = config.section("compressor");
        if (!section.has(LEARNED_RATIO) && section.has("ratio")) {
            section = section.with(LEARNED_RATIO, section.values().get("ratio"));
        }
        for (Map.Entry<String, Object> e : absent.entrySet()) {
            if (!section.has(e.getKey())) {
                section = section.with(e.getKey(), e.getValue());
            }
        }
        return section.bind(type);
    }

    /** The ratio of {@code block}'s policy. */
    double of(ParamBlock block) {
        return block.policy() == LayerPolicy.LEARNED ? learnedRatio : ratio;
    }

    /** The density of {@code block} at {@code step} under a warm-up of {@code warmupSteps} (0: none). */
    double density(ParamBlock block, int warmupSteps, int step) {
        if (step >= warmupSteps) {
            return of(block); // exactly the ratio: a product below could round it up by one entry
        }
        double warm = SparsityWarmup.density(ratio, warmupSteps, step);
        return block.policy() == LayerPolicy.LEARNED ? Math.min(1.0, warm * (learnedRatio / ratio)) : warm;
    }

    /** {@code , learnedRatio=...} when it differs from the ratio, for a compressor's {@code toString}. */
    String describeLearned() {
        return learnedRatio == ratio ? "" : ", learnedRatio=" + learnedRatio;
    }
}

package io.lgc4j.cli.tables;

import java.util.List;

/**
 * What {@code lgc figure mutual-information} measures (seeds/003 Section III).
 *
 * @param steps training steps of the analysed run
 * @param every a sample every this many steps (and at step 0)
 * @param rankA the rank whose gradient is the condition (g_1)
 * @param rankB the rank whose entropy is reported (g_2)
 * @param bins  quantizers to estimate with: a level count (≥ 2), or 0 for the paper's literal 32-bit quantizer
 *              (every distinct float its own symbol)
 */
public record MutualInformationSettings(int steps, int every, int rankA, int rankB, List<Integer> bins) {

    /** The paper's "2^32-level" quantizer, written {@code float32} in suite files. */
    public static final int FLOAT32 = 0;

    /** Copies the list. */
    public MutualInformationSettings {
        bins = List.copyOf(bins);
    }

    /** How a quantizer is named in tables and legends: {@code 256 bins} or {@code float32}. */
    public static String name(int bins) {
        return bins == FLOAT32 ? "float32" : bins + " bins";
    }
}

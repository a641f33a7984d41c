package io.lgc4j.core.compress;

import io.lgc4j.core.layout.ParamBlock;

/**
 * Sees what a rank's compressor state offered in a step, for the diagnostic mode that measures how faithfully a
 * method applies it: per block, the compensated vector the step selects from (memory + gradient, before the sent
 * entries are taken out) and the indices it took. A tap only reads; the state calls it at the moment of taking, and
 * the run is the same with or without one.
 *
 * <pre>{@code
 * state.tap((block, values, from, taken, count) -> record(block, values, from, taken, count));
 * }</pre>
 */
@FunctionalInterface
public interface OfferTap {

    /**
     * One block of one step's offer.
     *
     * @param block  the block
     * @param values holds the compensated values of {@code block}: element i at {@code values[from + i]}; valid
     *               only during the call (copy what you keep)
     * @param from   where the block starts in {@code values}
     * @param taken  the indices (relative to the block) the step takes; only the first {@code count} count
     * @param count  how many indices of {@code taken} count
     */
    void offered(ParamBlock block, float[] values, int from, int[] taken, int count);
}

package io.lgc4j.core.compress;

import io.lgc4j.core.layout.ParamBlock;

import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.protocol.LowRankPlan;
import java.util.List;

/**
 * A compressor whose payload is a low-rank factorization of each matrix-shaped block (PowerSGD), agreed in two
 * summable rounds: two allreduces on a ring, two round trips to a parameter server. {@link State#project} sends
 * P = M·Q (M = memory + gradient) with the uncompressed blocks appended; {@link State#back} orthonormalizes the mean
 * P and sends Q = Mᵀ·P̂; {@link State#finish} writes P̂·Q̄ᵀ and the plain blocks' mean into the gradient.
 * Both means must be bit-identical on every rank; then so is what each rank writes.
 *
 * <pre>{@code
 * float[] p = rank.project(gradient, step);      // allreduce-mean p
 * float[] q = rank.back(p, step);                // allreduce-mean q
 * rank.finish(q, step, gradient);                // gradient's compressible blocks hold the estimated mean
 * }</pre>
 */
public non-sealed interface LowRankCompressor extends Compressor {

    @Override
    default boolean summable() {
        return true;
    }

    /** How {@code blocks} are factored: which go low-rank at which rank, and the two payloads' lengths. */
    LowRankPlan plan(List<ParamBlock> blocks);

    /** A fresh per-rank state for {@code blocks} (the compressible blocks, in layout order). */
    State newRank(List<ParamBlock> blocks);

    /**
     * One rank's memory and the factors of the step in progress. Used by one thread at a time (the rank's, or the
     * exchange's beside the backward pass).
     *
     * <p>Every block's factors are its own, so a step may also go block range by block range ({@link #project(float[],
     * int, int, int, float[])} and the two calls after it): each range's three rounds run in order, the ranges in any
     * order, and the step gives the same bits as the whole-step calls. A ring reduces a range's part of each payload
     * ({@link LowRankPlan#span}) while the backward pass still computes the earlier layers' gradient.
     */
    interface State extends CompressorState {
        /** The plan the payloads follow. */
        LowRankPlan plan();

        /**
         * Round one: compensates the gradient with the memory (M) and returns this rank's first payload: P = M·Q
         * of every low-rank block, then the uncompressed blocks' values ({@link LowRankPlan#firstLength()} floats).
         *
         * @param gradient the rank's flattened gradient (only the compressible blocks are read; it is not modified)
         */
        default float[] project(float[] gradient, int step) {
            float[] first = new float[plan().firstLength()];
            project(gradient, step, 0, plan().entries().size(), first);
            return first;
        }

        /**
         * Round two: from the ranks' mean of the first payloads, orthonormalizes each mean P and returns Q = Mᵀ·P̂
         * of every low-rank block ({@link LowRankPlan#secondLength()} floats).
         */
        default float[] back(float[] firstMean, int step) {
            float[] second = new float[plan().secondLength()];
            back(firstMean, step, 0, plan().entries().size(), second);
            return second;
        }

        /**
         * Ends the step from the ranks' mean of the second payloads: writes the estimated mean (P̂·Q̄ᵀ per low-rank
         * block, the uncompressed blocks' mean) into {@code gradient}'s compressible blocks; memory = M − P̂·Q̄ᵀ.
         */
        default void finish(float[] secondMean, int step, float[] gradient) {
            finish(secondMean, step, 0, plan().entries().size(), gradient);
        }

        /**
         * Round one for blocks {@code from..to} (indices among the compressible blocks): writes their part of the
         * first payload into {@code first} ({@link LowRankPlan#firstLength()} floats; the rest is not touched).
         *
         * @throws IllegalStateException when a block of the range is not between steps, or the range's step is not
         *                               the one other ranges have open
         */
        void project(float[] gradient, int step, int from, int to, float[] first);

        /** Round two for blocks {@code from..to}: reads their part of {@code firstMean}, writes theirs of {@code second}. */
        void back(float[] firstMean, int step, int from, int to, float[] second);

        /** Round three for blocks {@code from..to}: reads their part of {@code secondMean}, writes their gradient. */
        void finish(float[] secondMean, int step, int from, int to, float[] gradient);

        /**
         * Shows {@code tap} what each later step offers (diagnostics; {@code null} removes it): per block the
         * compensated M, every element taken (a low-rank update covers the whole block).
         */
        @Override
        void tap(OfferTap tap);

        /**
         * Any encoding: the factors may travel rounded, because what the state applies and takes out of its memory is
         * computed from the decoded means (memory = M − P̂·Q̄ᵀ exactly); its plain blocks keep no memory.
         */
        @Override
        default void values(ValueEncoding encoding) {
        }
    }
}

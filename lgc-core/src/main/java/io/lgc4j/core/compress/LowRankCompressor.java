package io.lgc4j.core.compress;

import io.lgc4j.core.layout.ParamBlock;

import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.protocol.LowRankPlan;
import java.util.List;

/**
 * A compressor whose payload is a low-rank factorization of each matrix-shaped block (PowerSGD): the ranks agree on
 * the factors in two summable rounds, so they ride two allreduces on a ring and two round trips to a parameter
 * server.
 *
 * <ol>
 *   <li>{@link State#project}: each rank adds its memory to its gradient (M) and sends P = M·Q for the step's Q, with
 *       the blocks that go uncompressed appended as plain values;</li>
 *   <li>{@link State#back}: from the ranks' mean of that payload each rank orthonormalizes the mean P (P̂, the same
 *       bits on every rank) and sends Q = Mᵀ·P̂;</li>
 *   <li>{@link State#finish}: from the ranks' mean of the Qs (Q̄) each rank writes P̂·Q̄ᵀ — the mean of the ranks'
 *       M projected on P̂'s columns — and the uncompressed blocks' mean into its gradient, keeps M − P̂·Q̄ᵀ as its
 *       memory and Q̄ as the next step's Q.</li>
 * </ol>
 * Both means must be bit-identical on every rank (an allreduce's or a server's broadcast), and then so is what each
 * rank writes.
 *
 * <pre>{@code
 * LowRankCompressor.State rank = psgd.newRank(layout.compressibleBlocks());
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

    /** One rank's memory and the factors of the step in progress. Used by that rank's thread only. */
    interface State extends CompressorState {
        /**
         * Round one: compensates the gradient with the memory (M) and returns this rank's first payload: P = M·Q
         * of every low-rank block, then the uncompressed blocks' values ({@link LowRankPlan#firstLength()} floats).
         *
         * @param gradient the rank's flattened gradient (only the compressible blocks are read; it is not modified)
         */
        float[] project(float[] gradient, int step);

        /**
         * Round two: from the ranks' mean of the first payloads, orthonormalizes each mean P and returns Q = Mᵀ·P̂
         * of every low-rank block ({@link LowRankPlan#secondLength()} floats).
         */
        float[] back(float[] firstMean, int step);

        /**
         * Ends the step from the ranks' mean of the second payloads: writes the estimated mean (P̂·Q̄ᵀ per low-rank
         * block, the uncompressed blocks' mean) into {@code gradient}'s compressible blocks; memory = M − P̂·Q̄ᵀ.
         */
        void finish(float[] secondMean, int step, float[] gradient);

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

package io.lgc4j.core.compress;

import io.lgc4j.core.checkpoint.Persistent;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.comm.ValueEncoding;

import io.lgc4j.core.protocol.Sketch;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One rank's compressor state, as one of the four ways payloads aggregate. An exchange says what it does with each
 * kind in one call ({@link #byKind}, {@link #onKind}), and each kind carries the compressor that made it, so the
 * exchange can ask it for the step's leader or density.
 *
 * <pre>{@code
 * RankState state = RankState.of(compressor, layout.compressibleBlocks());
 * state.onKind(g -> gather(g, tag, gradient), s -> shared(s, tag, gradient), k -> sketch(k, tag, gradient),
 *         l -> lowRank(l, tag, gradient));
 * }</pre>
 */
public sealed interface RankState {

    /** Seeds sketch hashes; every rank uses the same, so no message is needed to agree on them. */
    long SKETCH_SEED = 0x53325F534B455443L;

    /** The compressor this state belongs to. */
    Compressor compressor();

    /** The rank's state: its memory, what it offers, the encoding of its values. */
    CompressorState state();

    /** Each rank sends its own sparse set (gather-only: Sparse GD, DGC). */
    record Gather(GatherCompressor compressor, GatherCompressor.State state) implements RankState {
    }

    /**
     * All ranks send values on one support: a leader's (summable: ScaleCom, LGC's support), or one every rank draws
     * (random-k, a {@link SeededSupportCompressor}).
     */
    record Shared(SharedSupportCompressor compressor, SharedSupportCompressor.State state) implements RankState {
    }

    /** Each rank sends a count-sketch and a bitmap (summable: S2). */
    record Sketch(SketchCompressor compressor, SketchCompressor.State state) implements RankState {
    }

    /** Each rank sends low-rank factors in two summable rounds (PowerSGD). */
    record LowRank(LowRankCompressor compressor, LowRankCompressor.State state) implements RankState {
    }

    /**
     * Shows {@code tap} what this state offers each later step (see {@link OfferTap}).
     *
     * @throws UnsupportedOperationException for a sketch state, which has no offer to show
     */
    default void tap(OfferTap tap) {
        state().tap(tap);
    }

    /**
     * Tells the state the encoding its values travel in this step ({@link io.lgc4j.core.comm.StepTag#values()}):
     * a gather or shared-support state rounds what it sends to what the receivers decode and keeps the rounding in
     * its memory; a sketch state needs nothing (S2's counters always travel in float32), nor a low-rank one (its
     * memory is computed from the decoded means).
     *
     * @throws UnsupportedOperationException when the state cannot send {@code encoding} (a kind that does not round)
     */
    default void values(ValueEncoding encoding) {
        state().values(encoding);
    }

    /** As {@link CompressorState#absorb}: adds a warm-up's residual into this state's memory, if it keeps one. */
    default boolean absorb(float[] residual) {
        return state().absorb(residual);
    }

    /** What this state carries from one step to the next (its memory), for checkpoints. */
    default Persistent persistent() {
        return state();
    }

    /**
     * The result of the function for this state's kind: every exchange names what it does with each of the four, so
     * a fifth kind fails to compile there ({@link Compressor#byKind}).
     */
    default <R> R byKind(Function<Gather, R> gather, Function<Shared, R> shared, Function<Sketch, R> sketch,
                         Function<LowRank, R> lowRank) {
        if (this instanceof Gather g) {
            return gather.apply(g);
        }
        if (this instanceof Shared s) {
            return shared.apply(s);
        }
        if (this instanceof Sketch k) {
            return sketch.apply(k);
        }
        return lowRank.apply((LowRank) this);
    }

    /** As {@link #byKind}, for a step that returns nothing. */
    default void onKind(Consumer<Gather> gather, Consumer<Shared> shared, Consumer<Sketch> sketch,
                        Consumer<LowRank> lowRank) {
        byKind(g -> run(gather, g), s -> run(shared, s), k -> run(sketch, k), l -> run(lowRank, l));
    }

    private static <T> Void run(Consumer<T> action, T kind) {
        action.accept(kind);
        return null;
    }

    /** A fresh state of {@code compressor} for one rank over {@code blocks}. */
    static RankState of(Compressor compressor, List<ParamBlock> blocks) {
        return compressor.byKind(g -> new Gather(g, g.newRank(blocks)), s -> new Shared(s, s.newRank(blocks)),
                k -> new Sketch(k, k.newRank(blocks, SKETCH_SEED)), l -> new LowRank(l, l.newRank(blocks)));
    }
}

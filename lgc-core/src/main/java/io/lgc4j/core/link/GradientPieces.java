package io.lgc4j.core.link;

import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.ParamBlock;

import java.util.ArrayList;
import java.util.List;

/**
 * A step's gradient as it arrives from the backward pass ({@code training.overlap: backward}): the last layers' part
 * first. An exchange that {@linkplain io.lgc4j.core.train.GradientExchange#streams streams} cuts its work into
 * {@link #pieces()} and reads a piece of the gradient array only after {@link #await} has returned for it, so it can
 * send the last layers' gradient while the first layers' is still being computed.
 *
 * <p>The pieces are fixed by the layout and the bucket size alone ({@link #plan}), never by timing: every rank cuts
 * the same pieces, so the frames match whatever each rank's backward pass does.
 */
public interface GradientPieces {

    /** Elements {@code from} (inclusive) to {@code to} (exclusive) of the flattened gradient. */
    record Piece(int from, int to) {
        public Piece {
            if (from < 0 || to < from) {
                throw new IllegalArgumentException("a piece spans from <= to, both >= 0, found " + from + ".." + to);
            }
        }
    }

    /** The pieces in the order the backward pass finishes them (the highest elements first); they tile 0..n. */
    List<Piece> pieces();

    /**
     * Waits until {@code piece}'s elements are in the gradient array.
     *
     * @throws io.lgc4j.core.comm.TransportClosedException when the backward pass failed or the rank stopped: the
     *         piece will never come
     */
    void await(Piece piece);

    /**
     * The pieces of a gradient laid out as {@code layout}: whole layers, from the last, gathered until a piece holds
     * at least {@code bucketBytes} of float32 (the last piece, the first layers', may hold less). A layer is never
     * cut: the backward pass finishes a layer's parameters together.
     *
     * @throws IllegalArgumentException when {@code bucketBytes} is not positive
     */
    static List<Piece> plan(GradientLayout layout, int bucketBytes) {
        if (bucketBytes <= 0) {
            throw new IllegalArgumentException("bucketBytes must be > 0, found " + bucketBytes);
        }
        List<ParamBlock> blocks = layout.blocks();
        List<Piece> pieces = new ArrayList<>();
        int to = layout.length();
        for (int b = blocks.size() - 1; b >= 0; b--) {
            ParamBlock block = blocks.get(b);
            int from = block.offset();
            boolean layerStarts = b == 0 || blocks.get(b - 1).layerIndex() != block.layerIndex();
            if (layerStarts && (long) (to - from) * Float.BYTES >= bucketBytes) {
                pieces.add(new Piece(from, to));
                to = from;
            }
        }
        if (to > 0 || pieces.isEmpty()) {
            pieces.add(new Piece(0, to));
        }
        return List.copyOf(pieces);
    }
}

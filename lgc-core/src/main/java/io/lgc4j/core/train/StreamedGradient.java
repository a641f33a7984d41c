package io.lgc4j.core.train;

import io.lgc4j.core.comm.TransportClosedException;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.link.GradientPieces;

import org.nd4j.linalg.api.ndarray.INDArray;

import java.util.BitSet;
import java.util.List;
import java.util.function.Supplier;

/**
 * One step's gradient handed from the backward pass (the rank's thread) to the exchange (its own thread),
 * {@code training.overlap: backward}. The pass tells each finished layer ({@link ReplicaModel.LayerTap}); its part of
 * the model's flattened gradient is copied into the step's array at once, checked finite, and the exchange may read
 * every piece that lies wholly in the finished tail.
 */
final class StreamedGradient implements GradientPieces, ReplicaModel.LayerTap {
    private final List<Piece> pieces;
    private final GradientLayout layout;
    private final float[] gradient;
    private final Supplier<INDArray> view;
    private final int rank;
    private final int step;
    private final BitSet copied;
    /** Every element from here to the end is copied (guarded by this). */
    private int finalFrom;
    private boolean failed;
    private NonFiniteGradientException nonFinite;

    /**
     * @param view     the model's flattened gradient, which the pass writes
     * @param gradient the step's array, which the exchange reads
     */
    StreamedGradient(List<Piece> pieces, GradientLayout layout, Supplier<INDArray> view, float[] gradient, int rank,
                     int step) {
        this.pieces = pieces;
        this.layout = layout;
        this.view = view;
        this.gradient = gradient;
        this.rank = rank;
        this.step = step;
        this.copied = new BitSet(gradient.length);
        this.finalFrom = gradient.length;
    }

    @Override
    public List<Piece> pieces() {
        return pieces;
    }

    /** On the rank's thread, inside the backward pass: elements {@code from..to} are final; copies them. */
    @Override
    public void finished(int from, int to) {
        INDArray flat = view.get();
        float[] values = flat.data().getFloatsAt(flat.offset() + from, to - from);
        for (int i = 0; i < values.length; i++) {
            if (!Float.isFinite(values[i]) && nonFinite == null) {
                int at = from + i;
                ParamBlock block = layout.blockAt(at);
                nonFinite = new NonFiniteGradientException("rank " + rank + " step " + step + ": gradient element "
                        + at + " is " + values[i] + " (block " + block.qualifiedName() + ", element "
                        + (at - block.offset()) + " of " + block.length() + "); it was not sent");
            }
        }
        if (nonFinite != null) {
            return; // nothing from here on is handed over: the step fails once the pass returns
        }
        System.arraycopy(values, 0, gradient, from, values.length);
        synchronized (this) {
            copied.set(from, to);
            finalFrom = copied.previousClearBit(gradient.length - 1) + 1;
            notifyAll();
        }
    }

    /** After the pass: the first non-finite element found, which was not handed over. */
    void throwIfNonFinite() {
        if (nonFinite != null) {
            throw nonFinite;
        }
    }

    /** The step failed on the rank's thread: a wait for a piece will not end. */
    synchronized void fail() {
        failed = true;
        notifyAll();
    }

    @Override
    public synchronized void await(Piece piece) {
        while (finalFrom > piece.from()) {
            if (failed) {
                throw new TransportClosedException("rank " + rank + " step " + step + ": the backward pass stopped"
                        + " before elements " + piece.from() + ".." + piece.to() + " of the gradient were final");
            }
            try {
                wait();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new TransportClosedException("rank " + rank + " step " + step + ": interrupted waiting for"
                        + " elements " + piece.from() + ".." + piece.to() + " of the gradient");
            }
        }
    }
}

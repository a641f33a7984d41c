package io.lgc4j.core.train;

import org.nd4j.linalg.factory.Nd4j;

import java.util.SplittableRandom;

/**
 * The random numbers a model's layers draw while they train: dropout of every kind ({@code Dropout},
 * {@code GaussianDropout}, {@code AlphaDropout}, {@code SpatialDropout}), {@code GaussianNoise}, {@code DropConnect}
 * and {@code WeightNoise} — every DL4J {@code IDropout} and {@code IWeightNoise} — draw from ND4J's generator of the
 * thread that runs the forward pass ({@code Nd4j.getRandom()}, one per thread). A new thread's generator is seeded
 * from the clock, so without this, a model with Dropout trained on the in-process runtime's rank threads gave another
 * result on every run, and a launched process (whose main thread's generator the model's own seed had set) another
 * still.
 *
 * <p>Before every forward and backward pass, {@link #beginPass} sets the thread's generator to a stream fixed by
 * (run seed, rank, step). Each rank draws its own masks, every runtime draws the same ones, a rerun repeats them and a
 * resumed run draws at step s what the uninterrupted run drew, whichever thread runs the pass (the rank's, or the one
 * that computes a step ahead).
 */
final class LayerRandomness {

    private LayerRandomness() {
    }

    /**
     * @return the seed of rank {@code rank}'s stream at step {@code step} of a run seeded {@code runSeed}: distinct
     *         (with overwhelming probability) for every (rank, step), a pure function of the three
     */
    static long streamSeed(long runSeed, int rank, int step) {
        // new SplittableRandom(x).nextLong() is Stafford's mix64 of x + γ: each component moves every bit of the result
        long perRun = new SplittableRandom(runSeed).nextLong();
        long perRank = new SplittableRandom(perRun + rank).nextLong();
        return new SplittableRandom(perRank + step).nextLong();
    }

    /** Sets this thread's ND4J generator to rank {@code rank}'s stream for step {@code step}. */
    static void beginPass(long runSeed, int rank, int step) {
        Nd4j.getRandom().setSeed(streamSeed(runSeed, rank, step));
    }
}

package io.lgc4j.core.train;

import io.lgc4j.core.data.EpochOrder;
import io.lgc4j.core.data.MemorySource;

import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Which examples each rank reads at each step: every epoch the example indices are shuffled with a generator
 * seeded from the run seed and the epoch, then cut into K disjoint contiguous shards, one per rank; rank r reads
 * its shard in mini-batches of b. Examples beyond {@code K * b * stepsPerEpoch} are left out of that epoch (a
 * different tail every epoch, since the order changes). The order is {@link EpochOrder}'s; the trainer reads through a
 * {@link io.lgc4j.core.data.DataSource}, which gives the same rows.
 */
public final class ShardPlan {
    private final int examples;
    private final int workers;
    private final int batchSize;
    private final long seed;
    private int cachedEpoch = -1;
    private int[] order;

    /**
     * @throws IllegalArgumentException when the data cannot give every rank one batch per epoch
     */
    public ShardPlan(int examples, int workers, int batchSize, long seed) {
        if ((long) workers * batchSize > examples) {
            throw new IllegalArgumentException(examples + " examples are fewer than one global batch: workers ×"
                    + " batchSize = " + workers + " × " + batchSize + " = " + ((long) workers * batchSize)
                    + " (every rank reads one batch per step)");
        }
        this.examples = examples;
        this.workers = workers;
        this.batchSize = batchSize;
        this.seed = seed;
    }

    /** Synchronous steps per epoch. */
    public int stepsPerEpoch() {
        return examples / (workers * batchSize);
    }

    /**
     * The examples at {@code rows} of {@code data}, whose first dimension is the example: flat features {@code [N, F]},
     * images {@code [N, C, H, W]}, sequences {@code [N, F, T]}, labels alike. Beyond two dimensions {@code data}
     * should be in C order ({@link #rowMajor}): then each example is one row of a view, and nothing is copied but the
     * examples picked.
     *
     * @param data every example
     * @param rows indices into the first dimension
     * @return a new array of shape {@code [rows.length, ...]}
     */
    public static INDArray examples(INDArray data, int[] rows) {
        return MemorySource.rows(data, rows);
    }

    /**
     * @param data every example
     * @return {@code data} itself when it is a matrix or already in C order, else a C-order copy, made once so that
     *         {@link #examples} never copies the whole data set
     */
    public static INDArray rowMajor(INDArray data) {
        return MemorySource.rowMajor(data);
    }

    /** Example indices rank {@code rank} reads at step {@code stepInEpoch} of {@code epoch}. */
    public synchronized int[] batch(int epoch, int stepInEpoch, int rank) {
        if (epoch != cachedEpoch) {
            order = shuffled(epoch);
            cachedEpoch = epoch;
        }
        int shard = examples / workers;
        int from = rank * shard + stepInEpoch * batchSize;
        int[] batch = new int[batchSize];
        System.arraycopy(order, from, batch, 0, batchSize);
        return batch;
    }

    private int[] shuffled(int epoch) {
        return EpochOrder.of(examples, seed, epoch);
    }
}

package io.lgc4j.core.train;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

import java.util.SplittableRandom;

/**
 * Which examples each rank reads at each step: every epoch the example indices are shuffled with a generator
 * seeded from the run seed and the epoch, then cut into K disjoint contiguous shards, one per rank; rank r reads
 * its shard in mini-batches of b. Examples beyond {@code K * b * stepsPerEpoch} are left out of that epoch (a
 * different tail every epoch, since the order changes).
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
        if (data.rank() == 2) {
            return Nd4j.pullRows(data, 1, rows);
        }
        // ND4J pulls rows of a matrix only: view each example as one row, pull, restore the example's shape
        long[] shape = data.shape();
        long[] picked = shape.clone();
        picked[0] = rows.length;
        return Nd4j.pullRows(data.reshape('c', shape[0], data.length() / shape[0]), 1, rows).reshape('c', picked);
    }

    /**
     * @param data every example
     * @return {@code data} itself when it is a matrix or already in C order, else a C-order copy, made once so that
     *         {@link #examples} never copies the whole data set
     */
    public static INDArray rowMajor(INDArray data) {
        return data.rank() == 2 || data.ordering() == 'c' ? data : data.dup('c');
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
        int[] idx = new int[examples];
        for (int i = 0; i < examples; i++) {
            idx[i] = i;
        }
        SplittableRandom random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + epoch);
        for (int i = examples - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = idx[i];
            idx[i] = idx[j];
            idx[j] = t;
        }
        return idx;
    }
}

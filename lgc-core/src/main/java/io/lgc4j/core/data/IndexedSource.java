package io.lgc4j.core.data;

import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;

/**
 * A source that can read any example by its number {@code 0 … N−1}: every such source gives the same order
 * ({@link EpochOrder}: shuffled per epoch, contiguous blocks per rank), so the same examples in memory, in CSV files
 * or in IDX files give the same run bit for bit. A subclass says how many examples there are and reads a list of
 * them; it reads nothing else, so a rank holds only the batch it reads (and one {@code int} per example for the
 * order).
 */
public abstract class IndexedSource implements DataSource {

    /** How many examples the source holds; cheap (an index or a header). */
    protected abstract long examples();

    /**
     * The examples numbered {@code rows}, in that order, as one data set of {@code rows.length} examples: features
     * and labels, no masks. Called on the reading thread of one rank; implementations used by several ranks of one
     * process at once must allow concurrent calls.
     */
    protected abstract DataSet read(int[] rows) throws IOException;

    /** Identifies the data (0: the source cannot say); compared across workers before step 0. */
    protected long fingerprint() {
        return 0;
    }

    @Override
    public DataPlan plan(int workers, int batchSize) {
        return DataPlan.of(examples(), workers, batchSize, fingerprint());
    }

    /**
     * Every example once, in its number order, in batches of {@code batchSize} (the last one shorter when
     * {@code batchSize} does not divide N): for evaluation and prediction, e.g.
     * {@code builder.evaluation(testSource.inOrder(256), 100)}. Reads one batch at a time.
     */
    public DataSetIterator inOrder(int batchSize) {
        if (batchSize < 1) {
            throw new IllegalArgumentException("batchSize must be >= 1, found " + batchSize);
        }
        long n = examples();
        int batches = Math.toIntExact((n + batchSize - 1) / batchSize);
        return new ShardIterator(batchSize, batches) {
            private long next;

            @Override
            protected DataSet read() {
                int[] rows = new int[(int) Math.min(batchSize, n - next)];
                for (int i = 0; i < rows.length; i++) {
                    rows[i] = (int) (next + i);
                }
                next += rows.length;
                try {
                    return IndexedSource.this.read(rows);
                } catch (IOException e) {
                    throw new UncheckedIOException(describe() + ": cannot read examples " + rows[0] + " to "
                            + (rows[0] + rows.length - 1) + ": " + e.getMessage(), e);
                }
            }
        };
    }

    /** Rows read at once by {@link #check}. */
    private static final int CHECK_BATCH = 512;
    /** {@link DataCheck#SAMPLE}: one row in this many, beyond the share's first {@value #SAMPLE_HEAD}. */
    private static final int SAMPLE_EVERY = 100;
    private static final int SAMPLE_HEAD = 1_000;

    /**
     * Reads rank {@code rank}'s share with {@link #read}, {@value #CHECK_BATCH} rows at a time: rows
     * {@code [rank·N/K, (rank+1)·N/K)}, all of them or a sample ({@link DataCheck}).
     */
    @Override
    public long check(int rank, int workers, DataCheck how) throws IOException {
        if (how == DataCheck.NONE) {
            return 0;
        }
        long from = shareStart(rank, workers);
        long to = shareStart(rank + 1, workers);
        long count = 0;
        int[] batch = new int[CHECK_BATCH];
        int len = 0;
        for (long row = from; row < to; row = nextCheckedRow(row, from, to, how)) {
            batch[len++] = (int) row;
            boolean last = nextCheckedRow(row, from, to, how) >= to;
            if (len == CHECK_BATCH || last) {
                try {
                    read(len == CHECK_BATCH ? batch : Arrays.copyOf(batch, len));
                } catch (IOException | RuntimeException e) {
                    throw checkFailed(rank, workers, how, e);
                }
                count += len;
                len = 0;
            }
        }
        return count;
    }

    /** The first row of share {@code rank} of {@code workers}: {@code rank·N/K} (the share ends where the next starts). */
    protected final long shareStart(int rank, int workers) {
        return examples() * rank / workers;
    }

    /** What {@link #check} throws when share {@code rank} holds a bad row: the rows, the source, then {@code e}'s message. */
    protected final IOException checkFailed(int rank, int workers, DataCheck how, Exception e) {
        return new IOException("checking rows " + shareStart(rank, workers) + " to " + (shareStart(rank + 1, workers)
                - 1) + " of " + describe() + " (share " + rank + " of " + workers + ", " + how.configName() + "): "
                + e.getMessage(), e);
    }

    /**
     * The row {@link #check} reads after {@code row} of the share {@code [from, to)}, or {@code to} after its last:
     * {@link DataCheck#FULL} every row; {@link DataCheck#SAMPLE} the share's first {@value #SAMPLE_HEAD} rows, then
     * every {@value #SAMPLE_EVERY}th, and its last. A source that checks rows its own way walks them with this.
     */
    protected static long nextCheckedRow(long row, long from, long to, DataCheck how) {
        if (how == DataCheck.FULL || row < from + SAMPLE_HEAD) {
            return row + 1;
        }
        return row >= to - 1 ? to : Math.min(row + SAMPLE_EVERY, to - 1);
    }

    /** An indexed source can read the rest of an epoch at another K: it owns the order. */
    @Override
    public boolean resplits() {
        return true;
    }

    @Override
    public DataSetIterator open(Shard shard) {
        long n = examples();
        if (n > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(describe() + " holds " + n + " examples; a shuffled order over all of"
                    + " them is limited to " + Integer.MAX_VALUE);
        }
        int[] order = EpochOrder.of((int) n, shard.seed(), shard.epoch());
        int b = shard.batchSize();
        if (shard.resized()) {
            // the examples the epoch's earlier parts did not read, split over this K as a fresh epoch of them
            order = new EpochCursor(shard.epoch(), shard.before()).unreadOf(order, b);
        }
        int steps = order.length / (shard.workers() * b);
        if (shard.fromStep() > steps) {
            throw new IllegalArgumentException("step " + shard.fromStep() + " is beyond the epoch's " + steps
                    + " steps");
        }
        int[] rows = order;
        long start = EpochOrder.position(rows.length, shard.workers(), b, shard.rank(), 0);
        return new ShardIterator(b, steps - shard.fromStep()) {
            private int step = shard.fromStep();

            @Override
            protected DataSet read() {
                int[] batch = new int[b];
                System.arraycopy(rows, (int) (start + (long) step * b), batch, 0, b);
                step++;
                try {
                    return IndexedSource.this.read(batch);
                } catch (IOException e) {
                    throw new UncheckedIOException(describe() + ": cannot read rank " + shard.rank() + "'s batch of"
                            + " step " + (step - 1) + " in epoch " + shard.epoch() + ": " + e.getMessage(), e);
                }
            }
        };
    }
}

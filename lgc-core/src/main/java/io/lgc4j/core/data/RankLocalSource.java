package io.lgc4j.core.data;

import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;

/**
 * Each rank reads only examples of its own, which no other rank can reach: a Spark partition, a file per host. There
 * is no global order; rank r shuffles its own n_r examples every epoch ({@link EpochOrder} over n_r, seeded
 * {@code seed + RANK_SEED · r}) and reads the first {@code stepsPerEpoch · b} of them. Every rank must be told the
 * same steps per epoch (a Spark driver counts the partitions first and gives each the smallest ⌊n_r / b⌋), and every
 * rank must hold at least that many batches. A rank's examples are an {@link IndexedSource} of its own ({@link
 * #ofIndexed}: it reads only the batches it trains on, e.g. from a file) or a {@link DataSet} in memory ({@link #of});
 * the same examples give the same batches either way.
 *
 * <pre>{@code
 * DataSource mine = RankLocalSource.of(totalRows, steps, rank -> partitionRows());   // only this rank's rows
 * DataSource spilled = RankLocalSource.ofIndexed(totalRows, steps, rank -> partitionFile());
 * }</pre>
 */
public final class RankLocalSource implements DataSource {
    /** How a rank's seed differs from the run's: {@code seed + RANK_SEED · rank}. */
    public static final long RANK_SEED = 0x632BE59BD9B4E019L;

    private final long examples;
    private final int stepsPerEpoch;
    private final IntFunction<? extends IndexedSource> rowsOf;
    private final Map<Integer, IndexedSource> read = new ConcurrentHashMap<>();
    private final Map<Integer, Integer> earlier;

    private RankLocalSource(long examples, int stepsPerEpoch, IntFunction<? extends IndexedSource> rowsOf,
                            Map<Integer, Integer> earlier) {
        if (stepsPerEpoch < 1) {
            throw new IllegalArgumentException("stepsPerEpoch must be >= 1, found " + stepsPerEpoch);
        }
        this.examples = examples;
        this.stepsPerEpoch = stepsPerEpoch;
        this.rowsOf = Objects.requireNonNull(rowsOf, "rowsOf");
        this.earlier = Map.copyOf(earlier);
    }

    private RankLocalSource(long examples, int stepsPerEpoch, IntFunction<? extends IndexedSource> rowsOf) {
        this(examples, stepsPerEpoch, rowsOf, Map.of());
    }

    /**
     * This source, knowing the steps per epoch the run had at {@code workers} ranks over other partitions (an elastic
     * fit's earlier attempt): what a checkpoint written there, which records only its next step, says about its epoch
     * ({@link #plan} at that K).
     */
    public RankLocalSource withStepsPerEpochAt(int workers, int steps) {
        if (steps < 1) {
            throw new IllegalArgumentException("steps per epoch at K = " + workers + " must be >= 1, found " + steps);
        }
        Map<Integer, Integer> known = new HashMap<>(earlier);
        known.put(workers, steps);
        return new RankLocalSource(examples, stepsPerEpoch, rowsOf, known);
    }

    /**
     * Each rank's examples in memory: the same as {@link #ofIndexed} over {@link MemorySource#of} of them.
     *
     * @param examples      the examples of every rank together (what every rank reports to rank 0)
     * @param stepsPerEpoch the steps every rank takes per epoch
     * @param examplesOf    rank r's examples; called at most once per rank, on that rank's reading thread
     */
    public static RankLocalSource of(long examples, int stepsPerEpoch, IntFunction<DataSet> examplesOf) {
        Objects.requireNonNull(examplesOf, "examplesOf");
        return new RankLocalSource(examples, stepsPerEpoch, r -> {
            DataSet d = examplesOf.apply(r);
            if (d == null || d.getFeatures() == null || d.getLabels() == null) {
                throw new IllegalArgumentException("rank " + r + " got no examples of its own");
            }
            if (d.getFeaturesMaskArray() != null || d.getLabelsMaskArray() != null) {
                throw new IllegalArgumentException("rank " + r + "'s examples have a mask; masks are not carried to"
                        + " the ranks yet");
            }
            return MemorySource.of(d);
        });
    }

    /**
     * Each rank's examples as a source of its own, read one batch at a time: rank r numbers its n_r examples
     * {@code 0 … n_r−1} by {@code rowsOf.apply(r)}'s numbers and reads the batches of its order through that
     * source, so a rank holds only the batches in flight.
     *
     * <pre>{@code
     * DataSource mine = RankLocalSource.ofIndexed(totalRows, steps, rank -> spilledPartition);
     * }</pre>
     *
     * @param examples      the examples of every rank together (what every rank reports to rank 0)
     * @param stepsPerEpoch the steps every rank takes per epoch
     * @param rowsOf        rank r's examples; called at most once per rank, on that rank's reading thread; its
     *                      {@code read} is called on that thread, one batch at a time
     */
    public static RankLocalSource ofIndexed(long examples, int stepsPerEpoch,
                                            IntFunction<? extends IndexedSource> rowsOf) {
        return new RankLocalSource(examples, stepsPerEpoch, rowsOf);
    }

    /** Every K gets the steps per epoch this source was given, but a K it was told of ({@link #withStepsPerEpochAt}). */
    @Override
    public DataPlan plan(int workers, int batchSize) {
        return new DataPlan(examples, earlier.getOrDefault(workers, stepsPerEpoch), 0);
    }

    @Override
    public DataSetIterator open(Shard shard) {
        if (shard.resized()) {
            throw new IllegalArgumentException("rank " + shard.rank() + ": a rank-local source cannot read the rest of"
                    + " an epoch another number of ranks began (its rows have no order across ranks); resume at an"
                    + " epoch's first step or at the same K");
        }
        IndexedSource mine = read.computeIfAbsent(shard.rank(), r -> {
            IndexedSource s = rowsOf.apply(r);
            if (s == null) {
                throw new IllegalArgumentException("rank " + r + " got no examples of its own");
            }
            return s;
        });
        long n = mine.examples();
        int b = shard.batchSize();
        if (n < (long) stepsPerEpoch * b) {
            throw new IllegalArgumentException(String.format("rank %d holds %,d examples, fewer than the %,d steps"
                    + " × batch %d = %,d it must read per epoch", shard.rank(), n, stepsPerEpoch, b,
                    (long) stepsPerEpoch * b));
        }
        if (n > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("rank " + shard.rank() + " holds " + n + " examples; a shuffled order"
                    + " over them is limited to " + Integer.MAX_VALUE);
        }
        int[] order = EpochOrder.of((int) n, shard.seed() + RANK_SEED * shard.rank(), shard.epoch());
        return new ShardIterator(b, stepsPerEpoch - shard.fromStep()) {
            private int step = shard.fromStep();

            @Override
            protected DataSet read() {
                int[] rows = new int[b];
                System.arraycopy(order, step * b, rows, 0, b);
                step++;
                try {
                    return mine.read(rows);
                } catch (IOException e) {
                    throw new UncheckedIOException(mine.describe() + ": cannot read rank " + shard.rank() + "'s"
                            + " batch of step " + (step - 1) + " in epoch " + shard.epoch() + ": " + e.getMessage(),
                            e);
                }
            }
        };
    }

    /** A run resumed at another K inside an epoch ends that epoch: which rows were read cannot be told across ranks. */
    @Override
    public boolean endsEpochOnResize() {
        return true;
    }

    @Override
    public String describe() {
        return String.format("rank-local, %,d examples, %,d steps per epoch", examples, stepsPerEpoch);
    }
}

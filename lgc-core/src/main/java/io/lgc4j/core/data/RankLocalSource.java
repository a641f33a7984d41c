package io.lgc4j.core.data;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;

/**
 * Each rank reads only examples of its own, which no other rank can reach: a Spark partition, a file per host. There
 * is no global order; rank r shuffles its own n_r examples every epoch ({@link EpochOrder} over n_r, seeded
 * {@code seed + RANK_SEED · r}) and reads the first {@code stepsPerEpoch · b} of them. Every rank must be told the
 * same steps per epoch (a Spark driver counts the partitions first and gives each the smallest ⌊n_r / b⌋), and every
 * rank must hold at least that many batches.
 *
 * <pre>{@code
 * DataSource mine = RankLocalSource.of(totalRows, steps, rank -> partitionRows());   // only this rank's rows
 * }</pre>
 */
public final class RankLocalSource implements DataSource {
    /** How a rank's seed differs from the run's: {@code seed + RANK_SEED · rank}. */
    public static final long RANK_SEED = 0x632BE59BD9B4E019L;

    private final long examples;
    private final int stepsPerEpoch;
    private final IntFunction<DataSet> examplesOf;
    private final Map<Integer, DataSet> read = new ConcurrentHashMap<>();

    private RankLocalSource(long examples, int stepsPerEpoch, IntFunction<DataSet> examplesOf) {
        if (stepsPerEpoch < 1) {
            throw new IllegalArgumentException("stepsPerEpoch must be >= 1, found " + stepsPerEpoch);
        }
        this.examples = examples;
        this.stepsPerEpoch = stepsPerEpoch;
        this.examplesOf = Objects.requireNonNull(examplesOf, "examplesOf");
    }

    /**
     * @param examples      the examples of every rank together (what every rank reports to rank 0)
     * @param stepsPerEpoch the steps every rank takes per epoch
     * @param examplesOf    rank r's examples; called at most once per rank, on that rank's reading thread
     */
    public static RankLocalSource of(long examples, int stepsPerEpoch, IntFunction<DataSet> examplesOf) {
        return new RankLocalSource(examples, stepsPerEpoch, examplesOf);
    }

    @Override
    public DataPlan plan(int workers, int batchSize) {
        return new DataPlan(examples, stepsPerEpoch, 0);
    }

    @Override
    public DataSetIterator open(Shard shard) {
        DataSet mine = read.computeIfAbsent(shard.rank(), r -> {
            DataSet d = examplesOf.apply(r);
            if (d == null || d.getFeatures() == null || d.getLabels() == null) {
                throw new IllegalArgumentException("rank " + r + " got no examples of its own");
            }
            if (d.getFeaturesMaskArray() != null || d.getLabelsMaskArray() != null) {
                throw new IllegalArgumentException("rank " + r + "'s examples have a mask; masks are not carried to"
                        + " the ranks yet");
            }
            return new DataSet(MemorySource.rowMajor(d.getFeatures()), MemorySource.rowMajor(d.getLabels()));
        });
        long n = mine.getFeatures().size(0);
        int b = shard.batchSize();
        if (n < (long) stepsPerEpoch * b) {
            throw new IllegalArgumentException(String.format("rank %d holds %,d examples, fewer than the %,d steps"
                    + " × batch %d = %,d it must read per epoch", shard.rank(), n, stepsPerEpoch, b,
                    (long) stepsPerEpoch * b));
        }
        int[] order = EpochOrder.of((int) n, shard.seed() + RANK_SEED * shard.rank(), shard.epoch());
        INDArray features = mine.getFeatures();
        INDArray labels = mine.getLabels();
        return new ShardIterator(b, stepsPerEpoch - shard.fromStep()) {
            private int step = shard.fromStep();

            @Override
            protected DataSet read() {
                int[] rows = new int[b];
                System.arraycopy(order, step * b, rows, 0, b);
                step++;
                return new DataSet(MemorySource.rows(features, rows), MemorySource.rows(labels, rows));
            }
        };
    }

    @Override
    public String describe() {
        return String.format("rank-local, %,d examples, %,d steps per epoch", examples, stepsPerEpoch);
    }
}

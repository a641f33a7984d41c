package io.lgc4j.core.data;

import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;

import java.io.IOException;

/**
 * Where the workers' examples come from. Every worker rank opens the source for its own {@link Shard} of each epoch
 * and reads exactly {@code plan.stepsPerEpoch() − fromStep} batches of exactly {@code batchSize} examples from it;
 * service endpoints (a parameter server) never call it. Before step 0 every worker computes {@link #plan} and the
 * run refuses workers that disagree, naming both plans.
 *
 * <p>A source must give the same batches for the same shard (a resumed run reads on from where the saved run
 * stopped), disjoint examples to the ranks of one epoch, and batches whose features and labels have the model's
 * shapes, without masks. {@link IndexedSource} does all of this for any source that can read an example by its
 * number; {@link MemorySource} holds the examples in memory.
 */
public interface DataSource extends AutoCloseable {

    /**
     * Counts only: how many examples, steps per epoch for {@code workers} ranks reading {@code batchSize} each, and
     * the data's fingerprint. Reads no example (a file source reads its index).
     *
     * @throws IllegalArgumentException when the data does not hold one global batch
     * @throws java.io.UncheckedIOException when the source cannot be read
     */
    DataPlan plan(int workers, int batchSize);

    /**
     * The batches of {@code shard}: from step {@code shard.fromStep()} to the end of the epoch, each of
     * {@code shard.batchSize()} examples. The trainer reads it on a thread of its own, ahead of the step that uses it,
     * and closes nothing but the source itself at the end.
     *
     * @throws IOException when the examples cannot be read
     */
    DataSetIterator open(Shard shard) throws IOException;

    /**
     * Whether {@link #open} reads a {@link Shard#resized() resized} shard: the rest of an epoch part of which another
     * number of ranks read, by {@link EpochCursor}'s rule. A run resumed at another K inside an epoch refuses a source
     * that cannot (it may resume at an epoch's first step, or at the same K). By default false; every
     * {@link IndexedSource} can.
     */
    default boolean resplits() {
        return false;
    }

    /**
     * Whether a run resumed at another K inside an epoch, when this source cannot {@link #resplits() re-split} it,
     * ends that epoch where the checkpoint stopped it instead of refusing: the epoch's examples not read yet are not
     * read in it, and the next epoch, whole, begins at the resume. By default false; a {@link RankLocalSource}'s
     * examples have no order across ranks, so it ends the epoch.
     */
    default boolean endsEpochOnResize() {
        return false;
    }

    /** What the data is, for provenance and messages: "memory, 60,000 examples", "csv /data/train (3 files, …)". */
    String describe();

    /**
     * Reads worker {@code rank}'s share of the rows ({@code workers} contiguous shares of the rows in their order,
     * together every row once) as training would, before step 0, and throws on the first bad one with the message
     * its batch would have failed with. By default nothing: a source whose examples are already in memory.
     *
     * @param how {@link DataCheck#FULL} every row of the share, {@link DataCheck#SAMPLE} about one in a hundred,
     *            {@link DataCheck#NONE} nothing
     * @return the rows read
     * @throws IOException naming the row and what is wrong with it
     */
    default long check(int rank, int workers, DataCheck how) throws IOException {
        return 0;
    }

    /**
     * What a process hosting only a service endpoint (a parameter-server shard) gives its trainer: the number of
     * examples, for the trainer's checks, and nothing to read. A service never opens the data, and learns the run's
     * length from rank 0 before step 0.
     *
     * @param examples how many examples the workers' data holds (an estimate is enough: rank 0's agreement rules)
     */
    static DataSource countOnly(long examples) {
        return new DataSource() {
            @Override
            public DataPlan plan(int workers, int batchSize) {
                return DataPlan.of(examples, workers, batchSize, 0);
            }

            @Override
            public DataSetIterator open(Shard shard) {
                throw new IllegalStateException("rank " + shard.rank() + " opened the data of a process that hosts"
                        + " only a service endpoint (DataSource.countOnly): give a worker its real data");
            }

            @Override
            public String describe() {
                return String.format("counts only, %,d examples (a service endpoint)", examples);
            }

            /** A service reads nothing, so nothing stops its run from going on at another K. */
            @Override
            public boolean resplits() {
                return true;
            }
        };
    }

    /** Releases files and buffers; the default holds none. */
    @Override
    default void close() throws IOException {
    }
}

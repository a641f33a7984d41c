package io.lgc4j.core.data;

import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.DataSetPreProcessor;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;

import java.util.List;
import java.util.NoSuchElementException;

/**
 * A {@link DataSetIterator} over a fixed number of batches of one shard, read by {@link #read()}; it cannot be reset
 * (a shard is opened again instead). A preprocessor set on it is applied to every batch.
 */
abstract class ShardIterator implements DataSetIterator {
    private final int batchSize;
    private final int batches;
    private int taken;
    private DataSetPreProcessor preProcessor;

    /**
     * @param batchSize examples per batch
     * @param batches   how many batches the iterator gives
     */
    protected ShardIterator(int batchSize, int batches) {
        this.batchSize = batchSize;
        this.batches = batches;
    }

    /** The next batch; called exactly {@code batches} times. */
    protected abstract DataSet read();

    @Override
    public boolean hasNext() {
        return taken < batches;
    }

    @Override
    public DataSet next() {
        if (!hasNext()) {
            throw new NoSuchElementException("the shard's " + batches + " batches are read");
        }
        taken++;
        DataSet batch = read();
        if (preProcessor != null) {
            preProcessor.preProcess(batch);
        }
        return batch;
    }

    @Override
    public DataSet next(int num) {
        throw new UnsupportedOperationException("a shard gives batches of " + batchSize + " only");
    }

    @Override
    public int inputColumns() {
        return -1;
    }

    @Override
    public int totalOutcomes() {
        return -1;
    }

    @Override
    public boolean resetSupported() {
        return false;
    }

    @Override
    public boolean asyncSupported() {
        return false;
    }

    @Override
    public void reset() {
        throw new UnsupportedOperationException("a shard is read once; open it again");
    }

    @Override
    public int batch() {
        return batchSize;
    }

    @Override
    public void setPreProcessor(DataSetPreProcessor preProcessor) {
        this.preProcessor = preProcessor;
    }

    @Override
    public DataSetPreProcessor getPreProcessor() {
        return preProcessor;
    }

    @Override
    public List<String> getLabels() {
        return null;
    }
}

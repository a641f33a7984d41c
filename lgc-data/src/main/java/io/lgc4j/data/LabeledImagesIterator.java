package io.lgc4j.data;

import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.SplittableRandom;

import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.DataSetPreProcessor;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;

/**
 * Mini-batches over {@link LabeledImages}, in storage order or in a seeded pseudo-random order per pass. Obtain one
 * from {@link LabeledImages#iterator(int)} or {@link LabeledImages#shuffledIterator(int, long, PartialBatch)}:
 *
 * <pre>{@code
 * DataSetIterator it = train.shuffledIterator(128, 42L, PartialBatch.DROP);
 * while (it.hasNext()) { DataSet batch = it.next(); ... }
 * it.reset();   // next pass, next permutation
 * }</pre>
 *
 * <p>Determinism: the permutation of pass {@code e} is a function of {@code (seed, e)} only. The pass counter advances
 * on a {@link #reset()} that follows at least one {@link #next()}, so callers that reset defensively before starting
 * (as DL4J's {@code fit} may) do not skip a permutation. Not thread-safe.
 *
 * @serial exclude
 */
public final class LabeledImagesIterator implements DataSetIterator {
    private static final long serialVersionUID = 1L;

    private final transient LabeledImages data;
    private final int batchSize;
    private final boolean shuffled;
    private final long seed;
    private final PartialBatch partialBatch;
    private final int[] order;
    private final int end;
    private int cursor;
    private int pass;
    private boolean consumedThisPass;
    private transient DataSetPreProcessor preProcessor;

    /** Storage order on every pass. */
    static LabeledImagesIterator inOrder(LabeledImages data, int batchSize, PartialBatch partialBatch) {
        return new LabeledImagesIterator(data, batchSize, false, 0L, partialBatch);
    }

    /** A seeded permutation per pass. */
    static LabeledImagesIterator shuffled(LabeledImages data, int batchSize, long seed, PartialBatch partialBatch) {
        return new LabeledImagesIterator(data, batchSize, true, seed, partialBatch);
    }

    private LabeledImagesIterator(LabeledImages data, int batchSize, boolean shuffled, long seed,
                                  PartialBatch partialBatch) {
        this.data = Objects.requireNonNull(data, "data");
        this.partialBatch = Objects.requireNonNull(partialBatch, "partialBatch");
        if (batchSize < 1) {
            throw new IllegalArgumentException("batchSize=" + batchSize + " must be positive");
        }
        this.batchSize = batchSize;
        this.shuffled = shuffled;
        this.seed = seed;
        this.order = new int[data.size()];
        this.end = partialBatch == PartialBatch.DROP ? data.size() / batchSize * batchSize : data.size();
        arrangePass();
    }

    /** @return the number of batches in one pass */
    public int batchesPerPass() {
        return (end + batchSize - 1) / batchSize;
    }

    /** @return the pass about to be (or being) iterated, counted from 0 */
    public int pass() {
        return pass;
    }

    private void arrangePass() {
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        if (shuffled) {
            // One independent generator per pass, so pass e's order does not depend on how earlier passes went.
            SplittableRandom random = new SplittableRandom(seed).split();
            for (int e = 0; e < pass; e++) {
                random = random.split();
            }
            for (int i = order.length - 1; i > 0; i--) {
                int j = random.nextInt(i + 1);
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
        }
        cursor = 0;
        consumedThisPass = false;
    }

    @Override
    public boolean hasNext() {
        return cursor < end;
    }

    @Override
    public DataSet next() {
        return next(batchSize);
    }

    @Override
    public DataSet next(int num) {
        if (!hasNext()) {
            throw new NoSuchElementException("pass " + pass + " is over after " + end + " examples; call reset()");
        }
        if (num < 1) {
            throw new IllegalArgumentException("num=" + num + " must be positive");
        }
        int to = Math.min(cursor + num, end);
        DataSet batch = data.toDataSet(order, cursor, to);
        cursor = to;
        consumedThisPass = true;
        if (preProcessor != null) {
            preProcessor.preProcess(batch);
        }
        return batch;
    }

    @Override
    public int inputColumns() {
        return data.pixelsPerImage();
    }

    @Override
    public int totalOutcomes() {
        return data.numClasses();
    }

    @Override
    public boolean resetSupported() {
        return true;
    }

    @Override
    public boolean asyncSupported() {
        return true;
    }

    @Override
    public void reset() {
        if (consumedThisPass) {
            pass++;
        }
        arrangePass();
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
        return data.classNames();
    }

    @Override
    public String toString() {
        return "LabeledImagesIterator[size=" + data.size() + ", batchSize=" + batchSize + ", "
                + (shuffled ? "seed=" + seed : "in order") + ", partialBatch=" + partialBatch
                + ", pass=" + pass + "]";
    }
}

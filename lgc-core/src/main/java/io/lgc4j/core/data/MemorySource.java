package io.lgc4j.core.data;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.factory.Nd4j;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * Every example in memory, shared by the ranks of this process: the trainer's source when it is given a
 * {@link DataSet} or a {@link DataSetIterator}. Batches are picked rows of the whole set ({@code Nd4j.pullRows}), in
 * {@link EpochOrder}.
 */
public final class MemorySource extends IndexedSource {
    private final INDArray features;
    private final INDArray labels;
    private volatile long fingerprint;

    private MemorySource(DataSet data) {
        Objects.requireNonNull(data, "data");
        if (data.getFeatures() == null || data.getLabels() == null) {
            throw new IllegalArgumentException("the training data needs features and labels, found "
                    + (data.getFeatures() == null ? "no features" : "no labels"));
        }
        if (data.getFeaturesMaskArray() != null || data.getLabelsMaskArray() != null) {
            throw new IllegalArgumentException("the training data has a features or labels mask; masks are not"
                    + " carried to the ranks yet, and training without them would be silently wrong");
        }
        this.features = rowMajor(data.getFeatures());
        this.labels = rowMajor(data.getLabels());
        if (features.size(0) != labels.size(0)) {
            throw new IllegalArgumentException("the training data has " + features.size(0) + " feature rows but "
                    + labels.size(0) + " label rows");
        }
    }

    /** The examples of {@code data}, as they are. */
    public static MemorySource of(DataSet data) {
        return new MemorySource(data);
    }

    /**
     * Reads {@code data} into memory now: resets it when it can be reset, takes every batch (its preprocessor
     * applied) and merges them in order.
     *
     * @throws IllegalArgumentException when the iterator gives no example
     */
    public static MemorySource read(DataSetIterator data) {
        List<DataSet> batches = batches(data);
        if (batches.isEmpty()) {
            throw new IllegalArgumentException("the training data iterator returned no examples");
        }
        return new MemorySource(DataSet.merge(batches));
    }

    /**
     * Every batch {@code data} gives, in order, with its preprocessor applied; the iterator is reset first when it
     * can be.
     */
    public static List<DataSet> batches(DataSetIterator data) {
        Objects.requireNonNull(data, "data");
        if (data.resetSupported()) {
            data.reset();
        }
        List<DataSet> batches = new ArrayList<>();
        while (data.hasNext()) {
            batches.add(data.next());
        }
        return batches;
    }

    @Override
    protected long examples() {
        return features.size(0);
    }

    /** Nothing to check: the examples are in memory already, and were checked when they were read. */
    @Override
    public long check(int rank, int workers, DataCheck how) {
        return 0;
    }

    @Override
    protected DataSet read(int[] rows) {
        return new DataSet(rows(features, rows), rows(labels, rows));
    }

    /** CRC32C of the features' and labels' float bits, computed once. */
    @Override
    protected long fingerprint() {
        long f = fingerprint;
        if (f == 0) {
            CRC32C crc = new CRC32C();
            update(crc, features);
            update(crc, labels);
            f = crc.getValue() | 1L << 32; // never 0, which means "not known"
            fingerprint = f;
        }
        return f;
    }

    private static void update(CRC32C crc, INDArray data) {
        INDArray flat = data.dataType() == DataType.FLOAT && !data.isView() && data.ordering() == 'c' ? data
                : data.castTo(DataType.FLOAT).dup('c');
        ByteBuffer bytes = flat.data().asNio().duplicate();
        bytes.limit((int) (flat.length() * 4L));
        crc.update(bytes);
    }

    @Override
    public String describe() {
        return String.format("memory, %,d examples", examples());
    }

    /**
     * The examples at {@code rows} of {@code data}, whose first dimension is the example: flat features {@code [N, F]},
     * images {@code [N, C, H, W]}, sequences {@code [N, F, T]}, labels alike. Beyond two dimensions {@code data}
     * should be in C order ({@link #rowMajor}): then each example is one row of a view, and nothing is copied but the
     * examples picked.
     *
     * @return a new array of shape {@code [rows.length, ...]}
     */
    public static INDArray rows(INDArray data, int[] rows) {
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
     * @return {@code data} itself when it is a matrix or already in C order, else a C-order copy, made once so that
     *         {@link #rows} never copies the whole data set
     */
    public static INDArray rowMajor(INDArray data) {
        return data.rank() == 2 || data.ordering() == 'c' ? data : data.dup('c');
    }
}

package io.lgc4j.data;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Single-channel labelled images held in memory as preprocessed floats, with conversions to a {@link DataSet} or a
 * {@link DataSetIterator} of mini-batches: features flat {@code [N, rows*cols]} (for
 * {@code InputType.convolutionalFlat(rows, cols, 1)}), labels one-hot {@code [N, numClasses]}. The arrays are
 * shared, not copied: treat them as read-only; {@code equals} compares them by identity.
 *
 * <pre>{@code
 * LabeledImages train = FashionMnist.load(FashionMnist.DEFAULT_DIR, FashionMnist.Split.TRAIN, FashionMnist.ALL);
 * DataSetIterator batches = train.shuffledIterator(128, 42L, PartialBatch.DROP);
 * net.fit(batches);
 * }</pre>
 *
 * @param features      {@code size() * rows * cols} preprocessed pixels, image after image, each row-major
 * @param labels        class index per image, {@code 0 .. classNames.size() - 1}
 * @param rows          image height
 * @param cols          image width
 * @param classNames    the name of each class, indexed by label
 * @param preprocessing how the pixels were turned into {@code features}
 */
public record LabeledImages(float[] features, int[] labels, int rows, int cols, List<String> classNames,
                            PixelPreprocessing preprocessing) {

    // Checks that the components agree; the record's @param tags document them.
    public LabeledImages {
        Objects.requireNonNull(features, "features");
        Objects.requireNonNull(labels, "labels");
        Objects.requireNonNull(preprocessing, "preprocessing");
        classNames = List.copyOf(classNames);
        if (rows < 1 || cols < 1) {
            throw new IllegalArgumentException("rows=" + rows + " and cols=" + cols + " must be positive");
        }
        if (classNames.isEmpty()) {
            throw new IllegalArgumentException("classNames must not be empty");
        }
        if ((long) labels.length * rows * cols != features.length) {
            throw new IllegalArgumentException("features.length=" + features.length + " != labels.length="
                    + labels.length + " * " + rows + " * " + cols);
        }
        for (int i = 0; i < labels.length; i++) {
            if (labels[i] < 0 || labels[i] >= classNames.size()) {
                throw new IllegalArgumentException(
                        "labels[" + i + "]=" + labels[i] + " is outside 0.." + (classNames.size() - 1));
            }
        }
    }

    /** @return the number of images */
    public int size() {
        return labels.length;
    }

    /** @return {@code rows * cols}, the width of a feature row */
    public int pixelsPerImage() {
        return rows * cols;
    }

    /** @return the number of classes */
    public int numClasses() {
        return classNames.size();
    }

    /** @return how many images carry each label, indexed by label */
    public int[] labelHistogram() {
        int[] histogram = new int[numClasses()];
        for (int label : labels) {
            histogram[label]++;
        }
        return histogram;
    }

    /**
     * @param from first image, inclusive
     * @param to   last image, exclusive
     * @return the images {@code from .. to - 1} as a new value (arrays copied)
     */
    public LabeledImages slice(int from, int to) {
        Objects.checkFromToIndex(from, to, size());
        float[] sliceFeatures = new float[(to - from) * pixelsPerImage()];
        System.arraycopy(features, from * pixelsPerImage(), sliceFeatures, 0, sliceFeatures.length);
        int[] sliceLabels = Arrays.copyOfRange(labels, from, to);
        return new LabeledImages(sliceFeatures, sliceLabels, rows, cols, classNames, preprocessing);
    }

    /**
     * @return every image as one ND4J data set: features {@code [N, rows*cols]} float, labels one-hot
     *         {@code [N, numClasses]} float
     */
    public DataSet toDataSet() {
        int[] all = new int[size()];
        for (int i = 0; i < all.length; i++) {
            all[i] = i;
        }
        return toDataSet(all, 0, all.length);
    }

    /**
     * Iterates in storage order; the order is the same on every pass.
     *
     * @param batchSize examples per batch, positive; the last batch of a pass may be smaller
     * @return a resettable iterator
     */
    public DataSetIterator iterator(int batchSize) {
        return LabeledImagesIterator.inOrder(this, batchSize, PartialBatch.KEEP);
    }

    /**
     * Iterates in a pseudo-random order fixed by {@code seed}: pass {@code e} (counted from 0) uses the permutation
     * drawn from {@code (seed, e)}, so the same seed gives the same batches in the same order on every run.
     *
     * @param batchSize    examples per batch, positive
     * @param seed         fixes the order of every pass
     * @param partialBatch whether the last, smaller batch of a pass is kept or dropped
     * @return a resettable iterator; {@link DataSetIterator#reset()} after consuming batches starts the next pass
     */
    public DataSetIterator shuffledIterator(int batchSize, long seed, PartialBatch partialBatch) {
        return LabeledImagesIterator.shuffled(this, batchSize, seed, partialBatch);
    }

    /** Builds a data set from {@code order[from .. to-1]}, copying rows straight from the float arrays. */
    DataSet toDataSet(int[] order, int from, int to) {
        int n = to - from;
        int width = pixelsPerImage();
        float[] x = new float[n * width];
        float[] y = new float[n * numClasses()];
        for (int i = 0; i < n; i++) {
            int example = order[from + i];
            System.arraycopy(features, example * width, x, i * width, width);
            y[i * numClasses() + labels[example]] = 1f;
        }
        INDArray xs = Nd4j.create(x, new long[] {n, width}, DataType.FLOAT);
        INDArray ys = Nd4j.create(y, new long[] {n, numClasses()}, DataType.FLOAT);
        return new DataSet(xs, ys);
    }
}

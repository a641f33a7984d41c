package io.lgc4j.data;

/**
 * What an iterator does with the examples left over when the data set size is not a multiple of the batch size.
 *
 * <pre>{@code
 * // 60,000 examples at batch 128: KEEP gives 469 batches (the last of 96), DROP gives 468 equal ones.
 * DataSetIterator it = train.shuffledIterator(128, 42L, PartialBatch.DROP);
 * }</pre>
 */
public enum PartialBatch {
    /** The last batch of a pass is smaller; every example is seen once per pass. */
    KEEP,
    /** Every batch has exactly the batch size; up to {@code batchSize - 1} examples are skipped per pass. */
    DROP
}

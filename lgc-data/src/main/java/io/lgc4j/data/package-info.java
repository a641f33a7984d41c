/**
 * Data sets for the experiments: a bounds-checked reader for IDX files ({@link io.lgc4j.data.IdxReader}),
 * the Fashion-MNIST loader ({@link io.lgc4j.data.FashionMnist}) and the in-memory value it returns
 * ({@link io.lgc4j.data.LabeledImages}) with its conversion to ND4J data sets and deterministic
 * mini-batch iterators.
 *
 * <pre>{@code
 * LabeledImages train = FashionMnist.load(FashionMnist.DEFAULT_DIR, FashionMnist.Split.TRAIN, FashionMnist.ALL);
 * DataSetIterator batches = train.shuffledIterator(128, 42L, PartialBatch.DROP);
 * }</pre>
 */
package io.lgc4j.data;

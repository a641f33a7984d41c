/**
 * File data sources for the trainer ({@link io.lgc4j.core.data.DataSource}): each worker rank reads only the rows of
 * its own shard, in the order every indexed source gives ({@link io.lgc4j.core.data.EpochOrder}),
 * so a run from files is bit-equal to the same run from memory when the values are.
 * {@link io.lgc4j.datasource.IdxSource} streams uncompressed IDX images (MNIST, Fashion-MNIST);
 * {@link io.lgc4j.datasource.CsvSource} a directory of CSV files, with an index of 8 bytes per row (those two by
 * positional reads);
 * {@link io.lgc4j.datasource.RecordReaderSource} a DataVec {@code RecordReader} over an {@code InputSplit}'s files
 * (one record per file: an {@code ImageRecordReader} over a folder per class), each rank decoding only its files.
 *
 * <pre>{@code
 * DataSource train = CsvSource.in(Path.of("data/train")).label(784, 10).skipLines(1);
 * DataSource images = RecordReaderSource.of(new ImageRecordReader(28, 28, 1, new ParentPathLabelGenerator()),
 *         new FileSplit(new File("data/images"))).label(1, 10);
 * TrainingResult result = DistributedTrainer.builder().model(net).data(train).workers(4).batchSizePerWorker(32)
 *         .topology(topology).build().fit(1);
 * }</pre>
 */
package io.lgc4j.datasource;

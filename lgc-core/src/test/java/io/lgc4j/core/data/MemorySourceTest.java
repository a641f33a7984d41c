package io.lgc4j.core.data;

import io.lgc4j.core.train.ShardPlan;

import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.dataset.api.iterator.TestDataSetIterator;
import org.nd4j.linalg.factory.Nd4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class MemorySourceTest extends DataSourceContract {

    /** Example i: features {@code [i, i/2, …]} in {@code shape}, a one-hot label of class i mod 3. */
    static DataSet numbered(int examples, long... shape) {
        long[] full = new long[shape.length + 1];
        full[0] = examples;
        System.arraycopy(shape, 0, full, 1, shape.length);
        INDArray features = Nd4j.create(DataType.FLOAT, full);
        INDArray flat = features.reshape('c', examples, -1);
        INDArray labels = Nd4j.zeros(DataType.FLOAT, examples, 3);
        for (int i = 0; i < examples; i++) {
            for (int j = 0; j < flat.size(1); j++) {
                flat.putScalar(i, j, j == 0 ? i : i / (j + 1f));
            }
            labels.putScalar(i, i % 3, 1f);
        }
        return new DataSet(features, labels);
    }

    @Override
    protected DataSource source(int examples) {
        return MemorySource.of(numbered(examples, 4));
    }

    @Test
    void batchesShouldBeTheRowsTheShardPlanPicked() throws Exception {
        for (long[] shape : new long[][] {{5}, {1, 3, 3}}) {
            DataSet data = numbered(70, shape);
            MemorySource source = MemorySource.of(data);
            ShardPlan plan = new ShardPlan(70, 3, 4, 9);
            for (int rank = 0; rank < 3; rank++) {
                DataSetIterator it = source.open(new Shard(rank, 3, 4, 1, 0, 9));
                for (int step = 0; it.hasNext(); step++) {
                    DataSet batch = it.next();
                    int[] rows = plan.batch(1, step, rank);
                    assertEquals(ShardPlan.examples(data.getFeatures(), rows), batch.getFeatures());
                    assertEquals(ShardPlan.examples(data.getLabels(), rows), batch.getLabels());
                }
            }
        }
    }

    @Test
    void readingAnIteratorShouldMergeItsBatchesInOrder() {
        DataSet data = numbered(30, 2);
        MemorySource source = MemorySource.read(new TestDataSetIterator(data, 7));
        assertEquals(30, source.plan(1, 1).examples());
        assertEquals(MemorySource.of(data).plan(2, 3), source.plan(2, 3));
        assertEquals("memory, 30 examples", source.describe());
    }

    @Test
    void theFingerprintShouldTellOtherDataApart() {
        DataSet data = numbered(30, 2);
        DataSet other = numbered(30, 2);
        other.getFeatures().putScalar(17, 1, 0.5f);
        assertNotEquals(MemorySource.of(data).plan(2, 3).fingerprint(),
                MemorySource.of(other).plan(2, 3).fingerprint());
        assertNotEquals(0, MemorySource.of(data).plan(2, 3).fingerprint());
    }

    @Test
    void badDataShouldBeRefusedNamingWhatIsWrong() {
        DataSet masked = numbered(10, 2);
        masked.setLabelsMaskArray(Nd4j.ones(10, 1));
        assertEquals("the training data has a features or labels mask; masks are not carried to the ranks yet, and"
                        + " training without them would be silently wrong",
                assertThrows(IllegalArgumentException.class, () -> MemorySource.of(masked)).getMessage());
        assertEquals("the training data has 10 feature rows but 9 label rows", assertThrows(
                IllegalArgumentException.class, () -> MemorySource.of(new DataSet(Nd4j.zeros(10, 2),
                        Nd4j.zeros(9, 3)))).getMessage());
        assertEquals("the training data iterator returned no examples", assertThrows(IllegalArgumentException.class,
                () -> MemorySource.read(new TestDataSetIterator(java.util.List.of(), 4))).getMessage());
    }
}

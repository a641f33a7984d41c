package io.lgc4j.core.data;

import org.junit.jupiter.api.Test;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What every {@link DataSource} must do, run by each implementation's test: exactly {@code stepsPerEpoch} batches of
 * exactly b examples per rank and epoch, disjoint examples across the ranks of an epoch, the same batches for the
 * same shard, a resumed shard equal to the rest of a whole one, a new order each epoch, and the plan's counts.
 */
public abstract class DataSourceContract {

    /**
     * A source of {@code examples} examples whose first feature is the example's number {@code 0 … examples−1}
     * (exactly representable as a float), with at least 2 features and 3 classes.
     */
    protected abstract DataSource source(int examples) throws Exception;

    /** The number each batch row carries in its first feature. */
    protected static int[] ids(DataSet batch) {
        float[] first = batch.getFeatures().reshape('c', batch.getFeatures().size(0), -1).getColumn(0)
                .toFloatVector();
        int[] ids = new int[first.length];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = (int) first[i];
        }
        return ids;
    }

    protected static List<int[]> read(DataSource source, Shard shard) throws Exception {
        List<int[]> batches = new ArrayList<>();
        DataSetIterator it = source.open(shard);
        while (it.hasNext()) {
            DataSet batch = it.next();
            assertEquals(shard.batchSize(), batch.getFeatures().size(0), "rows of a batch");
            assertEquals(shard.batchSize(), batch.getLabels().size(0), "label rows of a batch");
            batches.add(ids(batch));
        }
        return batches;
    }

    @Test
    void planShouldCountStepsPerEpoch() throws Exception {
        try (DataSource source = source(103)) {
            DataPlan plan = source.plan(3, 8);
            assertEquals(103, plan.examples());
            assertEquals(4, plan.stepsPerEpoch()); // ⌊103 / 24⌋
            assertEquals(plan.fingerprint(), source.plan(3, 8).fingerprint());
        }
    }

    @Test
    void ranksShouldReadDisjointExamplesInExactBatches() throws Exception {
        try (DataSource source = source(103)) {
            for (int epoch = 0; epoch < 2; epoch++) {
                Set<Integer> seen = new HashSet<>();
                for (int rank = 0; rank < 3; rank++) {
                    List<int[]> batches = read(source, new Shard(rank, 3, 8, epoch, 0, 42));
                    assertEquals(4, batches.size(), "batches of rank " + rank);
                    for (int[] batch : batches) {
                        for (int id : batch) {
                            assertTrue(id >= 0 && id < 103, "example " + id);
                            assertTrue(seen.add(id), "example " + id + " read twice in epoch " + epoch);
                        }
                    }
                }
                assertEquals(96, seen.size());
            }
        }
    }

    @Test
    void theSameShardShouldGiveTheSameBatchesAndAnotherEpochAnotherOrder() throws Exception {
        try (DataSource source = source(103)) {
            List<int[]> a = read(source, new Shard(1, 3, 8, 0, 0, 42));
            List<int[]> b = read(source, new Shard(1, 3, 8, 0, 0, 42));
            List<int[]> next = read(source, new Shard(1, 3, 8, 1, 0, 42));
            for (int i = 0; i < a.size(); i++) {
                assertArrayEquals(a.get(i), b.get(i));
            }
            assertFalse(java.util.Arrays.equals(a.get(0), next.get(0)), "epoch 1 should be shuffled anew");
        }
    }

    @Test
    void aShardFromAStepShouldBeTheRestOfTheWholeOne() throws Exception {
        try (DataSource source = source(103)) {
            List<int[]> whole = read(source, new Shard(2, 3, 8, 1, 0, 42));
            List<int[]> rest = read(source, new Shard(2, 3, 8, 1, 3, 42));
            assertEquals(1, rest.size());
            assertArrayEquals(whole.get(3), rest.get(0));
        }
    }

    @Test
    void tooLittleDataShouldBeRefusedNamingTheGlobalBatch() throws Exception {
        try (DataSource source = source(20)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> source.plan(3, 8));
            assertEquals("the training data holds 20 examples, fewer than one global batch: workers ×"
                    + " batchSizePerWorker = 3 × 8 = 24 (every rank reads one batch per step); give more data, fewer"
                    + " workers or a smaller batch", e.getMessage());
        }
    }
}

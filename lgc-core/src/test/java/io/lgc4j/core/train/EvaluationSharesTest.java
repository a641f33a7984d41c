package io.lgc4j.core.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;


import org.junit.jupiter.api.Test;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.adapter.SingletonDataSetIterator;
import org.nd4j.linalg.factory.Nd4j;

import java.util.List;

class EvaluationSharesTest {

    @Test
    void shouldAddTheSharesCountsIntoOneAccuracy() {
        // 10,000 images in 10 batches over 4 workers: 3, 3, 2, 2 batches
        double accuracy = EvaluationShares.accuracy(List.of(new RunReport.Evaluated(2_500, 3_000),
                new RunReport.Evaluated(2_400, 3_000), new RunReport.Evaluated(1_700, 2_000),
                new RunReport.Evaluated(1_650, 2_000)));
        assertEquals(8_250 / 10_000.0, accuracy);
    }

    @Test
    void shouldReadEveryBatchOnce() {
        DataSet batch = new DataSet(Nd4j.zeros(5, 3), Nd4j.zeros(5, 2));
        assertEquals(1, EvaluationShares.read(new SingletonDataSetIterator(batch)).batchCount());
    }

    @Test
    void shouldRejectEvaluationDataWithoutABatch() {
        var iterator = new org.nd4j.linalg.dataset.api.iterator.TestDataSetIterator(List.of(), 1);
        assertEquals("the evaluation data gave no batch: expected at least one",
                assertThrows(IllegalArgumentException.class, () -> EvaluationShares.read(iterator)).getMessage());
    }
}

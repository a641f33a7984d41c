package io.lgc4j.bench;

import io.lgc4j.data.FashionMnist;
import io.lgc4j.data.PixelPreprocessing;
import io.lgc4j.runner.Nd4jEnvironment;
import org.junit.jupiter.api.Test;

import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Recorded top-k sets from real training are k ascending indices of the largest LEARNED block, one per step. */
class TopKRecorderTest {

    @Test
    void shouldRecordOneAscendingTopKSetPerStep() throws IOException {
        Nd4jEnvironment.configure();
        TopKRecorder.Recording r = TopKRecorder.record(FashionMnist.load(FashionMnist.DEFAULT_DIR,
                FashionMnist.Split.TRAIN, 256, PixelPreprocessing.STANDARDIZE), 3, 64, 0.001, 1);
        assertEquals(400_000, r.length());
        assertEquals(3, r.indexSets().size());
        for (int[] set : r.indexSets()) {
            assertEquals(400, set.length);
            for (int i = 1; i < set.length; i++) {
                assertTrue(set[i - 1] < set[i], "ascending");
            }
            assertTrue(set[set.length - 1] < r.length());
        }
    }
}

package io.lgc4j.core.data;

import org.junit.jupiter.api.Test;
import org.nd4j.linalg.dataset.DataSet;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RankLocalSourceTest {

    /** Rank r's examples are numbered from 1000·r: 30 + 5r of them. */
    static DataSet block(int rank) {
        DataSet numbered = MemorySourceTest.numbered(1000 * rank + 30 + 5 * rank, 3);
        int[] rows = new int[30 + 5 * rank];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = 1000 * rank + i;
        }
        return new DataSet(MemorySource.rows(numbered.getFeatures(), rows),
                MemorySource.rows(numbered.getLabels(), rows));
    }

    @Test
    void eachRankShouldReadOnlyItsOwnExamplesInAnOrderOfItsOwn() throws Exception {
        RankLocalSource source = RankLocalSource.of(30 + 35 + 40, 3, RankLocalSourceTest::block);
        assertEquals(new DataPlan(105, 3, 0), source.plan(3, 8));
        for (int rank = 0; rank < 3; rank++) {
            Set<Integer> seen = new HashSet<>();
            List<int[]> batches = DataSourceContract.read(source, new Shard(rank, 3, 8, 0, 0, 42));
            assertEquals(3, batches.size());
            for (int[] batch : batches) {
                for (int id : batch) {
                    assertTrue(id >= 1000 * rank && id < 1000 * rank + 30 + 5 * rank, "rank " + rank + ": " + id);
                    assertTrue(seen.add(id));
                }
            }
            List<int[]> rest = DataSourceContract.read(source, new Shard(rank, 3, 8, 0, 2, 42));
            assertArrayEquals(batches.get(2), rest.get(0));
        }
    }

    @Test
    void aRankWithTooFewExamplesShouldBeNamed() {
        RankLocalSource source = RankLocalSource.of(105, 4, RankLocalSourceTest::block);
        assertEquals("rank 0 holds 30 examples, fewer than the 4 steps × batch 8 = 32 it must read per epoch",
                assertThrows(IllegalArgumentException.class,
                        () -> source.open(new Shard(0, 3, 8, 0, 0, 42))).getMessage());
    }
}

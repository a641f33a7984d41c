package io.lgc4j.core.data;

import org.junit.jupiter.api.Test;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;

import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

class RankLocalSourceIndexedTest {

    /** Reads through a memory source, counting the batches it is asked for: not a {@link MemorySource} itself. */
    private static final class Counted extends IndexedSource {
        private final MemorySource rows;
        private final AtomicInteger reads;

        Counted(MemorySource rows, AtomicInteger reads) {
            this.rows = rows;
            this.reads = reads;
        }

        @Override
        protected long examples() {
            return rows.examples();
        }

        @Override
        protected DataSet read(int[] picked) {
            reads.incrementAndGet();
            return rows.read(picked);
        }

        @Override
        public String describe() {
            return "counted " + rows.describe();
        }
    }

    @Test
    void anIndexedSourcePerRankShouldGiveTheBatchesOfTheSameExamplesInMemoryBitForBit() {
        AtomicInteger reads = new AtomicInteger();
        RankLocalSource inMemory = RankLocalSource.of(105, 3, RankLocalSourceTest::block);
        RankLocalSource indexed = RankLocalSource.ofIndexed(105, 3,
                r -> new Counted(MemorySource.of(RankLocalSourceTest.block(r)), reads));
        assertEquals(inMemory.plan(3, 8), indexed.plan(3, 8));
        int batches = 0;
        for (int epoch = 0; epoch < 2; epoch++) {
            for (int rank = 0; rank < 3; rank++) {
                for (int from = 0; from < 2; from++) {
                    Shard shard = new Shard(rank, 3, 8, epoch, from, 42);
                    DataSetIterator a = inMemory.open(shard);
                    DataSetIterator b = indexed.open(shard);
                    while (a.hasNext()) {
                        DataSet x = a.next();
                        DataSet y = b.next();
                        assertArrayEquals(x.getFeatures().shape(), y.getFeatures().shape());
                        assertArrayEquals(x.getFeatures().data().asFloat(), y.getFeatures().data().asFloat());
                        assertArrayEquals(x.getLabels().data().asFloat(), y.getLabels().data().asFloat());
                        batches++;
                    }
                    assertFalse(b.hasNext(), "as many batches either way");
                }
            }
        }
        assertEquals(2 * 3 * (3 + 2), batches);
        assertEquals(batches, reads.get(), "every batch read through the rank's own source");
    }
}

package io.lgc4j.core.data;

import org.junit.jupiter.api.Test;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.factory.Nd4j;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The rest of an epoch at another K: which examples each rank reads, pinned by golden positions. */
class EpochCursorTest {

    /** A source of {@code n} examples that records the rows each read asks for. */
    private static final class Recording extends IndexedSource {
        private final int n;
        final List<int[]> reads = new ArrayList<>();

        Recording(int n) {
            this.n = n;
        }

        @Override
        protected long examples() {
            return n;
        }

        @Override
        protected DataSet read(int[] rows) {
            reads.add(rows.clone());
            return new DataSet(Nd4j.zeros(rows.length, 1), Nd4j.zeros(rows.length, 1));
        }

        @Override
        public String describe() {
            return "recording, " + n + " examples";
        }
    }

    /** Every row rank {@code rank} reads of {@code shard}, in order. */
    private static List<Integer> rows(int n, Shard shard) throws Exception {
        Recording source = new Recording(n);
        DataSetIterator it = source.open(shard);
        while (it.hasNext()) {
            it.next();
        }
        List<Integer> rows = new ArrayList<>();
        source.reads.forEach(r -> IntStream.of(r).forEach(rows::add));
        return rows;
    }

    /** π[from..to] (inclusive) of the epoch's order, as rows. */
    private static List<Integer> positions(int[] order, int[][] ranges) {
        List<Integer> rows = new ArrayList<>();
        for (int[] r : ranges) {
            for (int p = r[0]; p <= r[1]; p++) {
                rows.add(order[p]);
            }
        }
        return rows;
    }

    private static final int N = 100;
    private static final int B = 4;
    private static final long SEED = 7;
    private static final int EPOCH = 2;

    @Test
    void theRestOfAnEpochShouldBeTheUnreadExamplesSplitOverTheNewK() throws Exception {
        // K = 4 read 2 steps (π[0,8) π[25,33) π[50,58) π[75,83)); 68 examples are left, ⌊68/3⌋ = 22 per rank
        int[] order = EpochOrder.of(N, SEED, EPOCH);
        List<EpochCursor.Part> before = List.of(new EpochCursor.Part(4, 2));
        assertEquals(positions(order, new int[][] {{8, 24}, {33, 35}}), rows(N, new Shard(0, 3, B, EPOCH, 0, SEED,
                before)));
        assertEquals(positions(order, new int[][] {{38, 49}, {58, 65}}), rows(N, new Shard(1, 3, B, EPOCH, 0, SEED,
                before)));
        assertEquals(positions(order, new int[][] {{68, 74}, {83, 95}}), rows(N, new Shard(2, 3, B, EPOCH, 0, SEED,
                before)));
        assertEquals(5, new EpochCursor(EPOCH, before).stepsLeft(N, 3, B), "⌊68 / 12⌋ steps");
        // at K' = 5: ⌊68/5⌋ = 13 per rank, 3 steps; rank 4 reads R'[52, 64) = π[84, 96)
        assertEquals(positions(order, new int[][] {{84, 95}}), rows(N, new Shard(4, 5, B, EPOCH, 0, SEED, before)));
        assertEquals(positions(order, new int[][] {{8, 19}}), rows(N, new Shard(0, 5, B, EPOCH, 0, SEED, before)));
        assertEquals(3, new EpochCursor(EPOCH, before).stepsLeft(N, 5, B));
    }

    @Test
    void atTheSameKTheRuleShouldReadWhatTheUninterruptedRunReads() throws Exception {
        for (int k : new int[] {1, 3, 4, 7}) {
            int steps = N / (k * B);
            for (int t = 1; t < steps; t++) {
                for (int r = 0; r < k; r++) {
                    List<Integer> plain = rows(N, new Shard(r, k, B, EPOCH, t, SEED));
                    List<Integer> around = rows(N, new Shard(r, k, B, EPOCH, 0, SEED,
                            List.of(new EpochCursor.Part(k, t))));
                    assertEquals(plain, around, "K = " + k + ", t = " + t + ", rank " + r);
                }
            }
        }
    }

    @Test
    void anEpochReadInPartsShouldReadNoExampleTwice() throws Exception {
        int n = 103;
        int b = 3;
        // 4 ranks for 2 steps, 3 for 3, then 5 to the end
        List<EpochCursor.Part> parts = List.of(new EpochCursor.Part(4, 2), new EpochCursor.Part(3, 3));
        Set<Integer> seen = new HashSet<>();
        int count = 0;
        for (int i = 0; i <= parts.size(); i++) {
            List<EpochCursor.Part> before = parts.subList(0, i);
            int k = i < parts.size() ? parts.get(i).workers() : 5;
            for (int r = 0; r < k; r++) {
                List<Integer> all = rows(n, new Shard(r, k, b, 0, 0, SEED, before));
                List<Integer> read = i < parts.size() ? all.subList(0, parts.get(i).steps() * b) : all;
                for (int row : read) {
                    assertTrue(seen.add(row), "example " + row + " read twice (part " + i + ", rank " + r + ")");
                }
                count += read.size();
            }
        }
        EpochCursor cursor = new EpochCursor(0, parts);
        assertEquals(b * (4 * 2 + 3 * 3) + 5 * b * cursor.stepsLeft(n, 5, b), count);
        assertEquals(51, cursor.examplesRead(b));
        assertTrue(n - count < 5 * b, "only a tail short of one global batch is dropped: " + (n - count));
    }

    @Test
    void aCursorShouldGrowItsLastPartAtTheSameK() {
        EpochCursor c = EpochCursor.start(3).after(4, 2).after(4, 1).after(3, 0).after(3, 2);
        assertEquals(new EpochCursor(3, List.of(new EpochCursor.Part(4, 3), new EpochCursor.Part(3, 2))), c);
        assertTrue(EpochCursor.start(0).unread());
        assertFalse(c.unread());
    }

    @Test
    void badCursorsShouldBeRefusedNamingWhatIsWrong() {
        assertEquals("a part of an epoch runs >= 1 steps, found 0",
                assertThrows(IllegalArgumentException.class, () -> new EpochCursor.Part(3, 0)).getMessage());
        assertEquals("epoch must be >= 0, found -1",
                assertThrows(IllegalArgumentException.class, () -> EpochCursor.start(-1)).getMessage());
        EpochCursor tooFar = new EpochCursor(0, List.of(new EpochCursor.Part(4, 7)));
        assertEquals("a part of 7 steps at K = 4 reads 28 examples per rank, more than the 25 of a rank's block of"
                + " 100 examples", assertThrows(IllegalArgumentException.class,
                () -> tooFar.unreadOf(EpochOrder.of(N, SEED, 0), B)).getMessage());
        assertEquals("rank 0: a rank-local source cannot read the rest of an epoch another number of ranks began (its"
                + " rows have no order across ranks); resume at an epoch's first step or at the same K",
                assertThrows(IllegalArgumentException.class, () -> RankLocalSource.ofIndexed(80, 2, r -> new Recording(40))
                        .open(new Shard(0, 2, B, 0, 0, SEED, List.of(new EpochCursor.Part(3, 1))))).getMessage());
    }
}

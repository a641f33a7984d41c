package io.lgc4j.core.compress;

import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Random-k's support: the same on every rank that has the run's seed, another at another step, block or seed, of
 * each block's count, ascending and distinct, and uniform over the block (fixed seeds, so the statistical bounds
 * hold or fail the same way every run).
 */
class RandomKCompressorTest {
    private static final List<ParamBlock> BLOCKS = List.of(
            new ParamBlock(1, 1, "conv2", "W", 100, 5000, new long[] {5000}, LayerPolicy.LEARNED),
            new ParamBlock(2, 1, "conv2", "b", 5100, 50, new long[] {50}, LayerPolicy.LEARNED),
            new ParamBlock(3, 2, "out", "W", 5150, 3000, new long[] {3000}, LayerPolicy.TOP_K));

    @Test
    void ranksWithTheSameSeedShouldDrawTheSameSupportWithoutAMessage() {
        RandomKCompressor.Settings settings = new RandomKCompressor.Settings(0.01, 0.02);
        RandomKCompressor one = new RandomKCompressor(settings, 42);
        RandomKCompressor two = new RandomKCompressor(settings, 42);
        SharedSupportCompressor.State rankOne = one.newRank(BLOCKS);
        SharedSupportCompressor.State rankTwo = two.newRank(BLOCKS);
        for (int step = 0; step < 20; step++) {
            int[][] support = one.support(step, BLOCKS);
            assertSupportEquals(support, two.support(step, BLOCKS), "another compressor, step " + step);
            assertSupportEquals(support, rankOne.chooseSupport(step), "rank one's state, step " + step);
            assertSupportEquals(support, rankTwo.chooseSupport(step), "rank two's state, step " + step);
        }
    }

    @Test
    void shouldDrawEachBlocksCountOfItsPolicyAscendingAndDistinct() {
        RandomKCompressor randomk = new RandomKCompressor(new RandomKCompressor.Settings(0.01, 0.02), 7);
        int[][] support = randomk.support(3, BLOCKS);
        assertEquals(List.of(100, 1, 30), Arrays.stream(support).map(s -> s.length).toList(),
                "LEARNED at 2%: 100 of 5,000 and 1 of 50; TOP_K at 1%: 30 of 3,000");
        for (int b = 0; b < BLOCKS.size(); b++) {
            for (int i = 0; i < support[b].length; i++) {
                assertTrue(support[b][i] >= 0 && support[b][i] < BLOCKS.get(b).length(), "in the block");
                assertTrue(i == 0 || support[b][i - 1] < support[b][i], "ascending and distinct");
            }
        }
    }

    /** The draw is keyed by each block's index in the layout, not by its place in the list it is asked for. */
    @Test
    void anotherStepBlockOrSeedShouldDrawAnotherSupport() {
        RandomKCompressor randomk = new RandomKCompressor(0.01, 42);
        int[][] step0 = randomk.support(0, BLOCKS);
        assertFalse(Arrays.equals(step0[0], randomk.support(1, BLOCKS)[0]), "another step");
        assertFalse(Arrays.equals(step0[0], new RandomKCompressor(0.01, 43).support(0, BLOCKS)[0]), "another seed");
        ParamBlock renumbered = new ParamBlock(4, 1, "conv2", "W", 100, 5000, new long[] {5000}, LayerPolicy.LEARNED);
        assertFalse(Arrays.equals(step0[0], randomk.support(0, List.of(renumbered))[0]),
                "the same shape at another index");
        assertArrayEquals(step0[2], randomk.support(0, List.of(BLOCKS.get(2)))[0], "the same block asked alone");
    }

    /**
     * 3 of a block of 10, over 30,000 steps: each index is drawn 9,000 times in expectation (standard deviation about
     * 79); every one must land within 4% (360, more than 4.5 deviations). And every one of the 120 subsets of 3
     * comes about equally often (250 in expectation, within 40%), so the draw is uniform over subsets, not only
     * over indices.
     */
    @Test
    void everyIndexAndEverySubsetOfASmallBlockShouldBeDrawnAboutEquallyOften() {
        ParamBlock small = new ParamBlock(0, 1, "fc", "b", 0, 10, new long[] {10}, LayerPolicy.LEARNED);
        RandomKCompressor randomk = new RandomKCompressor(0.3, 2024);
        int steps = 30_000;
        int[] counts = new int[10];
        Map<String, Integer> subsets = new HashMap<>();
        for (int step = 0; step < steps; step++) {
            int[] support = randomk.support(step, List.of(small))[0];
            assertEquals(3, support.length);
            for (int i : support) {
                counts[i]++;
            }
            subsets.merge(Arrays.toString(support), 1, Integer::sum);
        }
        for (int i = 0; i < counts.length; i++) {
            assertTrue(Math.abs(counts[i] - 9_000) < 360, "index " + i + " drawn " + counts[i] + " times: "
                    + Arrays.toString(counts));
        }
        assertEquals(120, subsets.size(), "every subset of 3 of 10 drawn");
        for (Map.Entry<String, Integer> e : subsets.entrySet()) {
            assertTrue(Math.abs(e.getValue() - 250) < 100, e.getKey() + " drawn " + e.getValue() + " times");
        }
    }

    /** More than half of a range is drawn as the complement of the rest; it must be uniform over subsets too. */
    @Test
    void aDrawOfMoreThanHalfTheRangeShouldBeUniformOverSubsets() {
        SplittableRandom random = new SplittableRandom(5);
        Map<String, Integer> subsets = new HashMap<>();
        for (int t = 0; t < 20_000; t++) {
            int[] s = RandomSubset.draw(5, 3, random);
            assertEquals(3, s.length);
            assertTrue(s[0] < s[1] && s[1] < s[2] && s[0] >= 0 && s[2] < 5, Arrays.toString(s));
            subsets.merge(Arrays.toString(s), 1, Integer::sum);
        }
        assertEquals(10, subsets.size());
        subsets.forEach((subset, n) -> assertTrue(Math.abs(n - 2_000) < 200, subset + " drawn " + n + " times"));
        assertArrayEquals(new int[] {0, 1, 2, 3}, RandomSubset.draw(4, 4, random), "all of it");
        assertArrayEquals(new int[0], RandomSubset.draw(4, 0, random), "none of it");
    }

    /** A thousand of five million costs a thousand draws and a table of 2,048 slots, not a pass over the range. */
    @Test
    void shouldDrawFewOfALongRangeWithoutTouchingTheRange() {
        int[] s = RandomSubset.draw(5_000_000, 1_000, new SplittableRandom(1));
        assertEquals(1_000, s.length);
        for (int i = 1; i < s.length; i++) {
            assertTrue(s[i - 1] < s[i], "ascending and distinct at " + i);
        }
        assertTrue(s[0] >= 0 && s[s.length - 1] < 5_000_000);
        assertEquals("expected 0 <= k <= n, found k=6, n=5", assertThrows(IllegalArgumentException.class,
                () -> RandomSubset.draw(5, 6, new SplittableRandom(1))).getMessage());
    }

    private static void assertSupportEquals(int[][] expected, int[][] actual, String where) {
        assertEquals(expected.length, actual.length, where);
        for (int b = 0; b < expected.length; b++) {
            assertArrayEquals(expected[b], actual[b], where + ", block " + b);
        }
    }
}

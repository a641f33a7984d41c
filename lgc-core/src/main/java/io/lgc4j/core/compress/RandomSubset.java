package io.lgc4j.core.compress;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * k distinct indices of {@code [0, n)} drawn uniformly among all k-subsets, in ascending order: random-k's support.
 * Robert Floyd's algorithm draws k numbers (one per j = n−k .. n−1: a uniform t in [0, j], taken unless already
 * taken, else j) and keeps what it took in an open-addressing hash set of about 2k slots, so a draw costs O(k log k)
 * time (the sort) and O(k) memory however long the block; when k &gt; n/2 it draws the n−k indices left out instead.
 * The result depends only on n, k and the generator's sequence.
 *
 * <pre>{@code
 * int[] support = RandomSubset.draw(1_000_000, 1_000, new SplittableRandom(seed));   // 1,000 ascending indices
 * }</pre>
 */
final class RandomSubset {
    private static final int EMPTY = -1;
    /** The largest hash table, 2^30 slots: more than the at most 2^30 − 1 indices one table ever holds. */
    private static final int MAX_TABLE = 1 << 30;

    private RandomSubset() {
    }

    /**
     * @param n      the range's length, {@code >= 0}
     * @param k      how many to draw, {@code 0 <= k <= n}
     * @param random the generator; the draw advances it
     * @return k distinct indices of {@code [0, n)}, ascending
     * @throws IllegalArgumentException unless {@code 0 <= k <= n}
     */
    public static int[] draw(int n, int k, SplittableRandom random) {
        if (k < 0 || k > n) {
            throw new IllegalArgumentException("expected 0 <= k <= n, found k=" + k + ", n=" + n);
        }
        if (2L * k <= n) {
            return floyd(n, k, random);
        }
        // the complement of a uniform (n−k)-subset is a uniform k-subset, and its table is the smaller one
        int[] left = floyd(n, n - k, random);
        int[] out = new int[k];
        int at = 0;
        int skip = 0;
        for (int i = 0; i < n; i++) {
            if (skip < left.length && left[skip] == i) {
                skip++;
            } else {
                out[at++] = i;
            }
        }
        return out;
    }

    private static int[] floyd(int n, int k, SplittableRandom random) {
        int[] out = new int[k];
        int size = 2;
        while (size < 2L * k && size < MAX_TABLE) {
            size <<= 1;
        }
        int[] table = new int[size];
        Arrays.fill(table, EMPTY);
        int mask = size - 1;
        for (int j = n - k, at = 0; j < n; j++, at++) {
            int t = random.nextInt(j + 1);
            if (!add(table, mask, t)) {
                t = j; // every index taken so far is < j, so j is new
                add(table, mask, j);
            }
            out[at] = t;
        }
        Arrays.sort(out);
        return out;
    }

    /** Adds {@code value} to the set; false when it was there already. */
    private static boolean add(int[] table, int mask, int value) {
        int h = value * 0x9E3779B9;
        int slot = (h ^ (h >>> 16)) & mask;
        while (table[slot] != EMPTY) {
            if (table[slot] == value) {
                return false;
            }
            slot = (slot + 1) & mask;
        }
        table[slot] = value;
        return true;
    }
}

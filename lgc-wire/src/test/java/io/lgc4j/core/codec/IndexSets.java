package io.lgc4j.core.codec;

import java.util.Arrays;
import java.util.BitSet;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

/** Index sets for codec tests: uniform random k-subsets and runs. */
final class IndexSets {

    private IndexSets() {
    }

    /** A uniform random {@code k}-subset of {@code [0, n)}, sorted (Floyd's algorithm, so exactly uniform). */
    static int[] uniform(int n, int k, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        BitSet chosen = new BitSet(n);
        for (int j = n - k; j < n; j++) {
            int t = random.nextInt(j + 1);
            chosen.set(chosen.get(t) ? j : t);
        }
        return chosen.stream().toArray();
    }

    /** {@code from, from + 1, ..., to - 1}. */
    static int[] run(int from, int to) {
        return IntStream.range(from, to).toArray();
    }

    /** The concatenation of sorted, disjoint, increasing parts. */
    static int[] concat(int[]... parts) {
        return Arrays.stream(parts).flatMapToInt(IntStream::of).toArray();
    }
}

package io.lgc4j.core.data;

import java.util.SplittableRandom;

/**
 * The order of the examples in one epoch, the same for every source that can read any example by its number: the
 * indices {@code 0 … N−1} shuffled by Fisher–Yates (from the last index down, {@code j = nextInt(i + 1)}) with a
 * {@link SplittableRandom} seeded {@code seed · 0x9E3779B97F4A7C15 + epoch}. Rank r of K reads the contiguous block
 * {@code order[r·⌊N/K⌋ + t·b …)} at step t (unlike PyTorch's {@code DistributedSampler}, which strides). Pinned by
 * golden indices ({@code EpochOrderTest}): changing it changes every run.
 */
public final class EpochOrder {

    private EpochOrder() {
    }

    /**
     * @param examples N
     * @param seed     the run's data seed
     * @param epoch    the epoch, from 0
     * @return a permutation of {@code [0, examples)}
     */
    public static int[] of(int examples, long seed, int epoch) {
        int[] idx = new int[examples];
        for (int i = 0; i < examples; i++) {
            idx[i] = i;
        }
        SplittableRandom random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + epoch);
        for (int i = examples - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = idx[i];
            idx[i] = idx[j];
            idx[j] = t;
        }
        return idx;
    }

    /** The first example rank {@code rank} reads at step {@code step} of an epoch: its position in the order. */
    public static long position(long examples, int workers, int batchSize, int rank, int step) {
        return rank * (examples / workers) + (long) step * batchSize;
    }
}

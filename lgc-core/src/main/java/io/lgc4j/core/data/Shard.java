package io.lgc4j.core.data;

/**
 * What one worker reads in one epoch: rank {@code rank} of {@code workers}, batches of {@code batchSize} examples,
 * from step {@code fromStep} of epoch {@code epoch} (0 unless a resumed run starts inside the epoch) to its end, in the
 * order {@code seed} fixes for that epoch.
 */
public record Shard(int rank, int workers, int batchSize, int epoch, int fromStep, long seed) {

    /** Checks the ranges. */
    public Shard {
        if (workers < 1 || rank < 0 || rank >= workers) {
            throw new IllegalArgumentException("rank must be in [0, " + workers + "), found " + rank);
        }
        if (batchSize < 1) {
            throw new IllegalArgumentException("batchSize must be >= 1, found " + batchSize);
        }
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch must be >= 0, found " + epoch);
        }
        if (fromStep < 0) {
            throw new IllegalArgumentException("fromStep must be >= 0, found " + fromStep);
        }
    }
}

package io.lgc4j.core.data;

import java.util.List;
import java.util.Objects;

/**
 * What one worker reads in one epoch: rank {@code rank} of {@code workers}, batches of {@code batchSize} examples,
 * from step {@code fromStep} of epoch {@code epoch} (0 unless a resumed run starts inside the epoch) to its end, in the
 * order {@code seed} fixes for that epoch. {@code before}: the parts of the epoch read before by another number of
 * ranks (empty unless a run was resumed at another K inside the epoch; see {@link EpochCursor}); the shard is then a
 * share of the examples they did not read, and {@code fromStep} counts from where this K began.
 */
public record Shard(int rank, int workers, int batchSize, int epoch, int fromStep, long seed,
                    List<EpochCursor.Part> before) {

    /** Checks the ranges; copies {@code before}. */
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
        before = List.copyOf(Objects.requireNonNull(before, "before"));
    }

    /** A shard of an epoch every part of which this K reads. */
    public Shard(int rank, int workers, int batchSize, int epoch, int fromStep, long seed) {
        this(rank, workers, batchSize, epoch, fromStep, seed, List.of());
    }

    /** Whether another number of ranks read part of this epoch before. */
    public boolean resized() {
        return !before.isEmpty();
    }
}

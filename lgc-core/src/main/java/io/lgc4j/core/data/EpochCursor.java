package io.lgc4j.core.data;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How far a run has read one epoch: the epoch, and the parts of it already read, each by its own number of ranks
 * (a run resumed at another K reads the rest of an epoch at the new K). Empty {@link #read}: the epoch is unread.
 *
 * <p>The rule a resized epoch reads by, pinned by {@code EpochCursorTest}'s golden indices: start from the epoch's
 * {@link EpochOrder}; a part of K ranks that ran t steps over a list R of n positions read, on rank r, R's positions
 * {@code r·⌊n/K⌋ + i} for {@code i < t·b} (the fresh run's rule); the next part reads the list R with those positions
 * taken out, order kept. So the rest of an epoch is every example not yet read in it, split over the new K as a fresh
 * epoch of that many examples would be; its tail that fills no global batch is dropped, as a fresh epoch's is. At
 * the same K the rule reads exactly what the uninterrupted run reads.
 *
 * @param epoch the epoch, from 0
 * @param read  the parts of the epoch already read, in the order they ran
 */
public record EpochCursor(int epoch, List<Part> read) {

    /**
     * A part of an epoch read by {@code workers} ranks for {@code steps} steps.
     */
    public record Part(int workers, int steps) {
        /** Checks the counts. */
        public Part {
            if (workers < 1) {
                throw new IllegalArgumentException("a part of an epoch is read by >= 1 workers, found " + workers);
            }
            if (steps < 1) {
                throw new IllegalArgumentException("a part of an epoch runs >= 1 steps, found " + steps);
            }
        }
    }

    /** Checks the epoch; copies the parts. */
    public EpochCursor {
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch must be >= 0, found " + epoch);
        }
        read = List.copyOf(Objects.requireNonNull(read, "read"));
    }

    /** Epoch {@code epoch}, unread. */
    public static EpochCursor start(int epoch) {
        return new EpochCursor(epoch, List.of());
    }

    /** This cursor after {@code steps} more steps at {@code workers} ranks (a part of the same K grows). */
    public EpochCursor after(int workers, int steps) {
        if (steps == 0) {
            return this;
        }
        List<Part> parts = new ArrayList<>(read);
        Part last = parts.isEmpty() ? null : parts.get(parts.size() - 1);
        if (last != null && last.workers() == workers) {
            parts.set(parts.size() - 1, new Part(workers, last.steps() + steps));
        } else {
            parts.add(new Part(workers, steps));
        }
        return new EpochCursor(epoch, parts);
    }

    /** Whether nothing of the epoch is read. */
    public boolean unread() {
        return read.isEmpty();
    }

    /** Examples the parts read, at {@code batchSize} examples per rank and step. */
    public long examplesRead(int batchSize) {
        long n = 0;
        for (Part p : read) {
            n += (long) p.workers() * p.steps() * batchSize;
        }
        return n;
    }

    /**
     * Steps the rest of the epoch takes at {@code workers} ranks of {@code batchSize}: {@code ⌊n / (K·b)⌋} of the n
     * examples not yet read.
     *
     * @throws IllegalArgumentException when the parts read more examples than the epoch holds
     */
    public int stepsLeft(long examples, int workers, int batchSize) {
        long left = examples - examplesRead(batchSize);
        if (left < 0) {
            throw new IllegalArgumentException("the epoch's parts " + read + " read " + examplesRead(batchSize)
                    + " examples at batch " + batchSize + ", more than the " + examples + " it holds");
        }
        return Math.toIntExact(left / ((long) workers * batchSize));
    }

    /**
     * The positions of {@code order} not yet read, in order: what the rest of the epoch is split from.
     *
     * @param order the epoch's order ({@link EpochOrder#of})
     */
    public int[] unreadOf(int[] order, int batchSize) {
        int[] list = order;
        for (Part p : read) {
            int n = list.length;
            int block = n / p.workers();
            long taken = (long) p.steps() * batchSize;
            if (taken > block) {
                throw new IllegalArgumentException("a part of " + p.steps() + " steps at K = " + p.workers()
                        + " reads " + taken + " examples per rank, more than the " + block + " of a rank's block of "
                        + n + " examples");
            }
            int[] rest = new int[Math.toIntExact(n - taken * p.workers())];
            int to = 0;
            for (int r = 0; r < p.workers(); r++) {
                int from = r * block + (int) taken;
                int end = (r + 1) * block;
                System.arraycopy(list, from, rest, to, end - from);
                to += end - from;
            }
            System.arraycopy(list, p.workers() * block, rest, to, n - p.workers() * block); // the n mod K tail
            list = rest;
        }
        return list;
    }
}

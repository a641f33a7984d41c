package io.lgc4j.core.train;

import io.lgc4j.core.data.EpochCursor;

import java.util.ArrayList;
import java.util.List;

/**
 * Which epoch each step of a run is in and which step of the epoch's part it is: step {@code s} of a run that never
 * changed K is step {@code s mod T} of epoch {@code s div T}; a run resumed at another K reads the rest of the epoch
 * it resumed in ({@link EpochCursor}: fewer or more steps than T), then whole epochs of T steps at its K.
 *
 * @param workers    K, this run's
 * @param batchSize  b
 * @param perEpoch   T: steps of a whole epoch at this K
 * @param anchor     the global step at which this K's part of epoch {@code epoch} began
 * @param epoch      the epoch the run resumed in (0 for a fresh run)
 * @param before     the parts of that epoch other K read before (empty unless the run was resized inside it)
 * @param firstSteps steps of this K's part of that epoch
 */
record EpochMap(int workers, int batchSize, int perEpoch, int anchor, int epoch, List<EpochCursor.Part> before,
                int firstSteps) {

    EpochMap {
        before = List.copyOf(before);
    }

    /** A run from step 0, or resumed at the K it was written by from a checkpoint that never changed K. */
    static EpochMap plain(int workers, int batchSize, int perEpoch) {
        return new EpochMap(workers, batchSize, perEpoch, 0, 0, List.of(), perEpoch);
    }

    /**
     * A run at {@code workers} ranks resumed at step {@code next}, where {@code cursor} says how much of its epoch
     * was read. A last part at this K goes on (the same K reads on where it stopped); any other K's parts are read
     * around, or, with {@code endsEpoch} (a source that cannot re-split, {@code DataSource#endsEpochOnResize}), the
     * epoch ends at {@code next}: this K's part of it has no step, and the next epoch begins there.
     */
    static EpochMap resumed(long examples, int workers, int batchSize, int perEpoch, int next, EpochCursor cursor,
                            boolean endsEpoch) {
        List<EpochCursor.Part> parts = new ArrayList<>(cursor.read());
        int fromStep = 0;
        if (!parts.isEmpty() && parts.get(parts.size() - 1).workers() == workers) {
            fromStep = parts.remove(parts.size() - 1).steps();
        }
        if (endsEpoch && !parts.isEmpty() && fromStep == 0) {
            return new EpochMap(workers, batchSize, perEpoch, next, cursor.epoch(), parts, 0);
        }
        // an epoch no other K read is a whole epoch of the source's plan (a rank-local source's T is its own, not
        // ⌊N/(K·b)⌋); the rest of one another K began is what the cursor's rule leaves
        int steps = parts.isEmpty() ? perEpoch
                : new EpochCursor(cursor.epoch(), parts).stepsLeft(examples, workers, batchSize);
        if (fromStep > steps) {
            throw new IllegalArgumentException("the checkpoint at step " + next + " has read " + fromStep
                    + " steps of epoch " + cursor.epoch() + " at K = " + workers + ", beyond the " + steps
                    + " steps that part of the epoch has");
        }
        return new EpochMap(workers, batchSize, perEpoch, next - fromStep, cursor.epoch(), parts, steps);
    }

    /**
     * The cursor a checkpoint of a run written by {@code workers} ranks before this build recorded, derived from its
     * next step: every step at that K, {@code T = stepsPerEpoch} a whole epoch.
     */
    static EpochCursor derived(long next, int workers, int stepsPerEpoch) {
        int epoch = Math.toIntExact(next / stepsPerEpoch);
        int inEpoch = (int) (next % stepsPerEpoch);
        return EpochCursor.start(epoch).after(workers, inEpoch);
    }

    /**
     * Whether the epoch the run resumed in ended at the resume ({@code endsEpoch}): the model's epoch count, saved
     * inside that epoch, counts one more before the first step.
     */
    boolean endedAtResume() {
        return firstSteps == 0 && !before.isEmpty();
    }

    /** Whether the step's epoch and place follow from the step alone ({@code s div T}): no checkpoint needs a cursor. */
    boolean isPlain() {
        return before.isEmpty() && firstSteps == perEpoch && anchor == (long) epoch * perEpoch;
    }

    private boolean inFirst(int s) {
        return s < anchor + firstSteps;
    }

    /** The epoch of step {@code s}. */
    int epochOf(int s) {
        return inFirst(s) ? epoch : epoch + 1 + (s - anchor - firstSteps) / perEpoch;
    }

    /** The step of {@code s} within its epoch's part at this K (what a {@code Shard}'s {@code fromStep} counts). */
    int partStep(int s) {
        return inFirst(s) ? s - anchor : (s - anchor - firstSteps) % perEpoch;
    }

    /** Steps in the part of the epoch step {@code s} is in. */
    int partSteps(int s) {
        return inFirst(s) ? firstSteps : perEpoch;
    }

    /** Other K's parts of the epoch of step {@code s}. */
    List<EpochCursor.Part> before(int s) {
        return inFirst(s) ? before : List.of();
    }

    /** Whether step {@code s} is its epoch's last. */
    boolean epochEnd(int s) {
        return partStep(s) == partSteps(s) - 1;
    }

    /** Steps of a run of {@code epochs} epochs: the step after the last epoch's last. */
    int totalSteps(int epochs) {
        if (epochs <= epoch) {
            return anchor; // the run is past them
        }
        return Math.toIntExact(anchor + firstSteps + (long) (epochs - epoch - 1) * perEpoch);
    }

    /** How much of its epoch a run has read before step {@code next}. */
    EpochCursor cursorAt(int next) {
        EpochCursor start = new EpochCursor(epochOf(next), before(next));
        return start.after(workers, partStep(next));
    }
}

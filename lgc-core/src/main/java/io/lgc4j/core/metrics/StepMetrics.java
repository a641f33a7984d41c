package io.lgc4j.core.metrics;

import java.util.Map;

import io.lgc4j.core.comm.TrafficMeter;
import io.lgc4j.core.stage.Stage;

/**
 * What one synchronous training step did, over all ranks.
 *
 * @param step          0-based global step
 * @param epoch         0-based epoch
 * @param stage         the step's stage
 * @param loss          mean of the ranks' mini-batch losses, in rank order
 * @param testAccuracy  accuracy on the evaluation data after this step, or NaN when not evaluated
 * @param phaseNanos    per {@link Phase#ordinal()}, the mean over ranks of the nanoseconds spent in that phase
 * @param maxPhaseNanos per {@link Phase#ordinal()}, the slowest rank's nanoseconds in that phase
 * @param wallNanos     wall time of the step, from the first rank starting it to the last rank finishing it
 * @param traffic       bytes counted during this step, per endpoint (workers first, then service endpoints)
 * @param workers       number of worker ranks K
 * @param notes         named scalars the topology reported for this step ({@link StepNotes}), by name
 */
public record StepMetrics(int step, int epoch, Stage stage, double loss, double testAccuracy, long[] phaseNanos,
                          long[] maxPhaseNanos, long wallNanos, TrafficMeter.Snapshot traffic, int workers,
                          Map<String, Double> notes) {

    /** Copies the notes. */
    public StepMetrics {
        notes = Map.copyOf(notes);
    }

    /** The note {@code name} of this step (see {@link StepNotes}), or NaN if the topology did not report it. */
    public double note(String name) {
        return notes.getOrDefault(name, Double.NaN);
    }

    /** Mean nanoseconds per rank in {@code phase}. */
    public long nanos(Phase phase) {
        return phaseNanos[phase.ordinal()];
    }

    /** The slowest rank's nanoseconds in {@code phase}. */
    public long maxNanos(Phase phase) {
        return maxPhaseNanos[phase.ordinal()];
    }

    /** Whether this step ended with an evaluation. */
    public boolean evaluated() {
        return !Double.isNaN(testAccuracy);
    }
}

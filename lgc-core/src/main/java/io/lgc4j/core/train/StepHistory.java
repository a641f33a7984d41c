package io.lgc4j.core.train;

import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.SectionReader;
import io.lgc4j.core.checkpoint.SectionWriter;
import io.lgc4j.core.comm.TrafficMeter;
import io.lgc4j.core.metrics.StepMetrics;
import io.lgc4j.core.stage.Stage;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The step metrics of the steps a checkpoint covers, so that a resumed run's result (and the summary made from it)
 * holds every step of the run, not only those after the resume. Rank 0 writes them into its part.
 *
 * <p>Layout of the section: uint32 step count; per step: int32 step, int32 epoch, uint8 stage wire id, float64
 * loss, float64 test accuracy (NaN when not evaluated), uint8 phase count P, P int64 mean phase nanos, P int64 max
 * phase nanos, int64 wall nanos, int32 workers, uint32 endpoints E, per endpoint a sparse traffic row (uint32 count
 * of non-zero counters, then per counter uint32 index and int64 value), uint32 note count, per note a string name
 * and float64 value (names ascending).
 */
final class StepHistory {

    private StepHistory() {
    }

    /** Writes {@code steps} into {@code out}. */
    static void write(SectionWriter out, List<StepMetrics> steps) {
        out.putInt(steps.size());
        for (StepMetrics m : steps) {
            out.putInt(m.step()).putInt(m.epoch()).putByte(m.stage().wireId()).putDouble(m.loss())
                    .putDouble(m.testAccuracy());
            out.putByte(m.phaseNanos().length).putLongs(m.phaseNanos());
            putLongs(out, m.maxPhaseNanos(), m.phaseNanos().length);
            out.putLong(m.wallNanos()).putInt(m.workers());
            TrafficMeter.Snapshot t = m.traffic();
            out.putInt(t.endpoints());
            for (int e = 0; e < t.endpoints(); e++) {
                long[] row = t.row(e);
                int nonZero = 0;
                for (long v : row) {
                    nonZero += v != 0 ? 1 : 0;
                }
                out.putInt(nonZero);
                for (int i = 0; i < row.length; i++) {
                    if (row[i] != 0) {
                        out.putInt(i).putLong(row[i]);
                    }
                }
            }
            Map<String, Double> notes = new TreeMap<>(m.notes());
            out.putInt(notes.size());
            notes.forEach((name, value) -> out.putString(name).putDouble(value));
        }
    }

    private static void putLongs(SectionWriter out, long[] values, int count) {
        if (values.length != count) {
            throw new IllegalArgumentException("max phase nanos has " + values.length + " entries, mean has "
                    + count);
        }
        out.putLongs(values);
    }

    /**
     * Reads what {@link #write} wrote; the whole section.
     *
     * @throws CheckpointException when the section is truncated, too long, or holds a value out of range
     */
    static List<StepMetrics> read(SectionReader in) throws CheckpointException {
        int count = in.getInt();
        if (count < 0) {
            throw new CheckpointException("section '" + in.name() + "': a step count of " + Integer.toUnsignedString(
                    count) + " is beyond what a run can hold");
        }
        List<StepMetrics> steps = new ArrayList<>(Math.min(count, 1 << 16));
        for (int k = 0; k < count; k++) {
            int step = in.getInt();
            int epoch = in.getInt();
            int stageId = in.getByte();
            Stage stage;
            try {
                stage = Stage.ofWireId(stageId);
            } catch (IllegalArgumentException e) {
                throw new CheckpointException("section '" + in.name() + "', step " + step + ": " + e.getMessage());
            }
            double loss = in.getDouble();
            double accuracy = in.getDouble();
            int phases = in.getByte();
            long[] mean = in.getLongs(phases);
            long[] max = in.getLongs(phases);
            long wall = in.getLong();
            int workers = in.getInt();
            int endpoints = in.getInt();
            if (endpoints < 1 || endpoints > 1 << 16) {
                throw new CheckpointException("section '" + in.name() + "', step " + step + ": "
                        + Integer.toUnsignedString(endpoints) + " endpoints, expected 1.." + (1 << 16));
            }
            long[][] rows = new long[endpoints][TrafficMeter.ROW_LENGTH];
            for (int e = 0; e < endpoints; e++) {
                int nonZero = in.getInt();
                if (nonZero < 0 || nonZero > TrafficMeter.ROW_LENGTH) {
                    throw new CheckpointException("section '" + in.name() + "', step " + step + ": endpoint " + e
                            + " lists " + Integer.toUnsignedString(nonZero) + " counters, at most "
                            + TrafficMeter.ROW_LENGTH);
                }
                for (int j = 0; j < nonZero; j++) {
                    int index = in.getInt();
                    if (index < 0 || index >= TrafficMeter.ROW_LENGTH) {
                        throw new CheckpointException("section '" + in.name() + "', step " + step + ": counter "
                                + Integer.toUnsignedString(index) + " outside 0.." + (TrafficMeter.ROW_LENGTH - 1));
                    }
                    rows[e][index] = in.getLong();
                }
            }
            int noteCount = in.getInt();
            if (noteCount < 0 || noteCount > in.remaining()) {
                throw new CheckpointException("section '" + in.name() + "', step " + step + ": "
                        + Integer.toUnsignedString(noteCount) + " notes do not fit the " + in.remaining()
                        + " bytes left");
            }
            Map<String, Double> notes = new TreeMap<>();
            for (int j = 0; j < noteCount; j++) {
                notes.put(in.getString(), in.getDouble());
            }
            steps.add(new StepMetrics(step, epoch, stage, loss, accuracy, mean, max, wall,
                    TrafficMeter.Snapshot.ofRows(rows), workers, notes));
        }
        in.end();
        return steps;
    }
}

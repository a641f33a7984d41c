package io.lgc4j.core.train;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.TrafficMeter;
import io.lgc4j.core.stage.Stage;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What an endpoint tells rank 0 about the run, and how rank 0 ends it: one {@link TrafficKind#REPORT} frame each,
 * counted apart from training traffic. Payload byte 0 is the type (1 step, 2 final, 3 stop, 4 done, 5 offer, 6 saved,
 * 7 evaluated, 8 data, 9 agreed, 10 clock probe, 11 clock echo), then the type's fields, little-endian, strings as a
 * u16 length and UTF-8; traffic is a {@link TrafficMeter.Snapshot#row} as (u16 index, i64 value) pairs of its non-zero
 * counters. Each record's {@code write} and {@link #decode} hold the exact field order.
 *
 * <pre>{@code
 * transport.send(0, new RunReport.StepReport(loss, clock.snapshot(), notes.take(step), delta).encode(step, stage));
 * RunReport r = RunReport.decode(frame);
 * }</pre>
 */
sealed interface RunReport {

    /** A step as one endpoint saw it: a worker's loss and phase times (a service: NaN and none), notes, bytes. */
    record StepReport(double loss, long[] phaseNanos, Map<String, Double> notes, long[] traffic) implements RunReport {
        @Override
        public void write(ReportWriter out) {
            out.put(1).putDouble(loss).put(phaseNanos.length);
            for (long n : phaseNanos) {
                out.putLong(n);
            }
            out.putShort(notes.size());
            for (Map.Entry<String, Double> e : new TreeMap<>(notes).entrySet()) {
                out.putString(e.getKey()).putDouble(e.getValue());
            }
            putTraffic(out, traffic);
        }

        /** Copies the arrays and notes. */
        public StepReport {
            phaseNanos = phaseNanos.clone();
            notes = Map.copyOf(notes);
            traffic = traffic.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof StepReport r && Double.compare(r.loss, loss) == 0
                    && Arrays.equals(r.phaseNanos, phaseNanos) && r.notes.equals(notes)
                    && Arrays.equals(r.traffic, traffic);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(traffic) * 31 + notes.hashCode();
        }

        @Override
        public String toString() {
            return "StepReport[loss=" + loss + ", phaseNanos=" + Arrays.toString(phaseNanos) + ", notes=" + notes
                    + "]";
        }
    }

    /** An endpoint's end of the run: its replica's checksum (a service has none: empty) and all its bytes. */
    record FinalReport(String replicaChecksum, long[] traffic) implements RunReport {
        @Override
        public void write(ReportWriter out) {
            putTraffic(out.put(2).putString(replicaChecksum), traffic);
        }

        /** Copies the counters. */
        public FinalReport {
            Objects.requireNonNull(replicaChecksum, "replicaChecksum");
            traffic = traffic.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof FinalReport r && r.replicaChecksum.equals(replicaChecksum)
                    && Arrays.equals(r.traffic, traffic);
        }

        @Override
        public int hashCode() {
            return replicaChecksum.hashCode() * 31 + Arrays.hashCode(traffic);
        }

        @Override
        public String toString() {
            return "FinalReport[replicaChecksum=" + replicaChecksum + "]";
        }
    }

    /**
     * The diagnostic mode: what a rank offered on the LEARNED positions in a step (see
     * {@code io.lgc4j.core.train.UpdateFidelity}).
     *
     * @param values the compensated values the rank's compressor selected from (a dense step: its gradient), in
     *               layout order over the LEARNED blocks
     * @param taken  bit i (of word i / 64) set when position i was sent; {@code (values.length + 63) / 64} words
     */
    record Offer(float[] values, long[] taken) implements RunReport {
        @Override
        public void write(ReportWriter out) {
            out.put(5).putInt(values.length).putFloats(values).putLongs(taken);
        }

        /** Checks the bitmap's length; keeps the arrays (the caller hands them over). */
        public Offer {
            if (taken.length != (values.length + 63) >>> 6) {
                throw new IllegalArgumentException("an offer of " + values.length + " values needs "
                        + ((values.length + 63) >>> 6) + " bitmap words, found " + taken.length);
            }
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Offer r && Arrays.equals(r.values, values) && Arrays.equals(r.taken, taken);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(values) * 31 + Arrays.hashCode(taken);
        }

        @Override
        public String toString() {
            return "Offer[" + values.length + " values]";
        }
    }

    /**
     * An endpoint to rank 0: it wrote its part of the checkpoint after the report's step.
     *
     * @param file            the part's file name ({@code rank-2.lgcc})
     * @param size            its size in bytes
     * @param crc32c          the CRC32C of its bytes before the trailer (as the manifest lists it)
     * @param replicaChecksum the checksum of the replica it saved (a service: empty), which rank 0 compares
     * @param writeNanos      how long the endpoint took to build and write its part
     */
    record Saved(String file, long size, int crc32c, String replicaChecksum, long writeNanos) implements RunReport {
        @Override
        public void write(ReportWriter out) {
            out.put(6).putString(file).putLong(size).putInt(crc32c).putString(replicaChecksum).putLong(writeNanos);
        }

        /** Checks the strings. */
        public Saved {
            Objects.requireNonNull(file, "file");
            Objects.requireNonNull(replicaChecksum, "replicaChecksum");
        }
    }

    /**
     * A worker to rank 0: how its replica did on its share of the evaluation data after the report's step. Rank 0
     * adds the shares; the accuracy is the sum of {@code correct} over the sum of {@code examples}.
     *
     * @param correct  examples whose predicted class was the label's
     * @param examples examples evaluated (0 when the share was empty)
     */
    record Evaluated(long correct, long examples) implements RunReport {
        @Override
        public void write(ReportWriter out) {
            out.put(7).putLong(correct).putLong(examples);
        }

        /** Checks the counts. */
        public Evaluated {
            if (examples < 0 || correct < 0 || correct > examples) {
                throw new IllegalArgumentException("an evaluation needs 0 <= correct <= examples, found " + correct
                        + " of " + examples);
            }
        }
    }

    /**
     * A worker to rank 0, before step 0: what its data source holds ({@code io.lgc4j.core.data.DataPlan}) and the
     * model it built. Rank 0 refuses a worker whose counts, fingerprint or initial model differ from its own.
     *
     * @param examples      examples the worker's source holds
     * @param stepsPerEpoch steps per epoch at the run's K and b
     * @param fingerprint   identifies the data; 0 when the source cannot say
     * @param initialModel  the first 64 bits of the SHA-256 of the worker's parameters as it built them; 0 on a
     *                      resume (the checkpoint's are restored)
     */
    record Data(long examples, int stepsPerEpoch, long fingerprint, long initialModel) implements RunReport {
        @Override
        public void write(ReportWriter out) {
            out.put(8).putLong(examples).putInt(stepsPerEpoch).putLong(fingerprint).putLong(initialModel);
        }
    }

    /**
     * Rank 0 to every service endpoint, before step 0: the steps the workers agreed on. A service holds no data; it
     * learns the run's length from this.
     */
    record Agreed(int stepsPerEpoch, int totalSteps) implements RunReport {
        @Override
        public void write(ReportWriter out) {
            out.put(9).putInt(stepsPerEpoch).putInt(totalSteps);
        }

        /** Checks the counts. */
        public Agreed {
            if (stepsPerEpoch < 1 || totalSteps < 0) {
                throw new IllegalArgumentException("an agreement needs stepsPerEpoch >= 1 and totalSteps >= 0, found "
                        + stepsPerEpoch + " and " + totalSteps);
            }
        }
    }

    /**
     * Rank 0 to an endpoint of a traced cluster run, before step 0 and after the last: its trace clock now, to be
     * echoed at once with the endpoint's ({@link ClockEcho}), which estimates how far apart the two clocks are.
     *
     * @param rank0Nanos rank 0's {@code nanoTime} less its trace clock's anchor
     */
    record ClockProbe(long rank0Nanos) implements RunReport {
        @Override
        public void write(ReportWriter out) {
            out.put(10).putLong(rank0Nanos);
        }
    }

    /**
     * An endpoint's answer to a {@link ClockProbe}.
     *
     * @param rank0Nanos    the probe's time, echoed
     * @param endpointNanos the endpoint's {@code nanoTime} less its trace clock's anchor, when it answered
     */
    record ClockEcho(long rank0Nanos, long endpointNanos) implements RunReport {
        @Override
        public void write(ReportWriter out) {
            out.put(11).putLong(rank0Nanos).putLong(endpointNanos);
        }
    }

    /** Rank 0 to a service endpoint: the last step is over; report it and your totals. */
    record Stop() implements RunReport {
        @Override
        public void write(ReportWriter out) {
            out.put(3);
        }
    }

    /**
     * Rank 0 to every endpoint: everything is in, close your links; with the run's outcome, so that every endpoint's
     * {@code fit} returns the run's numbers.
     *
     * @param finalAccuracy    the run's last accuracy (NaN: none)
     * @param stepCount        steps the run trained (a resumed run's included)
     * @param wallNanos        rank 0's wall time of the run
     * @param replicaChecksums every worker's final checksum, in rank order
     * @param traffic          every endpoint's counters ({@link TrafficMeter.Snapshot#row} each), in endpoint order
     */
    record Done(double finalAccuracy, int stepCount, long wallNanos, List<String> replicaChecksums, long[][] traffic)
            implements RunReport {
        @Override
        public void write(ReportWriter out) {
            out.put(4).putDouble(finalAccuracy).putInt(stepCount).putLong(wallNanos);
            out.putShort(replicaChecksums.size());
            for (String c : replicaChecksums) {
                out.putString(c);
            }
            out.putShort(traffic.length);
            for (long[] row : traffic) {
                putTraffic(out, row);
            }
        }

        /** Copies the lists. */
        public Done {
            replicaChecksums = List.copyOf(replicaChecksums);
            traffic = traffic.clone();
        }

        /** The word without an outcome: no accuracy, no steps, no checksums, no traffic. */
        public Done() {
            this(Double.NaN, 0, 0, List.of(), new long[0][]);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Done d && Double.compare(d.finalAccuracy, finalAccuracy) == 0
                    && d.stepCount == stepCount && d.wallNanos == wallNanos
                    && d.replicaChecksums.equals(replicaChecksums) && Arrays.deepEquals(d.traffic, traffic);
        }

        @Override
        public int hashCode() {
            return replicaChecksums.hashCode() * 31 + stepCount;
        }

        @Override
        public String toString() {
            return "Done[finalAccuracy=" + finalAccuracy + ", stepCount=" + stepCount + ", replicaChecksums="
                    + replicaChecksums + "]";
        }
    }

    /** Writes this report's type byte and fields (the layout {@link #decode} reads). */
    void write(ReportWriter out);

    /** This report as a sealed REPORT frame of {@code step} in {@code stage}. */
    default byte[] encode(int step, Stage stage) {
        ReportWriter out = new ReportWriter();
        write(out);
        return FrameCodec.encode(TrafficKind.REPORT, stage, step, out.written());
    }

    /**
     * Reads a REPORT frame.
     *
     * @throws FrameException when the frame is not a REPORT or its payload is malformed, saying what was wrong
     */
    static RunReport decode(Frame frame) {
        if (frame.kind() != TrafficKind.REPORT) {
            throw new FrameException("expected a REPORT frame, found " + frame.kind());
        }
        ByteBuffer in = frame.payload().duplicate().order(ByteOrder.LITTLE_ENDIAN);
        try {
            int type = in.get() & 0xFF;
            RunReport report = switch (type) {
                case 1 -> {
                    double loss = in.getDouble();
                    long[] phases = new long[in.get() & 0xFF];
                    for (int i = 0; i < phases.length; i++) {
                        phases[i] = in.getLong();
                    }
                    int count = in.getShort() & 0xFFFF;
                    Map<String, Double> notes = new TreeMap<>();
                    for (int i = 0; i < count; i++) {
                        notes.put(getString(in), in.getDouble());
                    }
                    yield new StepReport(loss, phases, notes, getTraffic(in));
                }
                case 2 -> new FinalReport(getString(in), getTraffic(in));
                case 3 -> new Stop();
                case 4 -> getDone(in);
                case 5 -> getOffer(in);
                case 6 -> new Saved(getString(in), in.getLong(), in.getInt(), getString(in), in.getLong());
                case 7 -> getEvaluated(in);
                case 8 -> new Data(in.getLong(), in.getInt(), in.getLong(), in.getLong());
                case 9 -> getAgreed(in);
                case 10 -> new ClockProbe(in.getLong());
                case 11 -> new ClockEcho(in.getLong(), in.getLong());
                default -> throw new FrameException("unknown report type: expected 1..11, found " + type);
            };
            if (in.hasRemaining()) {
                throw new FrameException("report of step " + frame.step() + " has " + in.remaining()
                        + " bytes after its end");
            }
            return report;
        } catch (BufferUnderflowException e) {
            throw new FrameException("truncated report of step " + frame.step() + ": " + frame.payloadLength()
                    + " payload bytes");
        }
    }

    private static Done getDone(ByteBuffer in) {
        double accuracy = in.getDouble();
        int steps = in.getInt();
        long wall = in.getLong();
        String[] checksums = new String[in.getShort() & 0xFFFF];
        for (int i = 0; i < checksums.length; i++) {
            checksums[i] = getString(in);
        }
        long[][] traffic = new long[in.getShort() & 0xFFFF][];
        for (int i = 0; i < traffic.length; i++) {
            traffic[i] = getTraffic(in);
        }
        return new Done(accuracy, steps, wall, List.of(checksums), traffic);
    }

    private static Agreed getAgreed(ByteBuffer in) {
        int perEpoch = in.getInt();
        int total = in.getInt();
        if (perEpoch < 1 || total < 0) {
            throw new FrameException("agreement of " + perEpoch + " steps per epoch and " + total
                    + " steps: expected >= 1 and >= 0");
        }
        return new Agreed(perEpoch, total);
    }

    private static Evaluated getEvaluated(ByteBuffer in) {
        long correct = in.getLong();
        long examples = in.getLong();
        if (examples < 0 || correct < 0 || correct > examples) {
            throw new FrameException("evaluation report with " + correct + " correct of " + examples
                    + " examples: expected 0 <= correct <= examples");
        }
        return new Evaluated(correct, examples);
    }

    private static Offer getOffer(ByteBuffer in) {
        int n = in.getInt();
        long words = ((long) n + 63) >>> 6;
        if (n < 0 || 4L * n + 8 * words > in.remaining()) {
            throw new FrameException("offer of " + (n & 0xFFFFFFFFL) + " values does not fit the "
                    + in.remaining() + " bytes after its count");
        }
        float[] values = new float[n];
        in.asFloatBuffer().get(values);
        in.position(in.position() + 4 * n);
        long[] taken = new long[(int) words];
        in.asLongBuffer().get(taken);
        in.position(in.position() + 8 * taken.length);
        return new Offer(values, taken);
    }

    private static String getString(ByteBuffer in) {
        byte[] b = new byte[in.getShort() & 0xFFFF];
        in.get(b);
        return new String(b, StandardCharsets.UTF_8);
    }

    private static void putTraffic(ReportWriter out, long[] row) {
        if (row.length != TrafficMeter.ROW_LENGTH) {
            throw new IllegalArgumentException("traffic row has " + row.length + " counters, expected "
                    + TrafficMeter.ROW_LENGTH);
        }
        int count = 0;
        for (long v : row) {
            count += v != 0 ? 1 : 0;
        }
        out.putShort(count);
        for (int i = 0; i < row.length; i++) {
            if (row[i] != 0) {
                out.putShort(i).putLong(row[i]);
            }
        }
    }

    private static long[] getTraffic(ByteBuffer in) {
        long[] row = new long[TrafficMeter.ROW_LENGTH];
        int count = in.getShort() & 0xFFFF;
        for (int i = 0; i < count; i++) {
            int index = in.getShort() & 0xFFFF;
            if (index >= row.length) {
                throw new FrameException("report counter index " + index + " outside 0.." + (row.length - 1));
            }
            row[index] = in.getLong();
        }
        return row;
    }
}

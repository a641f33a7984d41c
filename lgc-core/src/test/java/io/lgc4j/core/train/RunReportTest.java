package io.lgc4j.core.train;

import io.lgc4j.core.comm.Direction;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.InProcessCluster;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.TrafficMeter;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.comm.TransportClosedException;
import io.lgc4j.core.metrics.StepNotes;
import io.lgc4j.core.protocol.FloatFrames;
import io.lgc4j.core.stage.Stage;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RunReportTest {

    private static long[] row(int index, long value) {
        long[] row = new long[TrafficMeter.ROW_LENGTH];
        row[index] = value;
        row[TrafficMeter.ROW_LENGTH - 1] = 3;
        return row;
    }

    /** One report of each kind, with edge values: empty, NaN, the largest counts. */
    static RunReport[] samples() {
        return new RunReport[] {
            new RunReport.StepReport(0.6931, new long[] {1, 2, 3, 4, 5, 6, 7, 8}, Map.of("ae_rec_loss", 0.25,
                    "lgc_fallback", 1.0), row(17, 123_456_789_012L)),
            new RunReport.StepReport(Double.NaN, new long[0], Map.of(), new long[TrafficMeter.ROW_LENGTH]),
            new RunReport.FinalReport("0badc0de", row(5, 42)),
            new RunReport.FinalReport("", row(0, 1)),
            new RunReport.Stop(),
            new RunReport.Done(0.8125, 3_750, 123_456_789L, List.of("0badc0de", "0badc0de"),
                    new long[][] {row(5, 42), row(0, 1), new long[TrafficMeter.ROW_LENGTH]}),
            new RunReport.Done(Double.NaN, 0, 0, List.of(), new long[0][]),
            new RunReport.Offer(new float[] {1.5f, -0f, Float.MIN_VALUE, 3e38f, -2f}, new long[] {0b10110L}),
            new RunReport.Offer(new float[0], new long[0]),
            new RunReport.Offer(new float[64], new long[] {-1L}),
            new RunReport.Offer(new float[65], new long[] {-1L, 1L}),
            new RunReport.Saved("rank-3.lgcc", 1_234_567_890_123L, 0xCAFEBABE, "0badc0de", 35_000_000L),
            new RunReport.Saved("server-0.lgcc", 49, 0, "", 0),
            new RunReport.Evaluated(2_417, 2_500),
            new RunReport.Evaluated(0, 0),
            new RunReport.Data(60_000, 1_875, 0x1_8badf00dL, 0x8eee5a03_1f2e3d4cL),
            new RunReport.Data(3_000_000_000L, Integer.MAX_VALUE, 0, 0),
            new RunReport.Agreed(1_875, 3_750),
            new RunReport.ClockProbe(123_456_789_012L),
            new RunReport.ClockProbe(-1),
            new RunReport.ClockEcho(123_456_789_012L, -5),
        };
    }

    @Test
    void shouldRoundTripEveryReport() {
        for (RunReport r : samples()) {
            var frame = FrameCodec.decode(r.encode(17, Stage.TOP_K));
            assertEquals(TrafficKind.REPORT, frame.kind());
            assertEquals(17, frame.step());
            assertEquals(Stage.TOP_K, frame.stage());
            assertEquals(r, RunReport.decode(frame));
        }
    }

    /**
     * Every sample's payload, byte for byte, as {@code src/test/resources/golden/run-reports.txt} has it (one line per
     * sample, in order). Rewrite it with {@link #main}, by hand, only when a report's layout changes on purpose.
     */
    @Test
    void everyReportShouldWriteItsGoldenBytes() throws java.io.IOException {
        List<String> golden = java.nio.file.Files.readAllLines(GOLDEN);
        assertEquals(String.join("\n", golden), String.join("\n", goldenLines()));
    }

    private static final java.nio.file.Path GOLDEN = java.nio.file.Path.of("src/test/resources/golden/run-reports.txt");

    private static List<String> goldenLines() {
        List<String> lines = new java.util.ArrayList<>();
        RunReport[] samples = samples();
        for (int i = 0; i < samples.length; i++) {
            lines.add(i + " " + samples[i].getClass().getSimpleName() + " " + payloadHex(samples[i]).replace(" ", ""));
        }
        return lines;
    }

    /** Rewrites the golden file; run by hand, from {@code lgc-core}, never by a test. */
    public static void main(String[] args) throws java.io.IOException {
        java.nio.file.Files.write(GOLDEN, goldenLines());
    }

    /** The clock reports' payloads, byte for byte: type, then little-endian longs. */
    @Test
    void clockReportsShouldHaveTheirGoldenBytes() {
        assertEquals("0a 15 cd 5b 07 00 00 00 00", payloadHex(new RunReport.ClockProbe(123_456_789)));
        assertEquals("0b 15 cd 5b 07 00 00 00 00 fe ff ff ff ff ff ff ff",
                payloadHex(new RunReport.ClockEcho(123_456_789, -2)));
    }

    private static String payloadHex(RunReport report) {
        ByteBuffer payload = FrameCodec.decode(report.encode(-1, Stage.SETUP)).payload().duplicate();
        StringBuilder hex = new StringBuilder();
        while (payload.hasRemaining()) {
            hex.append(hex.length() == 0 ? "" : " ").append(String.format("%02x", payload.get() & 0xFF));
        }
        return hex.toString();
    }

    @Test
    void shouldRejectMalformedReportsWithTheirReason() {
        var unknown = FrameCodec.decode(FrameCodec.encode(TrafficKind.REPORT, Stage.FULL, 3,
                ByteBuffer.wrap(new byte[] {12})));
        assertEquals("unknown report type: expected 1..11, found 12",
                assertThrows(FrameException.class, () -> RunReport.decode(unknown)).getMessage());
        var truncated = FrameCodec.decode(FrameCodec.encode(TrafficKind.REPORT, Stage.FULL, 3,
                ByteBuffer.wrap(new byte[] {1, 0, 0})));
        assertEquals("truncated report of step 3: 3 payload bytes",
                assertThrows(FrameException.class, () -> RunReport.decode(truncated)).getMessage());
        var trailing = FrameCodec.decode(FrameCodec.encode(TrafficKind.REPORT, Stage.FULL, 3,
                ByteBuffer.wrap(new byte[] {3, 0})));
        assertEquals("report of step 3 has 1 bytes after its end",
                assertThrows(FrameException.class, () -> RunReport.decode(trailing)).getMessage());
        // an offer of 3 values needs 12 + 8 bytes after its count; 12 are there
        ByteBuffer shortOffer = ByteBuffer.allocate(1 + 4 + 12).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        shortOffer.put((byte) 5).putInt(3).position(17).flip();
        var offer = FrameCodec.decode(FrameCodec.encode(TrafficKind.REPORT, Stage.FULL, 3, shortOffer));
        assertEquals("offer of 3 values does not fit the 12 bytes after its count",
                assertThrows(FrameException.class, () -> RunReport.decode(offer)).getMessage());
        ByteBuffer tooMany = ByteBuffer.allocate(1 + 16).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        tooMany.put((byte) 7).putLong(11).putLong(10).flip();
        var evaluated = FrameCodec.decode(FrameCodec.encode(TrafficKind.REPORT, Stage.FULL, 3, tooMany));
        assertEquals("evaluation report with 11 correct of 10 examples: expected 0 <= correct <= examples",
                assertThrows(FrameException.class, () -> RunReport.decode(evaluated)).getMessage());
        ByteBuffer noSteps = ByteBuffer.allocate(1 + 8).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        noSteps.put((byte) 9).putInt(0).putInt(5).flip();
        var agreed = FrameCodec.decode(FrameCodec.encode(TrafficKind.REPORT, Stage.SETUP, -1, noSteps));
        assertEquals("agreement of 0 steps per epoch and 5 steps: expected >= 1 and >= 0",
                assertThrows(FrameException.class, () -> RunReport.decode(agreed)).getMessage());
        ByteBuffer negative = ByteBuffer.allocate(1 + 4).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        negative.put((byte) 5).putInt(-1).flip();
        var huge = FrameCodec.decode(FrameCodec.encode(TrafficKind.REPORT, Stage.FULL, 3, negative));
        assertEquals("offer of 4294967295 values does not fit the 0 bytes after its count",
                assertThrows(FrameException.class, () -> RunReport.decode(huge)).getMessage());
        assertEquals("an offer of 65 values needs 2 bitmap words, found 1",
                assertThrows(IllegalArgumentException.class,
                        () -> new RunReport.Offer(new float[65], new long[1])).getMessage());
        var values = FrameCodec.decode(FloatFrames.encode(new float[1], 0, 1, TrafficKind.VALUES, Stage.FULL, 3));
        assertEquals("expected a REPORT frame, found VALUES",
                assertThrows(FrameException.class, () -> RunReport.decode(values)).getMessage());
    }

    @Test
    void controlPlaneShouldKeepEachSortInOrderWhateverComesFirst() {
        try (InProcessCluster cluster = new InProcessCluster(2)) {
            Transport sender = cluster.transport(1);
            ControlPlane plane = new ControlPlane(cluster.transport(0));
            sender.send(0, new RunReport.Stop().encode(4, Stage.FULL));
            sender.send(0, FloatFrames.encode(new float[] {1}, 0, 1, TrafficKind.VALUES, Stage.FULL, 5));
            sender.send(0, FloatFrames.encode(new float[] {2}, 0, 1, TrafficKind.VALUES, Stage.FULL, 5));
            sender.send(0, new RunReport.Done().encode(5, Stage.FULL));
            assertEquals(5, plane.receive(1).step());      // the report before it is set aside
            assertEquals(new ControlPlane.Received(4, Stage.FULL, new RunReport.Stop()), plane.receiveReport(1));
            assertEquals(new ControlPlane.Received(5, Stage.FULL, new RunReport.Done()), plane.receiveReport(1));
            assertEquals(2f, plane.receive(1).payload().getFloat(0));   // set aside while reading the report
        }
    }

    @Test
    void controlPlaneShouldNameAnUnexpectedReport() {
        try (InProcessCluster cluster = new InProcessCluster(2)) {
            cluster.transport(1).send(0, new RunReport.Stop().encode(4, Stage.FULL));
            ControlPlane plane = new ControlPlane(cluster.transport(0));
            FrameException e = assertThrows(FrameException.class,
                    () -> plane.receiveReport(1, RunReport.StepReport.class, 5, "rank 1"));
            assertEquals("rank 0 expected a StepReport of step 5 from rank 1, found a Stop of step 4", e.getMessage());
        }
    }

    @Test
    void reportsShouldBeCountedApartFromTrainingTraffic() {
        try (InProcessCluster cluster = new InProcessCluster(2)) {
            cluster.transport(1).send(0, new RunReport.Stop().encode(0, Stage.FULL));
            new ControlPlane(cluster.transport(0)).receiveReport(1);
            assertEquals(0, cluster.meter().snapshot().bytes(1, Direction.SENT));
            assertEquals(0, cluster.meter().snapshot().bytes(0, Direction.RECEIVED));
            assertEquals(1 + 28, cluster.controlMeter().snapshot().bytes(1, Direction.SENT));
            assertEquals(1 + 28, cluster.controlMeter().snapshot().bytes(0, Direction.RECEIVED));
        }
    }

    /**
     * A step is reported as soon as the service ends it, before any frame of the next step exists: rank 0 can
     * complete a checkpoint after step s when step s ends.
     */
    @Test
    void serviceReporterShouldReportEachStepWhenTheServiceEndsItAndStopOnRankZerosWord() {
        try (InProcessCluster cluster = new InProcessCluster(2)) {
            StepNotes notes = new StepNotes();
            ServiceReporter reporter = new ServiceReporter(cluster.unmetered(1), cluster.meter(), notes,
                    s -> Stage.FULL);
            Transport service = new io.lgc4j.core.comm.MeteredTransport(reporter, cluster.meter(),
                    cluster.controlMeter());
            ControlPlane rank0 = new ControlPlane(cluster.transport(0));
            // step 0: the service receives 4 floats, answers with 4 and notes something after its last frame
            rank0.send(1, FloatFrames.encode(new float[4], 0, 4, TrafficKind.VALUES, Stage.FULL, 0));
            service.receive(0);
            service.send(0, FloatFrames.encode(new float[4], 0, 4, TrafficKind.VALUES, Stage.FULL, 0));
            notes.put(0, "ae_drift", 0.5);
            reporter.endStep(0);
            assertEquals(0, rank0.receive(1).step());
            RunReport.StepReport step0 = rank0.receiveReport(1, RunReport.StepReport.class, 0, "the server");
            assertEquals(Map.of("ae_drift", 0.5), step0.notes());
            TrafficMeter.Snapshot counted = TrafficMeter.Snapshot.ofRows(new long[][] {
                new long[TrafficMeter.ROW_LENGTH], step0.traffic()});
            assertEquals(16 + 28, counted.bytes(1, Direction.RECEIVED));
            assertEquals(16 + 28, counted.bytes(1, Direction.SENT));
            IllegalStateException twice = assertThrows(IllegalStateException.class, () -> reporter.endStep(0));
            assertEquals("service endpoint 1 ended step 0, already reported (the next step to end is 1)",
                    twice.getMessage());
            // step 1: 2 floats in, nothing out
            rank0.send(1, FloatFrames.encode(new float[2], 0, 2, TrafficKind.VALUES, Stage.FULL, 1));
            service.receive(0);
            reporter.endStep(1);
            RunReport.StepReport step1 = rank0.receiveReport(1, RunReport.StepReport.class, 1, "the server");
            assertEquals(8 + 28, TrafficMeter.Snapshot.ofRows(new long[][] {new long[TrafficMeter.ROW_LENGTH],
                step1.traffic()}).bytes(1, Direction.RECEIVED));
            // rank 0 stops the service after step 1
            rank0.sendReport(1, 1, Stage.SETUP, new RunReport.Stop());
            TransportClosedException end = assertThrows(TransportClosedException.class, () -> service.receive(0));
            assertEquals("service endpoint 1 stopped by rank 0 after step 1", end.getMessage());
            assertTrue(reporter.stopped());
            RunReport.FinalReport fin = rank0.receiveReport(1, RunReport.FinalReport.class, 1, "the server");
            assertEquals("", fin.replicaChecksum());
            assertArrayEquals(cluster.meter().snapshot().row(1), fin.traffic());
            assertFalse(fin.traffic()[0] < 0);
        }
    }

    /**
     * A service whose notes of a step are written after it is served (the LGC-PS server's autoencoder trains on a
     * lane): each step is reported once the next one is served and its notes are awaited, with the traffic counted
     * when it ended; a step after which a checkpoint is saved is reported at once; rank 0's Stop reports the last.
     */
    @Test
    void serviceReporterWithLaggingNotesShouldReportEachStepAfterTheNextIsServedButACheckpointAtOnce() {
        try (InProcessCluster cluster = new InProcessCluster(2)) {
            StepNotes notes = new StepNotes();
            ServiceReporter reporter = new ServiceReporter(cluster.unmetered(1), cluster.meter(), notes,
                    s -> Stage.TOP_K);
            List<Integer> awaited = new java.util.ArrayList<>();
            reporter.lagNotes(awaited::add);
            reporter.checkpoints((step, row) -> step == 2 ? new RunReport.Saved("s2", 1, 2, "", 3) : null);
            Transport service = new io.lgc4j.core.comm.MeteredTransport(reporter, cluster.meter(),
                    cluster.controlMeter());
            ControlPlane rank0 = new ControlPlane(cluster.transport(0));
            for (int step = 0; step < 4; step++) {
                rank0.send(1, FloatFrames.encode(new float[4], 0, 4, TrafficKind.VALUES, Stage.TOP_K, step));
                service.receive(0);
                if (step == 0) {
                    service.send(0, FloatFrames.encode(new float[4], 0, 4, TrafficKind.VALUES, Stage.TOP_K, 0));
                }
                if (step == 2) {
                    notes.put(2, "ae_rec_loss", 0.5); // before the step ends: the checkpoint's report has it
                }
                reporter.endStep(step);
                notes.put(step, "ae_sim_loss", step); // after: the lane notes it while the next step is served
                assertEquals(step == 2 ? List.of(0, 1, 2) : java.util.stream.IntStream.range(0, step).boxed()
                        .toList(), awaited, "after step " + step);
            }
            assertEquals(0, rank0.receive(1).step());
            RunReport.StepReport step0 = rank0.receiveReport(1, RunReport.StepReport.class, 0, "the server");
            assertEquals(Map.of("ae_sim_loss", 0.0), step0.notes());
            TrafficMeter.Snapshot counted = TrafficMeter.Snapshot.ofRows(new long[][] {
                new long[TrafficMeter.ROW_LENGTH], step0.traffic()});
            assertEquals(16 + 28, counted.bytes(1, Direction.RECEIVED), "step 1's frame is step 1's");
            assertEquals(Map.of("ae_sim_loss", 1.0), rank0.receiveReport(1, RunReport.StepReport.class, 1,
                    "the server").notes());
            assertEquals("s2", rank0.receiveReport(1, RunReport.Saved.class, 2, "the server").file());
            assertEquals(Map.of("ae_rec_loss", 0.5), rank0.receiveReport(1, RunReport.StepReport.class, 2,
                    "the server").notes());
            rank0.sendReport(1, 3, Stage.SETUP, new RunReport.Stop());
            assertThrows(TransportClosedException.class, () -> service.receive(0));
            assertEquals(List.of(0, 1, 2, 3), awaited);
            assertEquals(Map.of("ae_sim_loss", 3.0), rank0.receiveReport(1, RunReport.StepReport.class, 3,
                    "the server").notes());
            rank0.receiveReport(1, RunReport.FinalReport.class, 3, "the server");
        }
    }

    @Test
    void serviceReporterShouldRefuseAStopBeforeTheServiceEndedEveryStep() {
        try (InProcessCluster cluster = new InProcessCluster(2)) {
            ServiceReporter reporter = new ServiceReporter(cluster.unmetered(1), cluster.meter(), new StepNotes(),
                    s -> Stage.FULL);
            ControlPlane rank0 = new ControlPlane(cluster.transport(0));
            rank0.send(1, FloatFrames.encode(new float[4], 0, 4, TrafficKind.VALUES, Stage.FULL, 0));
            reporter.receive(0);
            rank0.sendReport(1, 0, Stage.SETUP, new RunReport.Stop());
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> reporter.receive(0));
            assertEquals("service endpoint 1 was stopped by rank 0 after step 0 but has not ended step 0",
                    e.getMessage());
        }
    }
}

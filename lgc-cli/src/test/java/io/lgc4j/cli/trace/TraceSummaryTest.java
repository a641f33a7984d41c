package io.lgc4j.cli.trace;

import io.lgc4j.core.metrics.TracedTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link TraceSummary} on a hand-made trace of two workers and a server (times in µs): in step 0 rank 0 waits for the
 * server, which first waits for rank 1 (a chain) and then averages (server work); in step 1 rank 0 waits for rank 1,
 * still computing (a straggler).
 */
class TraceSummaryTest {

    private static String x(String name, String cat, int pid, double ts, double dur, String args) {
        return "{\"name\":\"" + name + "\",\"cat\":\"" + cat + "\",\"ph\":\"X\",\"pid\":" + pid + ",\"tid\":1,\"ts\":"
                + ts + ",\"dur\":" + dur + (args.isEmpty() ? "" : ",\"args\":{" + args + "}") + "}";
    }

    private static String send(int pid, int peer, double ts, long bytes, int step) {
        return x("send VALUES→" + peer, "send", pid, ts, 1000, "\"peer\":" + peer + ",\"seq\":" + step
                + ",\"bytes\":" + bytes + ",\"step\":" + step) + ",\n{\"name\":\"frame\",\"cat\":\"flow\",\"ph\":\"s\","
                + "\"pid\":" + pid + ",\"tid\":1,\"ts\":" + ts + ",\"id\":" + TracedTransport.flowId(pid, peer, step)
                + "}";
    }

    private static String recv(int pid, int peer, double ts, double dur, int seq) {
        return x("recv VALUES←" + peer, "recv", pid, ts, dur, "\"peer\":" + peer + ",\"seq\":" + seq);
    }

    static Path handMade(Path dir) throws IOException {
        List<String> e = new ArrayList<>(List.of(
                // step 0: both workers push to the server and wait for the mean
                x("step", "step", 0, 0, 100_000, "\"step\":0,\"stage\":\"FULL\""),
                x("compute", "phase", 0, 0, 10_000, ""),
                send(0, 2, 10_000, 1_000_000, 0),
                recv(0, 2, 11_000, 79_000, 0),
                x("apply", "phase", 0, 90_000, 10_000, ""),
                x("step", "step", 1, 0, 100_000, "\"step\":0,\"stage\":\"FULL\""),
                x("compute", "phase", 1, 0, 40_000, ""),
                send(1, 2, 40_000, 500_000, 0),
                recv(1, 2, 41_000, 49_000, 0),
                x("serve", "step", 2, 0, 95_000, "\"step\":0"),
                recv(2, 0, 0, 11_000, 0),
                recv(2, 1, 11_000, 30_000, 0),
                x("mean", "server", 2, 41_000, 39_000, "\"step\":0"),
                send(2, 0, 80_000, 1_000_000, 0),
                send(2, 1, 81_000, 1_000_000, 0),
                // step 1: rank 0 receives from rank 1 directly, which computes 30 ms longer
                x("step", "step", 0, 100_000, 60_000, "\"step\":1,\"stage\":\"TOP_K\""),
                x("compute", "phase", 0, 100_000, 10_000, ""),
                recv(0, 1, 110_000, 40_000, 0),
                x("step", "step", 1, 100_000, 60_000, "\"step\":1,\"stage\":\"TOP_K\""),
                x("compute", "phase", 1, 100_000, 40_000, ""),
                send(1, 0, 140_000, 1_000, 0),
                x("evaluate", "phase", 1, 141_000, 15_000, ""), // apart from the step's own CPU phases
                "{\"name\":\"cpu\",\"ph\":\"C\",\"pid\":0,\"tid\":0,\"ts\":0,\"args\":{\"throttled_ms\":5.0}}",
                "{\"name\":\"cpu\",\"ph\":\"C\",\"pid\":0,\"tid\":0,\"ts\":100000,\"args\":{\"throttled_ms\":12.0}}",
                "{\"name\":\"cpu\",\"ph\":\"C\",\"pid\":0,\"tid\":0,\"ts\":160000,\"args\":{\"throttled_ms\":12.5}}"));
        Path file = dir.resolve("trace.json");
        Files.writeString(file, "{\"traceEvents\":[\n" + String.join(",\n", e)
                + "\n],\"displayTimeUnit\":\"ms\",\"otherData\":{\"workers\":2}}\n");
        return file;
    }

    @Test
    void shouldSplitTheWaitIntoStragglerServerChainAndLatency(@TempDir Path dir) throws IOException {
        TraceSummary summary = TraceSummary.read(handMade(dir), 80.0);
        assertEquals(List.of(
                new TraceSummary.Row(0, 0, "FULL", 100, 0, 10, 10, 100, 79, 0, 39, 30, 10, 7, 1_000_000, 0),
                new TraceSummary.Row(0, 1, "FULL", 100, 0, 40, 0, 50, 49, 0, 40, 0, 9, Double.NaN, 500_000, 0),
                new TraceSummary.Row(1, 0, "TOP_K", 60, 0, 10, 0, 0, 40, 30, 0, 0, 10, 0.5, 0, 0),
                new TraceSummary.Row(1, 1, "TOP_K", 60, 0, 40, 0, 0.1, 0, 0, 0, 0, 0, Double.NaN, 1_000, 15)),
                summary.rows());
        Path csv = dir.resolve("timeline.csv");
        summary.writeCsv(csv);
        List<String> lines = Files.readAllLines(csv);
        assertEquals(TraceSummary.CSV_HEADER, lines.get(0));
        assertEquals("0,0,FULL,100.000,0.000,10.000,10.000,100.000,79.000,0.000,39.000,30.000,10.000,7.000,1000000,"
                + "0.000", lines.get(1));
        assertEquals("0,1,FULL,100.000,0.000,40.000,0.000,50.000,49.000,0.000,40.000,0.000,9.000,,500000,0.000",
                lines.get(2));
        assertEquals("1,1,TOP_K,60.000,0.000,40.000,0.000,0.100,0.000,0.000,0.000,0.000,0.000,,1000,15.000",
                lines.get(4));
        assertEquals(0, summary.misorderedFrames());
        String table = summary.stageTable();
        assertTrue(table.contains("FULL           1     100.0       0.0      25.0     5.0      0.0     75.0     64.0"
                + "        0.0     39.5     15.0      9.5        7.0"), table);
        assertTrue(table.contains("TOP_K          1      60.0       0.0      25.0     0.0      7.5 "), table);
    }

    /**
     * Backward overlap: rank 0's frames go on the exchange thread (tid 5) while its pass runs (0-60 ms); the wait is
     * the rank thread's communicate phase after the pass (30 ms), the bytes are the exchange thread's, and its two
     * receives split into the time rank 1 had not sent yet (straggler) and the time after (latency).
     */
    @Test
    void aStepExchangedBesideTheBackwardPassShouldWaitOnlyWhatThePassDidNotHide(@TempDir Path dir)
            throws IOException {
        java.util.function.UnaryOperator<String> onExchangeThread = span -> span.replace("\"tid\":1,", "\"tid\":5,");
        List<String> e = List.of(
                x("step", "step", 0, 0, 100_000, "\"step\":0,\"stage\":\"FULL\""),
                x("compute", "phase", 0, 0, 60_000, ""),
                x("communicate", "phase", 0, 60_000, 30_000, ""),
                x("apply", "phase", 0, 90_000, 10_000, ""),
                onExchangeThread.apply(x("communicate", "phase", 0, 10_000, 80_000, "")),
                onExchangeThread.apply(send(0, 1, 10_000, 400_000, 0)),
                onExchangeThread.apply(recv(0, 1, 11_000, 39_000, 0)),
                onExchangeThread.apply(send(0, 1, 50_000, 100_000, 1)),
                onExchangeThread.apply(recv(0, 1, 51_000, 34_000, 1)),
                x("step", "step", 1, 0, 100_000, "\"step\":0,\"stage\":\"FULL\""),
                x("compute", "phase", 1, 0, 44_000, ""),
                onExchangeThread.apply(send(1, 0, 45_000, 400_000, 0)),
                onExchangeThread.apply(send(1, 0, 80_000, 100_000, 1)));
        Path file = dir.resolve("trace.json");
        Files.writeString(file, "{\"traceEvents\":[\n" + String.join(",\n", e)
                + "\n],\"displayTimeUnit\":\"ms\",\"otherData\":{\"workers\":2}}\n");
        TraceSummary.Row rank0 = TraceSummary.read(file, 80.0).rows().get(0);
        assertEquals(new TraceSummary.Row(0, 0, "FULL", 100, 0, 60, 10, 50, 30, 63, 0, 0, 10, Double.NaN, 500_000, 0),
                rank0);
    }

    @Test
    void shouldFlagAFrameReceivedBeforeItWasSentBeyondTheClocksBounds(@TempDir Path dir) throws IOException {
        // rank 1's clock put 35 ms late: its send to rank 0 in step 1 now starts after rank 0's receive ended
        Path file = handMade(dir);
        String text = Files.readString(file).replace("\"ts\":140000.0", "\"ts\":185000.0");
        Files.writeString(file, text.replace("\"otherData\":{", "\"otherData\":{\"boundsMicros\":{\"e1\":2000.0},"));
        TraceSummary summary = TraceSummary.read(file, Double.NaN);
        assertEquals(1, summary.misorderedFrames());
        assertTrue(summary.stageTable().endsWith("warning: 1 frame was received before sent by more than the clocks'"
                + " bounds: their waits are suspect\n"), summary.stageTable());
    }

    @Test
    void shouldNameAMissingFileAndAFileThatIsNoMergedTrace(@TempDir Path dir) throws IOException {
        Path missing = dir.resolve("nope.json");
        assertEquals(missing + ": no such file; expected a merged trace (lgc run --trace FILE, or lgc trace merge"
                + " DIR... -o FILE)", assertThrows(NoSuchFileException.class,
                () -> TraceSummary.read(missing, Double.NaN)).getMessage());
        Path endpointFile = Files.writeString(dir.resolve("e0.json"), "[{\"name\":\"a\",\"ph\":\"i\"}]\n");
        assertEquals(endpointFile + " is not a merged trace: it has no traceEvents array; expected Chrome's JSON"
                + " Object Format as lgc run --trace or lgc trace merge writes it (an endpoint's own e<endpoint>.json"
                + " is merged first)", assertThrows(IOException.class,
                () -> TraceSummary.read(endpointFile, Double.NaN)).getMessage());
        Path garbage = Files.writeString(dir.resolve("g.json"), "{\"traceEvents\": [");
        assertTrue(assertThrows(IOException.class, () -> TraceSummary.read(garbage, Double.NaN)).getMessage()
                .startsWith(garbage + " is not JSON ("));
    }
}

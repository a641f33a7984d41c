package io.lgc4j.core.metrics;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The endpoint files, the step range of {@code --trace-steps} and the merge, on hand-made events. */
class TraceFilesTest {

    @Test
    void aLaunchedProgramShouldReadItsTraceFromTheEnvironment() {
        assertEquals(null, TraceSettings.fromEnvironment(Map.of()));
        TraceSettings t = TraceSettings.fromEnvironment(Map.of(TraceSettings.ENV_FILE, "/runs/t.json",
                TraceSettings.ENV_STEPS, "5..9"));
        assertEquals(new TraceSettings(Path.of("/runs/t.json"), Path.of("/runs/trace"), StepRange.parse("5..9", "")),
                t);
        assertEquals(StepRange.ALL, TraceSettings.fromEnvironment(Map.of(TraceSettings.ENV_FILE, "/runs/t.json"))
                .steps());
        assertEquals("LGC_TRACE_STEPS '9..5': the last step 5 is before the first 9; expected first..last with 0 <="
                + " first <= last (e.g. 0..99), first.. or one step", assertThrows(IllegalArgumentException.class,
                () -> TraceSettings.fromEnvironment(Map.of(TraceSettings.ENV_FILE, "t.json", TraceSettings.ENV_STEPS,
                        "9..5"))).getMessage());
    }

    @Test
    void shouldRejectAStepRangeThatEndsBeforeItStartsNamingBoth() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> StepRange.parse("5..2", "--trace-steps"));
        assertEquals("--trace-steps '5..2': the last step 2 is before the first 5; expected first..last with 0 <="
                + " first <= last (e.g. 0..99), first.. or one step", e.getMessage());
        IllegalArgumentException words = assertThrows(IllegalArgumentException.class,
                () -> StepRange.parse("a..b", "training.trace.steps"));
        assertEquals("training.trace.steps 'a..b' is not a step range; expected first..last with 0 <= first <= last"
                + " (e.g. 0..99), first.. or one step", words.getMessage());
    }

    @Test
    void shouldReadOpenAndSingleStepRanges() {
        assertEquals(new StepRange(3, Integer.MAX_VALUE), StepRange.parse("3..", "x"));
        assertEquals(new StepRange(7, 7), StepRange.parse("7", "x"));
        assertEquals("10..19", StepRange.parse(" 10..19 ", "x").toString());
        assertTrue(StepRange.parse("10..19", "x").contains(19));
        assertFalse(StepRange.parse("10..19", "x").contains(20));
    }

    @Test
    void shouldWriteOneEventPerLineAndMergeWithTheClockOffsets(@TempDir Path dir) throws IOException {
        TraceClock clock = new TraceClock(1_000_000, 0);
        try (TraceWriter e0 = TraceWriter.open(dir.resolve("e0.json"), 0, clock, StepRange.ALL);
             TraceWriter e1 = TraceWriter.open(dir.resolve("e1.json"), 1, clock, new StepRange(0, 0))) {
            e0.processName("rank 0");
            e0.span(Timeline.RANK_THREAD, "send \"VALUES\"→1", "send", 1_000_000, 1_002_500, Map.of("bytes", 8));
            e0.flow(Timeline.RANK_THREAD, 42, true, 1_000_000);
            e1.flow(Timeline.RANK_THREAD, 42, false, 1_003_000);
            e1.counter("cpu", 1_004_000, Map.of("throttled_ms", 1.5));
            assertTrue(e1.covers(0));
            assertFalse(e1.covers(1));
        }
        List<String> lines = Files.readAllLines(dir.resolve("e0.json"));
        assertEquals("[{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"tid\":0,\"args\":{\"name\":\"rank 0\"}},",
                lines.get(0));
        assertEquals("{\"name\":\"send \\\"VALUES\\\"→1\",\"cat\":\"send\",\"ph\":\"X\",\"pid\":0,\"tid\":1,"
                + "\"ts\":0.000,\"dur\":2.500,\"args\":{\"bytes\":8}},", lines.get(2));
        assertEquals("]", lines.get(lines.size() - 1));

        // endpoint 1's clock is 100 µs behind rank 0's
        TraceMerge.writeOffsets(dir, List.of(new ClockOffset(1, 100.0, 12.5, 0)));
        Path merged = dir.resolve("merged.json");
        long events = TraceMerge.merge(List.of(dir), merged, Map.of("run", "test"));
        assertEquals(6, events);
        String text = Files.readString(merged, StandardCharsets.UTF_8);
        assertTrue(text.startsWith("{\"traceEvents\":[\n"), text);
        assertTrue(text.contains("{\"name\":\"frame\",\"cat\":\"flow\",\"ph\":\"f\",\"pid\":1,\"tid\":1,"
                + "\"ts\":103.000,\"id\":42,\"bp\":\"e\"}"), text);
        assertTrue(text.endsWith("],\"displayTimeUnit\":\"ms\",\"otherData\":{\"boundsMicros\":{\"e1\":12.5},"
                + "\"offsetsMicros\":{\"e1\":100.0},\"run\":\"test\"}}\n"), text);
    }

    @Test
    void shouldReadTheFileOfACrashedRunWithoutItsClosingBracket(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("e3.json"), "[{\"name\":\"a\",\"ph\":\"i\",\"pid\":3,\"tid\":1,\"ts\":1.000},\n"
                + "{\"name\":\"b\",\"ph\":\"i\",\"pid\":3,\"tid\":1,\"ts\":2.000}\n");
        assertEquals(2, TraceMerge.merge(List.of(dir), dir.resolve("m.json"), Map.of()));
    }

    @Test
    void shouldNameTheDirectoryWithoutEndpointTraces(@TempDir Path dir) {
        Path missing = dir.resolve("nope");
        NoSuchFileException e = assertThrows(NoSuchFileException.class,
                () -> TraceMerge.merge(List.of(missing), dir.resolve("m.json"), Map.of()));
        assertEquals(missing + ": not a directory of endpoint traces (e<endpoint>.json)", e.getMessage());
        NoSuchFileException empty = assertThrows(NoSuchFileException.class,
                () -> TraceMerge.merge(List.of(dir), dir.resolve("m.json"), Map.of()));
        assertEquals("[" + dir + "]: no endpoint trace (e<endpoint>.json) there", empty.getMessage());
    }
}

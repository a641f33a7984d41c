package io.lgc4j.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;

import static io.lgc4j.bench.TransportBenchmark.KB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The transport benchmark at a tiny size: every part gives its rows, each with positive figures, in the tables and
 * the CSV. Timings are never asserted.
 */
class TransportBenchmarkTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(180)
    void shouldMeasureEveryPartAtTinySizesWithPositiveFigures() throws Exception {
        TransportBenchmark.Settings settings = new TransportBenchmark.Settings(List.of(KB, 16 * KB), List.of(2),
                TransportBenchmark.TlsMode.OFF, EnumSet.allOf(TransportBenchmark.Part.class), 0.02, 0.05, 3, 100_000);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<TransportBenchmark.Row> rows = TransportBenchmark.run(new PrintStream(bytes, true,
                StandardCharsets.UTF_8), settings);
        String out = bytes.toString(StandardCharsets.UTF_8);

        // raw, stream and ping-pong at both sizes; ring and PS in process and over lgc-net at both sizes
        assertEquals(14, rows.size(), out);
        for (TransportBenchmark.Part part : TransportBenchmark.Part.values()) {
            long expected = part == TransportBenchmark.Part.RING || part == TransportBenchmark.Part.PS ? 4 : 2;
            assertEquals(expected, rows.stream().filter(r -> r.part() == part).count(), part + "\n" + out);
        }
        assertTrue(rows.stream().anyMatch(r -> r.cpuSecondsPerGb() > 0), "no row counted any CPU time\n" + out);
        for (TransportBenchmark.Row r : rows) {
            String at = r + "\n" + out;
            assertTrue(r.steps() >= 3, at);
            assertTrue(r.mbPerSecond() > 0 && r.meanMillis() > 0 && r.p99Millis() > 0 && r.p50Millis() >= 0, at);
            // process CPU time counts in the kernel's ticks (10 ms): a tiny size's window may see none of them
            assertTrue(r.cpuSecondsPerGb() >= 0, at);
            assertTrue(r.allocPerStepRank() > 0 && r.allocPercent() > 0, at);
            assertEquals(r.part() == TransportBenchmark.Part.RING, !Double.isNaN(r.busMbPerSecond()), at);
            switch (r.transport()) {
                case "netty" -> assertTrue(Double.isNaN(r.sendCopies()) && Double.isNaN(r.poolMb()), at);
                case "in-process" -> {
                    // every in-process step allocates its frames on the heap: a copy of the payload
                    assertTrue(r.allocPercent() >= 50, at);
                    assertEquals(1.0, r.sendCopies(), at);
                    assertEquals(1.0, r.receiveCopies(), at);
                }
                default -> {
                    // pooled frames: the encode is the only copy on the way out, the decode at most one more in
                    assertEquals(1.0, r.sendCopies(), at);
                    assertTrue(r.receiveCopies() >= 1 && r.receiveCopies() <= 2, at);
                    assertTrue(r.poolMb() > 0, at);
                }
            }
        }
        assertTrue(out.contains("| raw stream | netty | "), out);
        assertTrue(out.contains("| ring allreduce | lgc-net | "), out);
        assertTrue(out.contains("| PS step | in-process | queues | 2 | 16 KB | "), out);
        assertTrue(out.lines().anyMatch(l -> l.startsWith("| ring allreduce | 2 | 16 KB | ")), out);
        assertTrue(out.contains("Target ring allreduce of 16 KB at >= 70% of the raw stream, K=2"), out);

        Path csv = dir.resolve("transport.csv");
        TransportBenchmark.writeCsv(csv, rows);
        List<String> lines = Files.readAllLines(csv);
        assertEquals(15, lines.size());
        assertTrue(lines.get(0).startsWith("part,transport,io,workers,size_bytes,steps,"), lines.get(0));
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("ping-pong,lgc-net,")), lines.toString());
    }

    @Test
    void shouldRejectSettingsNamingTheOption() {
        assertEquals("sizes must be a non-empty list of positive multiples of 4 bytes (floats), got [1024, 6]",
                assertThrows(IllegalArgumentException.class, () -> new TransportBenchmark.Settings(List.of(KB, 6),
                        List.of(2), TransportBenchmark.TlsMode.OFF, EnumSet.allOf(TransportBenchmark.Part.class), 0,
                        1, 1, 10)).getMessage());
        assertEquals("workers must be a non-empty list of K in 2..64, got [1]",
                assertThrows(IllegalArgumentException.class, () -> new TransportBenchmark.Settings(List.of(KB),
                        List.of(1), TransportBenchmark.TlsMode.OFF, EnumSet.allOf(TransportBenchmark.Part.class), 0,
                        1, 1, 10)).getMessage());
        assertEquals("tls: expected on, off or both, found 'maybe'",
                assertThrows(IllegalArgumentException.class, () -> TransportBenchmark.TlsMode.parse("maybe"))
                        .getMessage());
    }
}

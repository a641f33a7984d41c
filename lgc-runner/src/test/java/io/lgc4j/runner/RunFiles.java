package io.lgc4j.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lgc4j.core.checkpoint.CheckpointDirectory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * Result directories compared the way every "same run, another runtime" test compares them (in-process against
 * launched processes, against Spark tasks): every non-timing column of metrics.csv, and summary.json's results,
 * bytes and replica checksums.
 */
public final class RunFiles {
    private RunFiles() {
    }

    /** The one run directory in {@code dir}. */
    public static Path only(Path dir) throws IOException {
        try (var files = Files.list(dir)) {
            Iterator<Path> it = files.iterator();
            Path first = it.next();
            assertFalse(it.hasNext(), "more than one run in " + dir);
            return first;
        }
    }

    /** Asserts that {@code b} computed what {@code a} computed: metrics, results, bytes (by stage too), checksums. */
    public static void assertSameRun(Path a, Path b) throws IOException {
        assertEquals(nonTimingColumns(a.resolve("metrics.csv")), nonTimingColumns(b.resolve("metrics.csv")));
        JsonNode sa = new ObjectMapper().readTree(a.resolve("summary.json").toFile());
        JsonNode sb = new ObjectMapper().readTree(b.resolve("summary.json").toFile());
        for (String key : List.of("finalTestAccuracy", "finalLoss", "bytesSentPerEndpoint", "bytesReceivedPerEndpoint",
                "replicaChecksums", "method", "steps")) {
            assertEquals(sa.get(key), sb.get(key), key);
        }
        assertEquals(withoutTimes(sa.get("bytesByStage")), withoutTimes(sb.get("bytesByStage")));
        assertSameComputePath(a, b);
    }

    /**
     * Both runs computed on the same path, and on oneDNN where they asked for it: every runtime builds its replicas
     * with their helpers (provenance.json's {@code compute}, {@code ComputeReport#toMap}).
     */
    public static void assertSameComputePath(Path a, Path b) throws IOException {
        JsonNode ca = new ObjectMapper().readTree(a.resolve("provenance.json").toFile()).get("compute");
        JsonNode cb = new ObjectMapper().readTree(b.resolve("provenance.json").toFile()).get("compute");
        assertEquals(ca, cb, "provenance.json compute");
        assertTrue(ca != null && ca.get("layers").size() > 0, "provenance.json names each layer's helper: " + ca);
        if (ca.get("oneDnn").asBoolean()) {
            assertTrue(ca.get("oneDnnAvailable").asBoolean(), "the default backend runs oneDNN: " + ca);
            assertEquals(0, ca.get("missingHelpers").size(), "layers without their oneDNN helper: " + ca);
            assertTrue(ca.get("layers").toString().contains("MKLDNNConvHelper"), "convolutions on oneDNN: " + ca);
        }
    }

    /** Every row of a metrics.csv without its {@code *_ms} columns. */
    public static List<String> nonTimingColumns(Path csv) throws IOException {
        List<String> lines = Files.readAllLines(csv);
        String[] header = lines.get(0).split(",", -1);
        List<String> out = new ArrayList<>();
        for (String line : lines) {
            String[] v = line.split(",", -1);
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < header.length; i++) {
                if (!header[i].endsWith("_ms")) {
                    b.append(v[i]).append(',');
                }
            }
            out.add(b.toString());
        }
        return out;
    }

    /** summary.json's bytesByStage without the phase times. */
    public static JsonNode withoutTimes(JsonNode byStage) {
        JsonNode copy = byStage.deepCopy();
        for (Iterator<Map.Entry<String, JsonNode>> it = copy.fields(); it.hasNext(); ) {
            ((ObjectNode) it.next().getValue()).remove("meanPhaseTimesPerStep");
        }
        return copy;
    }

    /**
     * A copy of the finished run {@code full} in {@code into} as a run killed after step {@code killedAfter} leaves
     * it: no summary.json, the checkpoints after it gone, metrics.csv cut after its row.
     */
    public static Path simulateKill(Path full, Path into, int killedAfter) throws IOException {
        copy(full, into);
        Files.delete(into.resolve("summary.json"));
        CheckpointDirectory dir = CheckpointDirectory.in(into);
        for (long step : dir.steps()) {
            if (step > killedAfter + 1) {
                deleteTree(dir.stepDirectory(step));
            }
        }
        Path csv = into.resolve("metrics.csv");
        List<String> lines = Files.readAllLines(csv);
        Files.write(csv, lines.subList(0, killedAfter + 2));
        return into;
    }

    /** Copies the tree {@code from} into {@code to}. */
    public static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path p : files.sorted().toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }

    /** Deletes the tree {@code dir}. */
    public static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}

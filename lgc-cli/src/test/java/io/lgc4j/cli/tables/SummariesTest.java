package io.lgc4j.cli.tables;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.metrics.Phase;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.runner.RunSummary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every run summary committed under {@code docs/results} (of every version the runner wrote) reads into a
 * {@link RunSummary} through {@link Summaries}, gives the tables their figures, and writes back with every key and
 * value it had.
 */
class SummariesTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The committed run summaries; the mutual-information analyses write a summary of their own and are left out. */
    private static List<Path> committedRunSummaries() throws IOException {
        try (Stream<Path> files = Files.walk(Path.of("..", "docs", "results"))) {
            // a PyTorch peer's summary (under peers/, written by ../shared/peers/ddp_peer.py) is not LGC4J's
            return files.filter(f -> f.getFileName().toString().equals("summary.json"))
                    .filter(f -> !f.getParent().getParent().getFileName().toString().equals("peers"))
                    .filter(f -> !isAnalysis(f)).sorted().toList();
        }
    }

    private static boolean isAnalysis(Path file) {
        try {
            return JSON.readTree(file.toFile()).has("sampledSteps");
        } catch (IOException e) {
            throw new IllegalStateException(file.toString(), e);
        }
    }

    @Test
    void everyCommittedSummaryShouldReadAndGiveTheTablesTheirFigures() throws IOException {
        List<Path> files = committedRunSummaries();
        assertTrue(files.size() >= 50, "found " + files.size());
        for (Path file : files) {
            RunSummary s = Summaries.read(file.getParent());
            assertFalse(s.run().isEmpty(), file.toString());
            assertTrue(s.workers() > 0, file.toString());
            assertTrue(s.finalTestAccuracy() > 0 && s.finalTestAccuracy() <= 1, file.toString());
            assertTrue(s.sentTotal(0, s.workers()) > 0, file.toString());
            JsonNode raw = JSON.readTree(file.toFile());
            if (!raw.has("bytesByStage")) {
                assertTrue(s.bytesByStage().isEmpty(), file.toString());
                continue;
            }
            Stage steady = s.steadyStage();
            assertEquals(lastKey(raw.get("bytesByStage")), steady.name(), file.toString());
            for (Stage stage : s.bytesByStage().keySet()) {
                JsonNode st = raw.get("bytesByStage").get(stage.name());
                assertEquals(st.get("steps").asLong(), Summaries.steps(s, stage), file.toString());
                RunSummary.SentBytes every = Summaries.sent(s, stage, Summaries.EVERY_WORKER);
                if (st.has("workerSentPerStep")) {
                    JsonNode w = st.get("workerSentPerStep");
                    assertEquals(w.get("total").asDouble() - w.path("MODEL_WEIGHTS").asDouble(0)
                            - w.path("AE_WEIGHTS").asDouble(0), every.information(), 1e-9, file + " " + stage);
                    assertEquals(w.path("INDICES").asDouble(0), every.bytes(TrafficKind.INDICES), file.toString());
                } else {
                    assertTrue(every.isEmpty() && Double.isNaN(every.information()), file.toString());
                }
                if (st.has("meanPhaseTimesPerStep")) {
                    JsonNode t = st.get("meanPhaseTimesPerStep");
                    assertEquals(t.get("compute_ms").asDouble() / 1000, Summaries.seconds(s, stage, Phase.COMPUTE),
                            file.toString());
                    assertEquals(t.get("wall_ms").asDouble() / 1000, Summaries.wallSeconds(s, stage),
                            file.toString());
                }
            }
        }
    }

    @Test
    void writingAReadSummaryShouldKeepEveryKeyAndValue(@TempDir Path dir) throws IOException {
        int identical = 0;
        for (Path file : committedRunSummaries()) {
            Path copy = dir.resolve("summary.json");
            Summaries.read(file.getParent()).write(copy);
            JsonNode original = JSON.readTree(file.toFile());
            JsonNode written = JSON.readTree(copy.toFile());
            assertContains(original, written, file.toString());
            if (original.equals(written)) {
                identical++;
            }
        }
        assertTrue(identical >= 30, "summaries of the current version write back key for key: " + identical);
    }

    @Test
    void anUnknownFigureOfAStageShouldBeNamed(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("summary.json"), """
                {"run": "r", "topology": "ps", "workers": 1, "steps": 1, "finalTestAccuracy": 0.5, "finalLoss": 1.0,
                 "bytesByStage": {"FULL": {"steps": 1, "worker0SentWHATEVERPerStep": 3.0}}}
                """);
        IOException e = assertThrows(IOException.class, () -> Summaries.read(dir));
        assertTrue(e.getMessage().contains("worker0SentWHATEVERPerStep"), e.getMessage());
    }

    private static String lastKey(JsonNode object) {
        String last = null;
        for (Iterator<String> it = object.fieldNames(); it.hasNext(); ) {
            last = it.next();
        }
        return last;
    }

    /** Every key of {@code expected}, recursively, is in {@code actual} with the same value. */
    private static void assertContains(JsonNode expected, JsonNode actual, String where) {
        if (!expected.isObject()) {
            assertEquals(expected, actual, where);
            return;
        }
        assertTrue(actual != null && actual.isObject(), where);
        for (Iterator<Map.Entry<String, JsonNode>> it = expected.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            assertContains(e.getValue(), actual.get(e.getKey()), where + "/" + e.getKey());
        }
    }
}

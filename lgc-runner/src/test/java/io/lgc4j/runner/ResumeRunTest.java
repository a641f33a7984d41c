package io.lgc4j.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lgc4j.core.checkpoint.CheckpointDirectory;
import io.lgc4j.runner.config.ConfigLoader;
import io.lgc4j.runner.config.ExperimentConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code lgc run --resume}: a run interrupted after a checkpoint and resumed ends with the metrics.csv (non-timing
 * columns), summary.json (but for timings) and replica checksums of the run never interrupted; bad resumes are
 * refused with their reason and change nothing.
 */
class ResumeRunTest {

    private static ExperimentConfig config(String method, String topology, Path out, int every) {
        String compressor = switch (method) {
            case "dense" -> "";
            case "lgc" -> "compressor: {type: lgc, ratio: 0.01}\nstages: {fullIterations: 6, aeTrainingIterations: 8}";
            default -> "compressor: {type: " + method + ", ratio: 0.01}\nstages: {fullIterations: 6}";
        };
        // LeNet-5's layers at a fraction of its widths: what is tested is the checkpoint, not the model
        String updater = method.equals("dgc") ? "model: {name: tiny-cnn, updater: {type: sgd, learningRate: 0.05}}\n"
                : "model: {name: tiny-cnn}\n";
        String yaml = """
                run: {name: resume, seed: 7, outputDir: %s}
                data: {trainLimit: 3200, testLimit: 500}
                %straining: {workers: 3, batchSizePerWorker: 16, epochs: 1, maxSteps: 24, evalEverySteps: 5, \
                checkpointEverySteps: %d}
                topology: {type: %s}
                %s
                """.formatted(out, updater, every, topology, compressor);
        return ConfigLoader.parse(yaml, "resume.yaml");
    }

    /**
     * Interrupted in FULL (after step 5: the checkpoint of step 4 is the latest), in TOP_K, and, for LGC-PS and
     * LGC-RAR, in COMPRESSED (6 FULL, 8 TOP_K steps; resumed from step 16): the interrupted run's directory keeps the
     * checkpoints up to the kill and a metrics.csv with rows past the checkpoint, as a killed process leaves them.
     */
    @ParameterizedTest(name = "{0} on {1}, killed after step {2}")
    @CsvSource({"dense, ps, 5", "dgc, ps, 13", "topk, ring, 9", "lgc, ps, 17", "lgc, ring, 17"})
    void aResumedRunShouldEndExactlyWhereTheUninterruptedRunEnds(String method, String topology, int killedAfter,
                                                                  @TempDir Path out) throws IOException {
        assertResumesExactly(method, topology, killedAfter, out);
    }

    static void assertResumesExactly(String method, String topology, int killedAfter, Path out) throws IOException {
        ExperimentConfig cfg = config(method, topology, out.resolve("full"), 4);
        Path full = new ExperimentRunner().run(cfg, "resume.yaml", List.of()).directory();
        Path killed = RunFiles.simulateKill(full, out.resolve("killed"), killedAfter);
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        ExperimentRunner.RunOutcome resumed = new ExperimentRunner().resume(killed, null, "resume.yaml", List.of(),
                new PrintStream(log, true, StandardCharsets.UTF_8));
        int from = (killedAfter + 1) / 4 * 4;
        assertTrue(log.toString(StandardCharsets.UTF_8).contains("from step-" + String.format("%06d", from)),
                log.toString(StandardCharsets.UTF_8));
        assertEquals(nonTiming(full.resolve("metrics.csv")), nonTiming(killed.resolve("metrics.csv")), "metrics.csv");
        assertEquals(withoutTimings(full), withoutTimings(killed), "summary.json");
        assertEquals(24, resumed.result().steps().size());
    }

    /**
     * A copy of {@code full} as a process killed during step {@code killedAfter + 1} leaves it: no summary, the
     * checkpoints written up to then, and metrics.csv rows up to step {@code killedAfter}.
     */
    /**
     * A resume at another K through the runner ({@code lgc run --resume DIR --workers K'}): a K = 3 run killed after
     * step 9 goes on from the checkpoint after step 8 at K' = 4 on a ring (more workers than the checkpoint has parts,
     * a step's endpoints more than the history's) and at K' = 2 on a parameter server. metrics.csv keeps a byte column
     * per worker the run ever had, empty where a step had not that worker, and its rows before the resume as they
     * were; summary.json counts the new K, every step and each endpoint's bytes; without {@code allowResize} the resume
     * is refused, naming both K and how to allow it.
     */
    @ParameterizedTest(name = "{0} on {1} at K = {2}")
    @CsvSource({"dense, ring, 4", "topk, ring, 4", "dgc, ps, 2"})
    void aRunShouldResumeAtAnotherNumberOfWorkers(String method, String topology, int workers, @TempDir Path out)
            throws IOException {
        ExperimentConfig cfg = config(method, topology, out.resolve("full"), 4);
        Path full = new ExperimentRunner().run(cfg, "resume.yaml", List.of()).directory();
        Path killed = RunFiles.simulateKill(full, out.resolve("killed"), 9);
        ExperimentConfig resized = ConfigLoader.load(killed.resolve("config.yaml"));
        ExperimentConfig atK = resized.withTraining(resized.training().withWorkers(workers));
        PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        RunInputException refused = assertThrows(RunInputException.class, () -> new ExperimentRunner()
                .resume(killed, atK, "resume.yaml", List.of(), quiet));
        assertTrue(refused.getMessage().contains("the checkpoint was written by K = 3 workers, this run has K = "
                + workers) && refused.getMessage().contains("lgc run --resume DIR --workers " + workers),
                refused.getMessage());
        ExperimentRunner.RunOutcome outcome = new ExperimentRunner().allowResize(true).resume(killed, atK,
                "resume.yaml", List.of(), quiet);
        assertEquals(workers, outcome.result().steps().get(outcome.result().steps().size() - 1).workers());
        List<String> before = nonTiming(full.resolve("metrics.csv"));
        List<String> after = nonTiming(killed.resolve("metrics.csv"));
        assertEquals(25, after.size(), "a header and 24 steps (maxSteps)");
        String header = Files.readAllLines(killed.resolve("metrics.csv")).get(0);
        int columns = Math.max(3, workers);
        for (int w = 0; w < columns; w++) {
            assertTrue(header.contains(",bytes_sent_w" + w + ",bytes_received_w" + w + ","), header);
        }
        assertFalse(header.contains("bytes_sent_w" + columns), header);
        if (workers < 3) {
            assertEquals(before.subList(0, 9), after.subList(0, 9), "the rows before the resume as they were");
            String[] row = Files.readAllLines(killed.resolve("metrics.csv")).get(20).split(",", -1);
            int w2 = List.of(header.split(",")).indexOf("bytes_sent_w2");
            assertEquals("", row[w2], "no third worker after the resume");
        } else {
            String[] row = Files.readAllLines(killed.resolve("metrics.csv")).get(3).split(",", -1);
            int w3 = List.of(header.split(",")).indexOf("bytes_sent_w3");
            assertEquals("", row[w3], "no fourth worker before the resume");
        }
        JsonNode summary = new ObjectMapper().readTree(killed.resolve("summary.json").toFile());
        assertEquals(workers, summary.get("workers").asInt());
        assertEquals("[{\"step\":0,\"workers\":3},{\"step\":8,\"workers\":" + workers + "}]",
                summary.get("workersFromStep").toString(), "each stretch of the run at one K");
        assertNull(new ObjectMapper().readTree(full.resolve("summary.json").toFile()).get("workersFromStep"),
                "a run that kept its K says nothing more");
        assertEquals(24, summary.get("steps").asInt());
        assertEquals(workers, summary.get("replicaChecksums").size());
        assertEquals(workers + (topology.equals("ps") ? 1 : 0), summary.get("bytesSentPerEndpoint").size());
    }

    /**
     * A resume at another number of parameter-server shards through the runner ({@code lgc run --resume DIR --servers
     * S'}): a DGC run on 2 shards killed after step 9 goes on at S' = 1 and 3 from the checkpoint after step 8 and ends
     * where the uninterrupted run ends (a sharded server computes the unsharded one's bits): every step's loss and
     * accuracy, the replicas. metrics.csv keeps byte columns for every shard the run ever had, empty where a step had
     * not that shard; without {@code allowResize} the resume is refused, naming S.
     */
    @ParameterizedTest(name = "S = 2 → {0}")
    @CsvSource({"1", "3"})
    void aRunShouldResumeAtAnotherNumberOfShards(int servers, @TempDir Path out) throws IOException {
        ExperimentConfig cfg = config("dgc", "ps, servers: 2", out.resolve("full"), 4);
        Path full = new ExperimentRunner().run(cfg, "resume.yaml", List.of()).directory();
        Path killed = RunFiles.simulateKill(full, out.resolve("killed"), 9);
        ExperimentConfig resized = ConfigLoader.load(killed.resolve("config.yaml"));
        ExperimentConfig atS = resized.withTopology(resized.topology().with("servers", servers));
        PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        RunInputException refused = assertThrows(RunInputException.class, () -> new ExperimentRunner()
                .resume(killed, atS, "resume.yaml", List.of(), quiet));
        assertTrue(refused.getMessage().contains("the checkpoint was written with S = 2 services, this run has S = "
                + servers), refused.getMessage());
        new ExperimentRunner().allowResize(true).resume(killed, atS, "resume.yaml", List.of(), quiet);
        List<String> header = List.of(Files.readAllLines(killed.resolve("metrics.csv")).get(0).split(","));
        for (int s = 0; s < Math.max(2, servers); s++) {
            assertTrue(header.contains("bytes_sent_s" + s), header.toString());
        }
        assertFalse(header.contains("bytes_sent_s" + Math.max(2, servers)), header.toString());
        List<String[]> before = rows(full);
        List<String[]> after = rows(killed);
        assertEquals(before.size(), after.size());
        int loss = header.indexOf("loss");
        int accuracy = header.indexOf("test_accuracy");
        int s2 = header.indexOf("bytes_sent_s" + (Math.max(2, servers) - 1));
        for (int i = 0; i < before.size(); i++) {
            assertEquals(before.get(i)[loss], after.get(i)[loss], "loss of step " + i);
            assertEquals(before.get(i)[accuracy], after.get(i)[accuracy], "accuracy of step " + i);
            // S = 2 before the resume, S' after: the last shard's cells are there only where the step had it
            assertEquals(i < 8 == (servers == 1), !after.get(i)[s2].isEmpty(), "the last shard's cell of step " + i);
        }
        JsonNode summary = new ObjectMapper().readTree(killed.resolve("summary.json").toFile());
        assertEquals(new ObjectMapper().readTree(full.resolve("summary.json").toFile()).get("replicaChecksums"),
                summary.get("replicaChecksums"));
        assertEquals(3 + servers, summary.get("bytesSentPerEndpoint").size());
    }

    /** metrics.csv's rows without the header, split into cells. */
    private static List<String[]> rows(Path runDir) throws IOException {
        List<String> lines = Files.readAllLines(runDir.resolve("metrics.csv"));
        return lines.subList(1, lines.size()).stream().map(l -> l.split(",", -1)).toList();
    }

    /** metrics.csv without its timing columns ({@code *_ms}). */
    static List<String> nonTiming(Path csv) throws IOException {
        List<String> lines = Files.readAllLines(csv);
        String[] header = lines.get(0).split(",", -1);
        List<String> out = new ArrayList<>();
        for (String line : lines) {
            String[] cells = line.split(",", -1);
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < header.length; i++) {
                if (!header[i].endsWith("_ms")) {
                    b.append(cells[i]).append(',');
                }
            }
            out.add(b.toString());
        }
        return out;
    }

    /** summary.json without its timings. */
    static JsonNode withoutTimings(Path runDir) throws IOException {
        ObjectNode summary = (ObjectNode) new ObjectMapper().readTree(runDir.resolve("summary.json").toFile());
        summary.remove("meanPhaseTimesPerStep");
        summary.remove("wall_ms");
        summary.get("bytesByStage").forEach(stage -> ((ObjectNode) stage).remove("meanPhaseTimesPerStep"));
        return summary;
    }

    @Test
    void aResumeShouldRefuseAnotherConfigNamingEveryKeyThatDiffers(@TempDir Path out) throws IOException {
        ExperimentConfig cfg = config("topk", "ps", out, 4);
        Path dir = new ExperimentRunner().run(cfg, "resume.yaml", List.of()).directory();
        Path killed = RunFiles.simulateKill(dir, out.resolve("killed"), 9);
        List<String> before = listing(killed);
        ExperimentConfig other = ConfigLoader.parse(cfg.toYaml().replace("ratio: 0.01", "ratio: 0.02")
                .replace("seed: 7", "seed: 8").replace("maxSteps: 24", "maxSteps: 30"), "other.yaml");
        RunInputException e = assertThrows(RunInputException.class, () -> new ExperimentRunner().resume(killed, other,
                "other.yaml", List.of(), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)));
        assertEquals("checkpoint step-000008 of run 'resume' does not fit this run:\n"
                + "  config keys differ (ignoring runtime.*, run.outputDir, training.epochs, training.maxSteps,"
                + " training.checkpointEverySteps, training.trace.*, data.prefetch, data.check):\n"
                + "    compressor.ratio: checkpoint 0.01, this run 0.02\n"
                + "    run.seed: checkpoint 7, this run 8", e.getMessage());
        assertEquals(before, listing(killed), "a refused resume changes nothing");
    }

    @Test
    void aResumeShouldPassOverABadCheckpointForAnOlderOneAndRefuseADirectoryWithoutAny(@TempDir Path out)
            throws IOException {
        ExperimentConfig cfg = config("dense", "ring", out, 4);
        Path dir = new ExperimentRunner().run(cfg, "resume.yaml", List.of()).directory();
        Path killed = RunFiles.simulateKill(dir, out.resolve("killed"), 9);
        Path part = CheckpointDirectory.in(killed).stepDirectory(8).resolve("rank-1.lgcc");
        try (RandomAccessFile f = new RandomAccessFile(part.toFile(), "rw")) {
            f.seek(100);
            int b = f.read();
            f.seek(100);
            f.write(b ^ 0x40);
        }
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        new ExperimentRunner().resume(killed, null, "resume.yaml", List.of(),
                new PrintStream(log, true, StandardCharsets.UTF_8));
        String said = log.toString(StandardCharsets.UTF_8);
        assertTrue(said.contains("passing over a checkpoint that fails its checks: step-000008/rank-1.lgcc"), said);
        assertTrue(said.contains("from step-000004"), said);
        assertEquals(nonTiming(dir.resolve("metrics.csv")), nonTiming(killed.resolve("metrics.csv")));

        Path none = out.resolve("none");
        RunFiles.copy(dir, none);
        RunFiles.deleteTree(none.resolve("checkpoints"));
        RunInputException e = assertThrows(RunInputException.class, () -> new ExperimentRunner().resume(none, null,
                "resume.yaml", List.of(), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)));
        assertEquals("cannot resume " + none + ": no complete checkpoint in " + none.resolve("checkpoints")
                + " (a run saves them with training.checkpointEverySteps > 0)", e.getMessage());
        assertFalse(Files.exists(none.resolve("checkpoints")));
    }

    private static List<String> listing(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            List<String> out = new ArrayList<>();
            for (Path p : files.sorted().toList()) {
                out.add(dir.relativize(p) + (Files.isRegularFile(p) ? " " + Files.size(p) + " "
                        + java.util.Arrays.hashCode(Files.readAllBytes(p)) : ""));
            }
            return out;
        }
    }
}

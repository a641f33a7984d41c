package io.lgc4j.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.runner.config.ConfigLoader;
import io.lgc4j.runner.config.ExperimentConfig;
import io.lgc4j.data.DatasetNotFoundException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Short end-to-end runs of the YAML runner on real Fashion-MNIST: the default model (LeNet-5) where the test is that
 * it learns, {@code tiny-cnn} (its layers at a fraction of the widths) where the test is about the runner.
 */
class ExperimentRunnerTest {

    private static ExperimentConfig quick(String topology, Path out) {
        return quick(topology, out, "small-cnn");
    }

    private static ExperimentConfig quick(String topology, Path out, String model) {
        String yaml = """
                run: {name: e2e, seed: 7, outputDir: %s}
                data: {trainLimit: 6400, testLimit: 1000}
                model: {name: %s}
                training: {workers: 4, batchSizePerWorker: 16, epochs: 1, maxSteps: 60, evalEverySteps: 30}
                topology: {type: %s}
                """.formatted(out.toString(), model, topology);
        return ConfigLoader.parse(yaml, "e2e.yaml");
    }

    @Test
    void shouldWriteTheResultDirectoryAndLearn(@TempDir Path out) throws IOException {
        ExperimentRunner.RunOutcome outcome = new ExperimentRunner().run(quick("ps", out), "e2e.yaml", List.of());
        Path dir = outcome.directory();
        for (String f : List.of("config.yaml", "provenance.json", "metrics.csv", "summary.json")) {
            assertTrue(Files.isRegularFile(dir.resolve(f)), f);
        }
        assertEquals(quick("ps", out), ConfigLoader.load(dir.resolve("config.yaml")));
        List<String> csv = Files.readAllLines(dir.resolve("metrics.csv"));
        assertEquals(61, csv.size());
        assertTrue(csv.get(0).startsWith("step,epoch,stage,loss,test_accuracy,"), csv.get(0));
        JsonNode summary = new ObjectMapper().readTree(dir.resolve("summary.json").toFile());
        assertEquals(60, summary.get("steps").asInt());
        // provenance from the trainer itself: the topology's description of what ran
        assertEquals("ps", summary.get("method").get("topology").asText());
        assertEquals("none", summary.get("method").get("compressor").asText());
        assertEquals("fp32", summary.get("method").get("values").asText());
        assertEquals(outcome.result().method().toMap(), RunSummary.read(dir.resolve("summary.json")).method());
        double accuracy = summary.get("finalTestAccuracy").asDouble();
        assertTrue(accuracy > 0.6, "60 steps of K=4 should pass 60% test accuracy, got " + accuracy);
        JsonNode provenance = new ObjectMapper().readTree(dir.resolve("provenance.json").toFile());
        for (String key : List.of("gitCommit", "jdk", "nd4j", "seed", "config", "startedAt")) {
            assertTrue(provenance.has(key), key);
        }
    }

    @Test
    void shouldLoadEveryShippedConfig() throws IOException {
        try (var files = Files.list(Path.of("..", "configs"))) {
            List<Path> yaml = files.filter(p -> p.toString().endsWith(".yaml")).toList();
            assertTrue(yaml.size() >= 5, "configs: " + yaml);
            for (Path p : yaml) {
                ConfigLoader.load(p);
            }
        }
    }

    /** Each also in a value encoding: the result names it, and half precision learns as well. */
    @org.junit.jupiter.params.ParameterizedTest(name = "{0} on {1}, {3}")
    @org.junit.jupiter.params.provider.CsvSource({"topk, ps, nesterovs, fp32", "dgc, ps, sgd, bf16",
        "scalecom, ring, nesterovs, fp16"})
    void shouldTrainWithACompressorAfterADenseWarmup(String compressor, String topology, String updater,
                                                     String values, @TempDir Path out) throws IOException {
        String yaml = """
                run: {name: e2e-%s, seed: 7, outputDir: %s}
                data: {trainLimit: 6400, testLimit: 1000}
                model: {name: tiny-cnn, updater: {type: %s, learningRate: 0.05}}
                training: {workers: 4, batchSizePerWorker: 16, epochs: 1, maxSteps: 45, evalEverySteps: 0}
                topology: {type: %s}
                compressor: {type: %s, ratio: 0.01, values: %s}
                stages: {fullIterations: 15}
                """.formatted(compressor, out, updater, topology, compressor, values);
        ExperimentRunner.RunOutcome outcome = new ExperimentRunner().run(ConfigLoader.parse(yaml, "c.yaml"), "c.yaml",
                List.of());
        JsonNode byStage = outcome.summary() == null ? null
                : new ObjectMapper().readTree(outcome.directory().resolve("summary.json").toFile()).get("bytesByStage");
        assertEquals(15, byStage.get("FULL").get("steps").asInt());
        assertEquals(30, byStage.get("TOP_K").get("steps").asInt());
        double full = byStage.get("FULL").get("worker0SentPerStep").asDouble();
        double sparse = byStage.get("TOP_K").get("worker0SentPerStep").asDouble();
        assertTrue(sparse < full / 3, "top-k steps should send far less than dense ones: " + sparse + " vs " + full);
        assertTrue(outcome.result().finalAccuracy() > 0.5, "accuracy " + outcome.result().finalAccuracy());
        JsonNode method = new ObjectMapper().readTree(outcome.directory().resolve("summary.json").toFile())
                .get("method");
        assertEquals(topology, method.get("topology").asText());
        assertEquals(compressor, method.get("compressor").asText());
        assertEquals(0.01, method.get("compressorSettings").get("ratio").asDouble());
        assertEquals(outcome.result().method().codec(), method.get("codec").asText());
        assertEquals(values, method.get("values").asText());
        assertEquals(outcome.summary().method(), RunSummary.read(outcome.directory().resolve("summary.json")).method());
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "lgc on {0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"ring", "ps"})
    void lgcShouldPassThroughAllThreeStagesOnFashionMnistReportingTheAutoencoder(String topology, @TempDir Path out)
            throws IOException {
        String yaml = """
                run: {name: lgc-%s, seed: 7, outputDir: %s}
                data: {trainLimit: 3200, testLimit: 500}
                model: {name: tiny-cnn}
                training: {workers: 3, batchSizePerWorker: 16, epochs: 1, maxSteps: 24, evalEverySteps: 0}
                topology: {type: %s}
                compressor: {type: lgc, ratio: 0.01}
                stages: {fullIterations: 6, aeTrainingIterations: 8}
                """.formatted(topology, out, topology);
        ExperimentRunner.RunOutcome outcome = new ExperimentRunner().run(ConfigLoader.parse(yaml, "c.yaml"), "c.yaml",
                List.of());
        JsonNode byStage = new ObjectMapper().readTree(outcome.directory().resolve("summary.json").toFile())
                .get("bytesByStage");
        assertEquals(6, byStage.get("FULL").get("steps").asInt());
        assertEquals(8, byStage.get("TOP_K").get("steps").asInt());
        assertEquals(10, byStage.get("COMPRESSED").get("steps").asInt());
        JsonNode compressed = byStage.get("COMPRESSED");
        JsonNode method = new ObjectMapper().readTree(outcome.directory().resolve("summary.json").toFile())
                .get("method");
        assertEquals("lgc", method.get("compressor").asText());
        assertEquals(0.01, method.get("compressorSettings").get("ratio").asDouble());
        assertEquals(0.1, method.get("compressorSettings").get("control").get("lowPass").asDouble());
        assertEquals(List.of(64, 128, 256, 64), new ObjectMapper().convertValue(
                method.get("compressorSettings").get("spec").get("encoderFilters"), List.class));
        assertEquals("ps".equals(topology) ? "leader" : null, method.get("topologySettings").has("support")
                ? method.get("topologySettings").get("support").asText() : null);
        assertTrue(compressed.get("latentSenderSentPerStep").get("LATENT").asDouble() > 0, compressed.toString());
        assertTrue(compressed.get("meanPhaseTimesPerStep").get("encode_ms").asDouble() > 0, compressed.toString());
        if ("ps".equals(topology)) {
            // one leader per step sends the latent; the others only innovation (and values of the TOP_K blocks)
            assertTrue(compressed.get("otherWorkerSentPerStep").get("INNOVATION").asDouble() > 0);
            assertTrue(compressed.get("otherWorkerSentPerStep").get("LATENT") == null, compressed.toString());
        } else {
            assertTrue(compressed.get("otherWorkerSentPerStep").isEmpty(), "every ring rank sends a latent");
        }
        List<String> lines = Files.readAllLines(outcome.directory().resolve("metrics.csv"));
        List<String> header = List.of(lines.get(0).split(","));
        int rec = header.indexOf("ae_rec_loss");
        int stage = header.indexOf("stage");
        for (String line : lines.subList(1, lines.size())) {
            String[] cells = line.split(",", -1);
            assertEquals("TOP_K".equals(cells[stage]), !cells[rec].isEmpty(), "ae_rec_loss on " + line);
        }
        JsonNode sums = new ObjectMapper().readTree(outcome.directory().resolve("summary.json").toFile())
                .get("replicaChecksums");
        assertEquals(3, sums.size(), sums.toString());
        for (JsonNode sum : sums) {
            assertEquals(sums.get(0).asText(), sum.asText(), "replicas bit-identical through all three stages");
        }
        // the same seed again, in the diagnostic mode: the same losses, accuracies, bytes and AE notes step by step,
        // the same parameters, and the fidelity of each applied update besides
        String diagnosed = yaml.replace("evalEverySteps: 0}", "evalEverySteps: 0, diagnostics: true}");
        ExperimentRunner.RunOutcome again = new ExperimentRunner().run(ConfigLoader.parse(diagnosed, "c.yaml"),
                "c.yaml", List.of());
        List<String> diagnostic = List.of("applied_rel_err", "applied_cos", "applied_cos_all", "offer_share");
        assertEquals(deterministicColumns(outcome.directory().resolve("metrics.csv")),
                deterministicColumns(again.directory().resolve("metrics.csv"), diagnostic));
        assertEquals(outcome.summary().replicaChecksums(), again.summary().replicaChecksums());
        assertTrue(outcome.summary().bytesByStage().get(Stage.COMPRESSED).diagnostics().isEmpty());
        var topK = again.summary().bytesByStage().get(Stage.TOP_K).diagnostics();
        var lossy = again.summary().bytesByStage().get(Stage.COMPRESSED).diagnostics();
        assertEquals(0.0, topK.get("applied_rel_err"), 1e-6, "top-k's values travel exactly: " + topK);
        assertTrue(lossy.get("applied_rel_err") > 0.01, "the autoencoder is lossy: " + lossy);
        assertEquals(again.summary(), RunSummary.read(again.directory().resolve("summary.json")),
                "the diagnostics read back");
        var trainers = outcome.result().steps();
        for (int r = 0; r < 3; r++) {
            assertTrue(outcome.result().traffic().bytes(r, io.lgc4j.core.comm.Direction.RECEIVED,
                    io.lgc4j.core.comm.TrafficKind.AE_WEIGHTS) > 0 || r == 0 && "ring".equals(topology),
                    "rank " + r + " received the autoencoder's weights (" + trainers.size() + " steps)");
            // every rank starts from the model it built (their digests agree): no parameters travel before step 0
            assertEquals(0, outcome.result().traffic().bytes(r, io.lgc4j.core.comm.Direction.RECEIVED,
                    io.lgc4j.core.comm.TrafficKind.MODEL_WEIGHTS), "rank " + r + " received model weights");
        }
    }

    @Test
    void shouldGiveIdenticalMetricsForTheSameConfigAndSeed(@TempDir Path out) throws IOException {
        // 20 steps, the same run twice (the other tests train the 60 steps)
        ExperimentConfig config = quick("ring", out, "tiny-cnn");
        config = config.withTraining(config.training().withMaxSteps(20));
        ExperimentRunner.RunOutcome a = new ExperimentRunner().run(config, "e2e.yaml", List.of());
        ExperimentRunner.RunOutcome b = new ExperimentRunner().run(config, "e2e.yaml", List.of());
        assertEquals(deterministicColumns(a.directory().resolve("metrics.csv")),
                deterministicColumns(b.directory().resolve("metrics.csv")));
        assertEquals(a.result().finalAccuracy(), b.result().finalAccuracy());
        assertEquals(a.summary().replicaChecksums(), b.summary().replicaChecksums());
    }

    @Test
    void shouldSayWhereItLookedWhenTheDatasetIsMissing(@TempDir Path out) {
        ExperimentConfig config = quick("ring", out);
        ExperimentConfig missing = config.withData(ConfigLoader.parse("""
                run: {name: x}
                data: {path: %s}
                """.formatted(out.resolve("nowhere")), "m.yaml").data());
        DatasetNotFoundException e = assertThrows(DatasetNotFoundException.class,
                () -> new ExperimentRunner().run(missing, "m.yaml", List.of()));
        assertTrue(e.getMessage().contains(out.resolve("nowhere").toString()), e.getMessage());
        assertTrue(e.getMessage().contains("apt-get install dataset-fashion-mnist"), e.getMessage());
    }

    @Test
    void aRunThatFailsItsInputChecksShouldLeaveNoDirectory(@TempDir Path out) throws IOException {
        Path results = out.resolve("results");
        ExperimentConfig config = quick("ring", results);
        ExperimentConfig missing = config.withData(ConfigLoader.parse("""
                run: {name: x}
                data: {path: %s}
                """.formatted(out.resolve("nowhere")), "m.yaml").data());
        assertThrows(DatasetNotFoundException.class, () -> new ExperimentRunner().run(missing, "m.yaml", List.of()));
        assertFalse(Files.exists(results), "run() created " + results);
        Path suiteRun = out.resolve("suite").resolve("runs").resolve("x-small-cnn");
        assertThrows(DatasetNotFoundException.class,
                () -> new ExperimentRunner().runInto(suiteRun, missing, "m.yaml", List.of()));
        assertFalse(Files.exists(out.resolve("suite")), "runInto() created " + out.resolve("suite"));
        Path file = Files.writeString(out.resolve("file"), "x");
        RunInputException e = assertThrows(RunInputException.class,
                () -> new ExperimentRunner().runInto(file, config, "m.yaml", List.of()));
        assertEquals("result directory " + file + " is a file, not a directory", e.getMessage());
    }

    @Test
    void aTrainingThatFailsShouldKeepItsPartialResultsWithoutASummary(@TempDir Path out) throws IOException {
        ExperimentConfig diverging = ConfigLoader.parse("""
                run: {name: diverge, seed: 7, outputDir: %s}
                data: {trainLimit: 640, testLimit: 100}
                model: {updater: {type: sgd, learningRate: 1.0e30}}
                training: {workers: 2, batchSizePerWorker: 16, maxSteps: 10, evalEverySteps: 0}
                """.formatted(out), "d.yaml");
        RunFailedException e = assertThrows(RunFailedException.class,
                () -> new ExperimentRunner().run(diverging, "d.yaml", List.of()));
        Path dir = e.directory();
        assertTrue(e.getCause() instanceof io.lgc4j.core.train.NonFiniteGradientException, String.valueOf(e.getCause()));
        assertTrue(e.getMessage().endsWith("; the partial results (config.yaml, provenance.json, metrics.csv) are in "
                + dir), e.getMessage());
        assertEquals(diverging, ConfigLoader.load(dir.resolve("config.yaml")));
        assertTrue(Files.isRegularFile(dir.resolve("provenance.json")));
        List<String> csv = Files.readAllLines(dir.resolve("metrics.csv"));
        assertTrue(csv.get(0).startsWith("step,"), csv.toString());
        assertFalse(Files.exists(dir.resolve(ExperimentRunner.SUMMARY)), "no summary: the run did not finish");
    }

    /** Every column but the timings (names ending in _ms). */
    static List<String> deterministicColumns(Path csv) throws IOException {
        return deterministicColumns(csv, List.of());
    }

    /** The columns that are not timings, without {@code leftOut}. */
    static List<String> deterministicColumns(Path csv, List<String> leftOut) throws IOException {
        List<String> lines = Files.readAllLines(csv);
        String[] header = lines.get(0).split(",");
        List<String> kept = new ArrayList<>();
        for (String line : lines) {
            String[] cells = line.split(",", -1);
            StringBuilder row = new StringBuilder();
            for (int i = 0; i < header.length; i++) {
                if (!header[i].endsWith("_ms") && !leftOut.contains(header[i])) {
                    row.append(cells[i]).append(',');
                }
            }
            kept.add(row.toString());
        }
        return kept;
    }
}

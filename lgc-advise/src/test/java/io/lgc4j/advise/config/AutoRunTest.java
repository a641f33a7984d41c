package io.lgc4j.advise.config;

import io.lgc4j.runner.AutoFixtures;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lgc4j.runner.ExperimentRunner;
import io.lgc4j.runner.RunFiles;
import io.lgc4j.runner.RunInputException;
import io.lgc4j.runner.config.ConfigLoader;
import io.lgc4j.runner.config.ExperimentConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code compressor: auto} in one JVM on real Fashion-MNIST: the choice, its records, and that an auto run trains
 * exactly what its written {@code config.yaml} trains (the advisor's passes ran on a throwaway copy of the model).
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class AutoRunTest {

    private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());

    /**
     * tiny-cnn has no committed evidence, so dense's steps are unknown and only a method of dense's math can be
     * chosen: dense ring, the one such candidate here.
     */
    private static AutoMethod auto(Path dir, double target) throws IOException {
        AutoFixtures.candidates(dir);
        Path config = dir.resolve("auto.yaml");
        Files.writeString(config, """
                run: {name: auto, seed: 11, outputDir: %s}
                data: {trainLimit: 1920, testLimit: 500}
                model: {name: tiny-cnn}
                training: {workers: 2, batchSizePerWorker: 16, epochs: 1, maxSteps: 8, evalEverySteps: 4}
                compressor: auto
                advise: {candidates: candidates.yaml, target: %s}
                """.formatted(dir.resolve("results"), target));
        return AutoMethod.read(config).orElseThrow();
    }

    @Test
    void anAutoRunShouldTrainWhatItsConfigYamlTrainsAndRecordItsChoice(@TempDir Path dir) throws IOException {
        AutoMethod auto = auto(dir, 0.8);
        AutoRun.Resolved r = AutoRun.inProcess(auto, QUIET);
        assertEquals("dense-ring", r.chosen().id());
        assertEquals("in process", r.how());
        assertTrue(r.advice().orElseThrow().table().contains("chosen by step time among the methods of dense's"
                + " math"), r.advice().get().table());
        Path run = new ExperimentRunner().records(r.files(), r.provenance(), r::summary)
                .run(r.config(), "auto.yaml", List.of()).directory();
        JsonNode advice = new ObjectMapper().readTree(run.resolve(AutoRun.ADVICE_JSON).toFile());
        assertEquals("dense-ring", advice.get("chosen").asText());
        assertEquals(auto.digest(), advice.get("candidatesDigest").asText());
        assertEquals("in process: the ranks share memory", advice.get("link").get("source").asText());
        assertTrue(Files.readString(run.resolve(AutoRun.ADVICE_CSV)).startsWith("candidate,label,stage,"));
        JsonNode provenance = new ObjectMapper().readTree(run.resolve("provenance.json").toFile()).get("advice");
        assertEquals("dense-ring", provenance.get("chosen").asText());
        // summary.json: the chosen method's predicted step beside the run's own (8 steps: none past the JIT's 25)
        JsonNode summary = new ObjectMapper().readTree(run.resolve("summary.json").toFile()).get("advice");
        assertEquals("dense-ring", summary.get("chosen").asText());
        assertTrue(summary.get("stages").get("FULL").get("predictedStepMs").asDouble() > 0, summary.toString());
        // config.yaml names the chosen method: trained again without advising, it gives the same bits
        ExperimentConfig written = ConfigLoader.load(run.resolve("config.yaml"));
        assertEquals("ring", written.topology().type().toString());
        assertEquals("auto", written.run().name(), "the user's run name, not the candidate's");
        Path plain = new ExperimentRunner().run(written.withRun(written.run().withOutputDir(
                dir.resolve("plain").toString())), "config.yaml", List.of()).directory();
        RunFiles.assertSameRun(run, plain);

        // a restart or resume takes the recorded choice, among the same candidates only
        AutoRun.Resolved again = AutoRun.recorded(auto, run).orElseThrow();
        assertEquals("dense-ring", again.chosen().id());
        assertEquals(r.config(), again.config());
        assertTrue(again.files().isEmpty(), "a recorded choice writes no advice of its own");
        RunInputException e = assertThrows(RunInputException.class, () -> AutoRun.recorded(auto(dir, 0.85), run));
        assertEquals("cannot continue " + run + " with compressor: auto: its advice.json chose 'dense-ring' among"
                + " candidates " + auto.digest() + ", this config's are " + auto(dir, 0.85).digest() + "; resume with"
                + " the run's config.yaml", e.getMessage());
        assertTrue(AutoRun.recorded(auto, dir).isEmpty(), "no advice.json there");
    }
}

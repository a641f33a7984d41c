package io.lgc4j.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lgc4j.core.comm.Direction;
import io.lgc4j.core.metrics.StepMetrics;
import io.lgc4j.runner.config.ConfigLoader;
import io.lgc4j.runner.config.ExperimentConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A local SGD run from a config on Fashion-MNIST ({@code tiny-cnn}): its summary names the method, counts the
 * averagings' bytes (and only them after {@code localFrom}), and every replica ends with the same parameters.
 */
class LocalSgdRunTest {

    @Test
    void theSummaryShouldCountTheAveragingsBytes(@TempDir Path out) throws IOException {
        String yaml = """
                run: {name: local, seed: 7, outputDir: %s}
                data: {trainLimit: 3200, testLimit: 500}
                model: {name: tiny-cnn}
                training: {workers: 2, batchSizePerWorker: 16, epochs: 1, maxSteps: 11, evalEverySteps: 0}
                topology: {type: local-sgd, period: 4, localFrom: 2}
                """.formatted(out);
        ExperimentConfig config = ConfigLoader.parse(yaml, "local.yaml");
        ExperimentRunner.RunOutcome outcome = new ExperimentRunner().run(config, "local.yaml", List.of());
        List<StepMetrics> steps = outcome.result().steps();
        assertEquals(11, steps.size());
        long denseStep = steps.get(1).traffic().bytes(0, Direction.SENT); // step 1: the dense ring's
        assertTrue(denseStep > 0);
        long sum = 0;
        for (StepMetrics m : steps) {
            long sent = m.traffic().bytes(0, Direction.SENT);
            int s = m.step();
            if (s > 2 && s != 6 && s != 10) {
                assertEquals(0, sent, "local step " + s + " sends nothing");
            } else if (s > 0) {
                assertEquals(denseStep, sent, "step " + s + ": a dense ring step's bytes");
            }
            sum += sent;
        }
        RunSummary summary = outcome.summary();
        // step 0 also holds the initial model's broadcast; the averagings after steps 2, 6 and 10 are in the totals
        assertEquals(sum, summary.bytesSentPerEndpoint().get(0));
        assertEquals(steps.get(0).traffic().bytes(0, Direction.SENT) + 4 * denseStep, sum);
        assertEquals((double) sum / 11, summary.meanBytesSentPerStepWorker0(), 1e-9);
        // the last step, 10, averages: the run ends on one model
        assertEquals(1, summary.replicaChecksums().stream().distinct().count(), summary.replicaChecksums().toString());
        JsonNode method = new ObjectMapper().readTree(outcome.directory().resolve("summary.json").toFile())
                .get("method");
        assertEquals("local-sgd", method.get("topology").asText());
        assertEquals("none", method.get("compressor").asText());
        assertEquals(Map.of("period", 4, "localFrom", 2), summary.method().get("topologySettings"));
        assertEquals(config, ConfigLoader.load(outcome.directory().resolve("config.yaml")));
    }
}

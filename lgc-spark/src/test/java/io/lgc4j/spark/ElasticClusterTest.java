package io.lgc4j.spark;

import io.lgc4j.runner.ExperimentRunner;
import io.lgc4j.runner.RunFiles;
import io.lgc4j.runner.config.ConfigLoader;
import io.lgc4j.runner.config.ExperimentConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An elastic fit on {@code local-cluster[3,1,1024]} (three executor JVMs of one core): the executor running rank 1 is
 * killed after the checkpoint of step 8, the barrier job fails, and the next attempt goes on with the two executors
 * left at K = 2 from the last complete checkpoint; the fit finishes, and computes what {@code lgc run --resume DIR
 * --workers 2} computes in one JVM from that checkpoint. About 90 s on 2 cores, so only with
 * {@code -Dlgc.spark.localCluster=true}.
 */
class ElasticClusterTest {

    @Test
    @EnabledIfSystemProperty(named = "lgc.spark.localCluster", matches = "true")
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void aLostExecutorShouldLeaveTheFitToFinishWithTheRanksLeft(@TempDir Path tmp) throws Exception {
        Path stderr = tmp.resolve("stderr.txt");
        Path stdout = tmp.resolve("stdout.txt");
        LgcEstimatorExitTest.LocalCluster cluster = LgcEstimatorExitTest.LocalCluster.in(tmp);
        Path out = tmp.resolve("spark");
        Process program = LgcEstimatorExitTest.start(ElasticClusterProgram.class, stderr, cluster.env(),
                cluster.jvm(), "local-cluster[3,1,1024]", out.toString(), "8");
        Map<String, String> said = new HashMap<>();
        try {
            program.getInputStream().transferTo(Files.newOutputStream(stdout));
            assertTrue(program.waitFor(5, TimeUnit.MINUTES), "the driver still runs after 5 minutes");
            for (String line : Files.readAllLines(stdout)) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    said.put(line.substring(0, eq), line.substring(eq + 1));
                }
            }
            assertEquals(0, program.exitValue(), "the driver failed: " + LgcEstimatorExitTest.tail(stderr));
        } finally {
            program.destroyForcibly();
        }
        System.out.println(String.join("\n", Files.readAllLines(stdout)));
        assertEquals("true", said.get("killed"), "Spark killed rank 1's executor");
        assertEquals("2", said.get("attempts"));
        assertEquals("2", said.get("workers"));
        long resumed = Long.parseLong(said.get("resumedFrom"));
        assertTrue(resumed >= 8 && resumed % 4 == 0, "resumed from a checkpoint at or after step 8: " + resumed);
        // the rest of epoch 0 (1,920 − 48·c examples) re-split over K = 2 ranks of 16, then epoch 1 at K = 2
        long steps = resumed + (1920 - 48 * resumed) / 32 + 1920 / 32;
        assertEquals(String.valueOf(steps), said.get("steps"));
        assertTrue(said.get("elasticAttempts").startsWith("[{\"workers\":3,\"failure\":")
                && said.get("elasticAttempts").endsWith(",{\"workers\":2,\"resumedFrom\":" + resumed + "}]"),
                said.get("elasticAttempts"));

        Path run = Path.of(said.get("directory"));
        Path cut = RunFiles.simulateKill(run, tmp.resolve("cut"), (int) resumed - 1);
        ExperimentConfig atTwo = ConfigLoader.parse(ElasticClusterProgram.YAML.formatted(5, tmp.resolve("unused")),
                "elastic-cluster.yaml");
        new ExperimentRunner().allowResize(true).resume(cut, atTwo.withTraining(atTwo.training().withWorkers(2)),
                "elastic-cluster.yaml", List.of(), new PrintStream(new ByteArrayOutputStream(), true,
                        StandardCharsets.UTF_8));
        RunFiles.assertSameRun(cut, run);
    }
}

package io.lgc4j.spark;

import io.lgc4j.runner.AutoFixtures;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lgc4j.runner.config.ConfigLoader;
import io.lgc4j.runner.config.ExperimentConfig;
import io.lgc4j.runner.config.RuntimeType;
import io.lgc4j.runner.ExperimentRunner;
import io.lgc4j.runner.RunFiles;
import io.lgc4j.advise.config.AutoMethod;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A barrier stage on {@code local[3]} trains what {@code lgc run} trains in one JVM, bit for bit (over TCP and TLS); a
 * failed task makes Spark retry the stage, which resumes from the last checkpoint, or, elastic, go on at the K the
 * slots allow; a cluster that cannot run the job says so at once.
 */
class SparkBarrierRunTest {
    private static JavaSparkContext sc;

    @BeforeAll
    static void startSpark() {
        sc = new JavaSparkContext(conf("local[3]"));
    }

    @AfterAll
    static void stopSpark() {
        if (sc != null) {
            sc.stop();
        }
    }

    private static SparkConf conf(String master) {
        return new SparkConf().setMaster(master).setAppName("lgc-spark-test")
                .set("spark.driver.host", "127.0.0.1").set("spark.driver.bindAddress", "127.0.0.1")
                .set("spark.ui.enabled", "false");
    }

    static String yaml(String method, Path out, String extra) {
        String methodKeys = switch (method) {
            case "lgc-ps" -> """
                    topology: {type: ps}
                    compressor: {type: lgc, ratio: 0.01, values: fp16}
                    """;
            case "lgc-rar" -> """
                    topology: {type: ring}
                    compressor: {type: lgc, ratio: 0.01}
                    """;
            default -> throw new IllegalArgumentException(method);
        };
        return """
                run: {name: spark-%s, seed: 11, outputDir: %s}
                data: {trainLimit: 1920, testLimit: 500}
                training: {workers: 3, batchSizePerWorker: 16, epochs: 1, maxSteps: 14, evalEverySteps: 6%s}
                stages: {fullIterations: 4, aeTrainingIterations: 4}
                autoencoder: {optimizer: adam, learningRate: 0.001, checkEvery: 3}
                %s""".formatted(method, out, extra, methodKeys);
    }

    /**
     * LGC-PS (its shard in rank 0's task) over plain TCP and over mutual TLS: both compute what the in-process run
     * computes, bit for bit (TLS changes the links only). LGC-RAR over Spark: the retry test below, against the same
     * in-process run.
     */
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void aBarrierStageShouldComputeWhatTheInProcessRunComputesBitForBitOverTcpAndTls(@TempDir Path tmp)
            throws IOException {
        List<Path> before = LgcEstimatorTest.certificateDirectories();
        Path inProcess = tmp.resolve("in-process");
        new ExperimentRunner().run(ConfigLoader.parse(yaml("lgc-ps", inProcess, ""), "lgc-ps.yaml"), "lgc-ps.yaml",
                List.of());
        SparkRun run = LgcSpark.fit(sc, ConfigLoader.parse(yaml("lgc-ps", tmp.resolve("spark"), ""), "lgc-ps.yaml"),
                SparkOptions.defaults());
        assertSameRun(only(inProcess), run.directory());
        assertEquals(1, run.stageAttempts());
        assertEquals(-1, run.resumedFrom());
        assertTrue(Files.size(run.directory().resolve(BarrierTraining.MODEL_FILE)) > 1_000_000, "model.zip");
        JsonNode spark = new ObjectMapper().readTree(run.directory().resolve(LgcSpark.SPARK_FILE).toFile());
        assertEquals(3, spark.get("tasks").asInt());
        assertTrue(spark.get("colocatedShards").asBoolean());
        assertEquals(3, spark.get("perTask").size());
        assertFalse(spark.get("tls").asBoolean());
        assertFalse(spark.get("perTask").get(0).get("tls").asBoolean());

        SparkRun tls = LgcSpark.fit(sc, ConfigLoader.parse(yaml("lgc-ps", tmp.resolve("tls"), ""), "lgc-ps.yaml"),
                SparkOptions.defaults().withTls(true));
        assertSameRun(only(inProcess), tls.directory());
        JsonNode tlsSpark = new ObjectMapper().readTree(tls.directory().resolve(LgcSpark.SPARK_FILE).toFile());
        assertTrue(tlsSpark.get("tls").asBoolean(), "spark.json records tls");
        for (JsonNode task : tlsSpark.get("perTask")) {
            assertTrue(task.get("tls").asBoolean(), "lgc-net ran every link of task " + task + " over TLS");
        }
        assertEquals(before, LgcEstimatorTest.certificateDirectories(), "every task deleted its certificates");
    }

    /**
     * {@code compressor: auto} on Spark: the three tasks join the advise session over the executors' links; with no
     * evidence for tiny-cnn only dense ring (dense's math) can be chosen; the stage trains it as {@code lgc run} trains
     * the written config.yaml in one JVM, and rank 0's files hold the advice.
     */
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void autoShouldChooseInTheTasksSessionAndTrainTheChoice(@TempDir Path tmp) throws IOException {
        AutoFixtures.candidates(tmp);
        Path config = tmp.resolve("auto.yaml");
        Files.writeString(config, """
                run: {name: spark-auto, seed: 11, outputDir: %s}
                data: {trainLimit: 1920, testLimit: 500}
                model: {name: tiny-cnn}
                training: {workers: 3, batchSizePerWorker: 16, epochs: 1, maxSteps: 10, evalEverySteps: 6}
                compressor: auto
                advise: {candidates: candidates.yaml}
                """.formatted(tmp.resolve("spark")));
        SparkRun run = LgcSpark.fit(sc, AutoMethod.read(config).orElseThrow(), config.toString(),
                SparkOptions.defaults());
        JsonNode advice = new ObjectMapper().readTree(run.directory().resolve("advice.json").toFile());
        assertEquals("dense-ring", advice.get("chosen").asText());
        assertEquals(3, advice.get("probe").get("endpoints").asInt());
        assertTrue(Files.isRegularFile(run.directory().resolve("advice.csv")));
        var written = ConfigLoader.load(run.directory().resolve("config.yaml"));
        assertEquals("ring", written.topology().type().toString());
        Path inProcess = tmp.resolve("in-process");
        new ExperimentRunner().run(written.withRun(written.run().withOutputDir(inProcess.toString()))
                .withRuntime(written.runtime().withType(io.lgc4j.runner.config.RuntimeType.IN_PROCESS)),
                "config.yaml", List.of());
        assertSameRun(only(inProcess), run.directory());
        LgcSparkException e = assertThrows(LgcSparkException.class, () -> LgcSpark.fit(sc,
                AutoMethod.read(config).orElseThrow(), config.toString(), SparkOptions.defaults().withColocate(false)));
        assertEquals("compressor: auto runs every candidate's shards inside the workers' tasks (the stage's task count"
                + " cannot wait for the choice): drop SparkOptions.withColocate(false) (lgc-spark --no-colocate)",
                e.getMessage());
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void aFailedTaskShouldMakeSparkRetryTheStageWhichResumesFromTheLastCheckpoint(@TempDir Path tmp)
            throws IOException {
        String checkpoints = ", checkpointEverySteps: 4";
        Path inProcess = tmp.resolve("in-process");
        new ExperimentRunner().run(ConfigLoader.parse(yaml("lgc-rar", inProcess, checkpoints), "lgc-rar.yaml"),
                "lgc-rar.yaml", List.of());
        SparkRun run = LgcSpark.fit(sc, ConfigLoader.parse(yaml("lgc-rar", tmp.resolve("spark"), checkpoints),
                "lgc-rar.yaml"), SparkOptions.defaults().withFault(new SparkOptions.Fault(10)));
        assertEquals(2, run.stageAttempts());
        assertEquals(8, run.resumedFrom(), "the checkpoint after 8 steps is the last before the fault after 10");
        assertSameRun(only(inProcess), run.directory());
        assertFalse(Files.exists(run.directory().resolve(ExperimentRunner.FAILURE)), "attempt 0's failure is cleared");
    }

    /**
     * Elastic: rank 0 fails after 10 steps; the cluster then offers 2 task slots (this test's count stands for a lost
     * executor), so the next attempt, a barrier job of its own, goes on at K = 2 from the checkpoint after 8 steps:
     * what {@code lgc run --resume DIR --workers 2 --servers 2} computes in one JVM from that checkpoint, bit for bit
     * (LGC-PS on three shards, shard s in rank s's task: shard 2 goes with rank 2, the state stays on shard 0, the
     * server drops decoder 2).
     */
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void anElasticFitShouldGoOnWithTheSlotsLeftFromTheLastCheckpoint(@TempDir Path tmp) throws IOException {
        String checkpoints = ", checkpointEverySteps: 4";
        String threeShards = "topology: {type: ps, servers: 3, fusionBufferBytes: 65536}";
        ExperimentConfig cfg = ConfigLoader.parse(yaml("lgc-ps", tmp.resolve("in-process"), checkpoints)
                .replace("topology: {type: ps}", threeShards), "lgc-ps.yaml");
        Path full = new ExperimentRunner().run(cfg, "lgc-ps.yaml", List.of()).directory();
        Path killed = RunFiles.simulateKill(full, tmp.resolve("killed"), 9);
        ExperimentConfig atTwo = cfg.withTraining(cfg.training().withWorkers(2))
                .withTopology(cfg.topology().with("servers", 2));
        new ExperimentRunner().allowResize(true).resume(killed, atTwo, "lgc-ps.yaml", List.of(),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));

        ExperimentConfig spark = ConfigLoader.parse(yaml("lgc-ps", tmp.resolve("spark"), checkpoints)
                .replace("topology: {type: ps}", threeShards), "lgc-ps.yaml");
        AtomicInteger counted = new AtomicInteger();
        SparkRun run = LgcSpark.fit(sc, spark.withRuntime(spark.runtime().withType(RuntimeType.TCP)), null,
                "lgc-ps.yaml", SparkOptions.defaults().withFault(new SparkOptions.Fault(10))
                        .withElastic(new SparkOptions.Elastic(2, 1)),
                () -> counted.getAndIncrement() == 0 ? 3 : 2);
        assertEquals(2, run.stageAttempts());
        assertEquals(8, run.resumedFrom(), "the checkpoint after 8 steps is the last before the fault after 10");
        assertEquals(2, run.summary().workers());
        assertSameRun(killed, run.directory());
        JsonNode attempts = new ObjectMapper().readTree(run.directory().resolve(LgcSpark.SPARK_FILE).toFile())
                .get("elasticAttempts");
        assertEquals(2, attempts.size());
        assertEquals(3, attempts.get(0).get("workers").asInt());
        // Spark names the first task it saw fail: rank 0 (the fault) or a rank that lost it
        assertTrue(attempts.get(0).get("failure").asText().contains("stopped at step"), attempts.toString());
        assertEquals(2, attempts.get(1).get("workers").asInt());
        assertEquals(8, attempts.get(1).get("resumedFrom").asInt());
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void anElasticFitShouldRefuseWhatItCannotRunNamingIt(@TempDir Path tmp) throws IOException {
        ExperimentConfig cfg = ConfigLoader.parse(yaml("lgc-ps", tmp, ""), "lgc-ps.yaml");
        ExperimentConfig tcp = cfg.withRuntime(cfg.runtime().withType(RuntimeType.TCP));
        SparkOptions options = SparkOptions.defaults().withSlotWait(java.time.Duration.ofSeconds(1));
        LgcSparkException more = assertThrows(LgcSparkException.class, () -> LgcSpark.fit(sc, cfg,
                options.withElastic(new SparkOptions.Elastic(4, 1))));
        assertEquals("elastic.minWorkers is 4, more than the 3 ranks of training.workers: expected at most 3",
                more.getMessage());
        LgcSparkException few = assertThrows(LgcSparkException.class, () -> LgcSpark.fit(sc, tcp, null, "lgc-ps.yaml",
                options.withElastic(new SparkOptions.Elastic(2, 1)), () -> 1));
        assertEquals("the cluster offers 1 task slot (local[3], 1 executor registered after 1 s), the job needs at"
                + " least 2 barrier tasks (2 ranks, parameter-server shard 0 with rank 0; topology ps, compressor lgc)"
                + " (elastic.minWorkers 2) at once: add executors or cores, or lower elastic.minWorkers",
                few.getMessage());
        // a bad input fails every task of every attempt alike: no restart (a model the method refuses: the estimator's
        // test; a config's is refused when it is read)
        assertTrue(LgcSpark.badInput(new RuntimeException("Job aborted due to stage failure: …\n"
                + "io.lgc4j.core.train.CheckpointMismatchException: … ", new IllegalArgumentException("LGC-PS cannot"))));
        assertTrue(LgcSpark.badInput(new RuntimeException("Job aborted due to stage failure: …\n"
                + "java.lang.IllegalArgumentException: compressor 'dgc' applies momentum itself")));
        assertFalse(LgcSpark.badInput(new RuntimeException("Job aborted due to stage failure: …\n"
                + "io.lgc4j.core.train.TrainingFailedException: rank 2 stopped at step 11: lost rank 1")));
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
                () -> new SparkOptions.Elastic(2, 0));
        assertEquals("elastic.maxRestarts: expected at least 1 (going on after a failure is a restart), found 0",
                none.getMessage());
        try (var left = Files.list(tmp)) {
            assertEquals(0, left.count(), "nothing written into the output directory");
        }
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void tooFewSlotsShouldFailWithinTheSlotWaitNamingWhatTheJobNeeds(@TempDir Path tmp) throws IOException {
        String four = yaml("lgc-ps", tmp, "").replace("workers: 3", "workers: 4");
        LgcSparkException e = assertThrows(LgcSparkException.class, () -> LgcSpark.fit(sc,
                ConfigLoader.parse(four, "four.yaml"),
                SparkOptions.defaults().withSlotWait(java.time.Duration.ofSeconds(1))));
        assertEquals("the cluster offers 3 task slots (local[3], 1 executor registered after 1 s), the job needs 4"
                + " barrier tasks (4 ranks, parameter-server shard 0 with rank 0; topology ps, compressor lgc) at once: add"
                + " executors or cores, or lower training.workers", e.getMessage());
        try (var left = Files.list(tmp)) {
            assertEquals(0, left.count(), "nothing written into the output directory");
        }
    }

    private static void assertSameRun(Path a, Path b) throws IOException {
        RunFiles.assertSameRun(a, b);
        assertEquals("tcp", ConfigLoader.load(b.resolve("config.yaml")).runtime().type().toString());
    }

    static Path only(Path dir) throws IOException {
        return RunFiles.only(dir);
    }
}

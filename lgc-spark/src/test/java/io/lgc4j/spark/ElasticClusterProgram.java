package io.lgc4j.spark;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.lgc4j.runner.config.ConfigLoader;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskStart;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * A driver program for {@link ElasticClusterTest}: an elastic fit of DGC on a ring of 3 ranks on the cluster MASTER;
 * once the run's checkpoint after KILL_AFTER steps is complete, the driver asks Spark to kill the executor that runs
 * rank 1 ({@code SparkContext#killExecutor}: the cluster does not replace it). Prints the fit's outcome, one
 * {@code key=value} a line, then {@code spark.json}'s attempts.
 *
 * <p>Arguments: MASTER OUTPUT_DIR KILL_AFTER [SEED]; KILL_AFTER {@code never} kills nothing (the uninterrupted run).
 * {@code scripts/spark-elastic.py} runs it for several kill points and seeds.
 */
public final class ElasticClusterProgram {
    /** The config: 1,920 examples, 2 epochs of 40 steps at K = 3, a checkpoint every 4 steps. */
    static final String YAML = """
            run: {name: elastic-cluster, seed: %d, outputDir: %s}
            data: {trainLimit: 1920, testLimit: 500}
            model: {name: tiny-cnn, updater: {type: sgd, learningRate: 0.05}}
            training: {workers: 3, batchSizePerWorker: 16, epochs: 2, evalEverySteps: 40, checkpointEverySteps: 4}
            topology: {type: ring}
            compressor: {type: dgc, ratio: 0.01, momentum: 0.9}
            stages: {fullIterations: 4}
            """;

    private ElasticClusterProgram() {
    }

    /** Runs it. */
    public static void main(String[] args) throws Exception {
        String master = args[0];
        Path out = Path.of(args[1]);
        long killAfter = args[2].equals("never") ? -1 : Long.parseLong(args[2]);
        long seed = args.length > 3 ? Long.parseLong(args[3]) : 5;
        SparkConf conf = new SparkConf().setMaster(master).setAppName("lgc-elastic-cluster")
                .set("spark.driver.host", "127.0.0.1").set("spark.driver.bindAddress", "127.0.0.1")
                .set("spark.ui.enabled", "false");
        try (JavaSparkContext sc = new JavaSparkContext(conf)) {
            Map<Integer, String> executorOf = new ConcurrentHashMap<>();
            sc.sc().addSparkListener(new SparkListener() {
                @Override
                public void onTaskStart(SparkListenerTaskStart start) {
                    executorOf.put(start.taskInfo().index(), start.taskInfo().executorId());
                }
            });
            if (killAfter >= 0) {
                Thread killer = new Thread(() -> killRankOne(sc, out, killAfter, executorOf), "elastic-test-killer");
                killer.setDaemon(true);
                killer.start();
            }
            long started = System.nanoTime();
            SparkRun run = LgcSpark.fit(sc, ConfigLoader.parse(YAML.formatted(seed, out), "elastic-cluster.yaml"),
                    SparkOptions.defaults().withElastic(new SparkOptions.Elastic(2, 2)));
            System.out.println("attempts=" + run.stageAttempts());
            System.out.println("resumedFrom=" + run.resumedFrom());
            System.out.println("workers=" + run.summary().workers());
            System.out.println("steps=" + run.summary().steps());
            System.out.println("accuracy=" + run.summary().finalTestAccuracy());
            System.out.println("directory=" + run.directory());
            System.out.printf(java.util.Locale.ROOT, "seconds=%.1f%n", (System.nanoTime() - started) / 1e9);
            System.out.println("elasticAttempts=" + new ObjectMapper().readTree(run.directory()
                    .resolve(LgcSpark.SPARK_FILE).toFile()).get("elasticAttempts"));
        }
        System.out.flush();
    }

    /** Waits for the checkpoint after {@code after} steps, then kills the executor of rank 1's task. */
    private static void killRankOne(JavaSparkContext sc, Path out, long after, Map<Integer, String> executorOf) {
        try {
            while (!complete(out, after)) {
                Thread.sleep(50);
            }
            String executor = executorOf.get(1);
            System.out.println("killing executor " + executor + " (rank 1) after the checkpoint of step " + after);
            System.out.println("killed=" + sc.sc().killExecutor(executor));
        } catch (InterruptedException | IOException e) {
            System.out.println("the killer stopped: " + e);
        }
    }

    private static boolean complete(Path out, long after) throws IOException {
        if (!Files.isDirectory(out)) {
            return false;
        }
        try (Stream<Path> runs = Files.list(out)) {
            return runs.anyMatch(run -> Files.isRegularFile(run.resolve("checkpoints")
                    .resolve(String.format("step-%06d", after)).resolve("manifest.lgcc")));
        }
    }
}

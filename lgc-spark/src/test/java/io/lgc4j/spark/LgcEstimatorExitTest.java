package io.lgc4j.spark;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A driver program that fits on {@code local[2]} and returns from {@code main} (no {@code System.exit}, no
 * {@code stop}) exits by itself: Spark 3.5's non-daemon barrier timer no longer holds the JVM.
 */
class LgcEstimatorExitTest {

    /** This JVM's module options (what spark-submit adds on Java 17). */
    private static List<String> moduleOptions() {
        List<String> options = new ArrayList<>();
        for (String option : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (option.startsWith("--add-") || option.startsWith("-XX:+IgnoreUnrecognized")) {
                options.add(option);
            }
        }
        return options;
    }

    /** Starts {@link EstimatorExitProgram} in a JVM of its own with this JVM's class path and module options. */
    static Process start(Path stderr, Map<String, String> env, List<String> jvm, String... args) throws IOException {
        return start(EstimatorExitProgram.class, stderr, env, jvm, args);
    }

    /** Starts {@code program} in a JVM of its own with this JVM's class path and module options. */
    static Process start(Class<?> program, Path stderr, Map<String, String> env, List<String> jvm, String... args)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(moduleOptions());
        command.addAll(jvm);
        command.add("-Xmx1g");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(program.getName());
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(stderr.toFile());
        builder.environment().put("OMP_NUM_THREADS", "1");
        builder.environment().putAll(env);
        return builder.start();
    }

    /** Waits for "fit returned", then at most 10 s for the JVM to end; returns the non-daemon threads it printed. */
    private static String assertExitsAfterFit(Process program, Path stderr) throws Exception {
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(program.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    lines.add(line);
                }
            } catch (IOException e) {
                lines.add("read failed: " + e);
            }
        }, "exit-test-reader");
        reader.setDaemon(true);
        reader.start();
        List<String> seen = new ArrayList<>();
        String line;
        do {
            line = lines.poll(150, TimeUnit.SECONDS);
            assertNotNull(line, "the program printed no '" + EstimatorExitProgram.FIT_RETURNED + "' within 150 s"
                    + " (seen: " + seen + "); its stderr ends: " + tail(stderr));
            seen.add(line);
        } while (!line.equals(EstimatorExitProgram.FIT_RETURNED));
        long returned = System.nanoTime();
        boolean exited = program.waitFor(10, TimeUnit.SECONDS);
        assertTrue(exited, "the JVM still runs 10 s after main returned; its non-daemon threads were " + seen);
        assertEquals(0, program.exitValue());
        String threads = seen.get(seen.size() - 2);
        assertTrue(seen.contains(EstimatorExitProgram.EQUAL + "true"), "the estimator should train what"
                + " DistributedTrainer trains over the same partitions in one JVM: " + seen);
        System.out.printf("the program exited %d ms after '%s'; %s%n",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - returned), EstimatorExitProgram.FIT_RETURNED,
                threads);
        return threads;
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aDriverThatFitOnLocalModeShouldExitWithinTenSecondsOfReturningFromMain(@TempDir Path tmp)
            throws Exception {
        Path stderr = tmp.resolve("stderr.txt");
        Process program = start(stderr, Map.of(), List.of(), "local[2]", "estimator");
        try {
            String threads = assertExitsAfterFit(program, stderr);
            assertFalse(threads.contains(BarrierTimer.THREAD_NAME), threads);
        } finally {
            program.destroyForcibly();
        }
    }

    /**
     * The same on {@code local-cluster[2,1,1024]}: two executor JVMs (started from this class path through a
     * SPARK_HOME with an empty {@code jars/}), the driver running no task. About 40 s on 2 cores, so only with
     * {@code -Dlgc.spark.localCluster=true}.
     */
    @Test
    @EnabledIfSystemProperty(named = "lgc.spark.localCluster", matches = "true")
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void aDriverThatFitOnALocalClusterShouldExitWithinTenSecondsOfReturningFromMain(@TempDir Path tmp)
            throws Exception {
        Path stderr = tmp.resolve("stderr.txt");
        LocalCluster cluster = LocalCluster.in(tmp);
        Process program = start(EstimatorExitProgram.class, stderr, cluster.env(), cluster.jvm(),
                "local-cluster[2,1,1024]", "estimator");
        try {
            String threads = assertExitsAfterFit(program, stderr);
            assertEquals("non-daemon threads: []", threads);
        } finally {
            program.destroyForcibly();
        }
    }

    /**
     * What a driver JVM needs to start {@code local-cluster} executors from this class path: a SPARK_HOME with an empty
     * {@code jars/} (the executors' class path is this JVM's), this JVM's module options, 1 GB of ND4J memory each.
     */
    record LocalCluster(Map<String, String> env, List<String> jvm) {
        static LocalCluster in(Path tmp) throws IOException {
            Path home = tmp.resolve("spark-home");
            Files.createDirectories(home.resolve("jars"));
            Files.createFile(home.resolve("RELEASE"));
            String executorOptions = String.join(" ", moduleOptions()) + " -Dorg.bytedeco.javacpp.maxbytes=1G";
            return new LocalCluster(Map.of("SPARK_HOME", home.toString(), "SPARK_SCALA_VERSION", "2.12",
                    "SPARK_LOCAL_IP", "127.0.0.1"), List.of("-Dspark.executor.extraClassPath="
                    + System.getProperty("java.class.path"), "-Dspark.executor.extraJavaOptions=" + executorOptions,
                    "-Dspark.executor.memory=900m"));
        }
    }

    static String tail(Path file) throws IOException {
        if (!Files.exists(file)) {
            return "";
        }
        List<String> all = Files.readAllLines(file);
        return String.join("\n", all.subList(Math.max(0, all.size() - 15), all.size()));
    }
}

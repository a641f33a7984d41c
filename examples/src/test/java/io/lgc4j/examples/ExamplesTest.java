package io.lgc4j.examples;

import io.lgc4j.cli.LgcCommand;
import io.lgc4j.core.train.TrainingResult;

import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.util.ModelSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The examples as a user runs them, at a tiny budget: one JVM, then two processes through {@code lgc launch --}. */
class ExamplesTest {
    private static final Pattern LINE = Pattern.compile(
            "\\[rank (\\d)] endpoint (\\d): (\\d+) steps, test accuracy ([0-9.]+), .*, replicas (\\S+?)(,? model|$)",
            Pattern.MULTILINE);

    @TempDir
    static Path data;

    @BeforeAll
    static void writeData() throws IOException {
        MakeCsv.write(data, 2_000, 400, 7);
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void oneJvmAndTwoProcessesShouldTrainTheSameModel(@TempDir Path tmp) throws IOException, InterruptedException {
        TrainingResult inProcess = TrainOnCsv.train(data, 2, tmp.resolve("model.zip"));
        assertEquals(2 * (2_000 / 64), inProcess.stepCount());
        assertTrue(inProcess.finalAccuracy() > 0.6, "4 classes: chance is 0.25, found " + inProcess.finalAccuracy());
        assertEquals(1, inProcess.replicaChecksums().stream().distinct().count());
        MultiLayerNetwork saved = ModelSerializer.restoreMultiLayerNetwork(tmp.resolve("model.zip").toFile(), true);
        assertEquals(TrainOnCsv.model().numParams(), saved.numParams());

        String java = ProcessHandle.current().info().command().orElse("java");
        String classPath = System.getProperty("java.class.path");
        Path log = tmp.resolve("launch.log");
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx256m", "-cp", classPath, LgcCommand.class.getName(),
                "launch", "--nproc", "2", "--", java, "-Xmx512m", "-cp", classPath, TrainOnCsv.class.getName(),
                data.toString(), "2", tmp.resolve("launched.zip").toString()));
        Process launch = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            assertTrue(launch.waitFor(150, TimeUnit.SECONDS), "the launch did not end within 150 s");
        } finally {
            launch.destroyForcibly();
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        assertEquals(0, launch.exitValue(), output);
        Map<Integer, String> byRank = new TreeMap<>();
        Matcher m = LINE.matcher(output);
        while (m.find()) {
            assertEquals(m.group(1), m.group(2), output);
            assertEquals(String.valueOf(inProcess.stepCount()), m.group(3), output);
            assertEquals(inProcess.finalAccuracy(), Double.parseDouble(m.group(4)), 1e-4, output);
            byRank.put(Integer.parseInt(m.group(1)), m.group(5));
        }
        assertEquals(2, byRank.size(), output);
        for (String checksums : byRank.values()) {
            assertEquals(String.join(",", inProcess.replicaChecksums()), checksums, output);
        }
        assertTrue(Files.exists(tmp.resolve("launched.zip")), "rank 0 saves the model: " + output);
    }
}

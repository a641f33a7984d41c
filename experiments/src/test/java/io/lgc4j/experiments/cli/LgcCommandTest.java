package io.lgc4j.experiments.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The command line turns bad input into a clear message and exit status 2, before any training. */
class LgcCommandTest {
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private PrintStream originalErr;

    @BeforeEach
    void captureErr() {
        originalErr = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restoreErr() {
        System.setErr(originalErr);
    }

    @Test
    void shouldRejectUnknownYamlKeyNamingFileKeyAndAllowedKeys(@TempDir Path dir) throws IOException {
        Path config = dir.resolve("bad.yaml");
        Files.writeString(config, "run: {name: x}\ntraining: {wrokers: 4}\n");
        assertEquals(2, LgcCommand.execute("run", config.toString()));
        assertEquals("lgc: " + config + ": unknown key 'training.wrokers'; allowed keys under 'training':"
                + " batchSizePerWorker, epochs, evalEverySteps, maxSteps, workers", err.toString(StandardCharsets.UTF_8).trim());
    }

    @Test
    void shouldRejectZeroWorkers(@TempDir Path dir) throws IOException {
        Path config = dir.resolve("zero.yaml");
        Files.writeString(config, "run: {name: x}\ntraining: {workers: 0}\n");
        assertEquals(2, LgcCommand.execute("run", config.toString()));
        assertEquals("lgc: " + config + ": key 'training.workers' must be >= 1, found 0",
                err.toString(StandardCharsets.UTF_8).trim());
    }

    @Test
    void shouldRejectNonPositiveBatch(@TempDir Path dir) throws IOException {
        Path config = dir.resolve("batch.yaml");
        Files.writeString(config, "run: {name: x}\ntraining: {batchSizePerWorker: 0}\n");
        assertEquals(2, LgcCommand.execute("run", config.toString()));
        assertEquals("lgc: " + config + ": key 'training.batchSizePerWorker' must be > 0, found 0",
                err.toString(StandardCharsets.UTF_8).trim());
    }

    @Test
    void shouldSayHowToInstallAMissingDataset(@TempDir Path dir) throws IOException {
        Path config = dir.resolve("nodata.yaml");
        Files.writeString(config, "run: {name: x, outputDir: " + dir + "}\ndata: {path: " + dir.resolve("empty") + "}\n");
        assertEquals(2, LgcCommand.execute("run", config.toString()));
        String message = err.toString(StandardCharsets.UTF_8);
        assertTrue(message.contains(dir.resolve("empty").toString()), message);
        assertTrue(message.contains("apt-get install dataset-fashion-mnist"), message);
    }

    @Test
    void shouldRejectAnUnknownIndexCodec(@TempDir Path dir) throws IOException {
        Path config = dir.resolve("codec.yaml");
        Files.writeString(config, "run: {name: x}\ncompressor: {type: topk, codec: zip}\n");
        assertEquals(2, LgcCommand.execute("run", config.toString()));
        assertEquals("lgc: " + config + ": key 'compressor.codec' expects one of " + io.lgc4j.core.codec.IndexCodecs
                .names() + ", found \"zip\"", err.toString(StandardCharsets.UTF_8).trim());
    }

    @Test
    void shouldRejectAMissingConfigFile(@TempDir Path dir) {
        Path config = dir.resolve("absent.yaml");
        assertEquals(2, LgcCommand.execute("run", config.toString()));
        assertEquals("lgc: " + config + ": config file not found", err.toString(StandardCharsets.UTF_8).trim());
    }
}

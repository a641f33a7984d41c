package io.lgc4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lgc4j.bench.CompactVectorFile;
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

/**
 * {@code lgc record compact-vectors}, {@code lgc bench autoencoder} and {@code lgc bench ae-convergence}: a tiny
 * recording end to end, and bad input turned into a clear message and exit status 2.
 */
class AutoencoderCommandsTest {
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private PrintStream originalErr;
    private PrintStream originalOut;

    @BeforeEach
    void capture() {
        originalErr = System.err;
        originalOut = System.out;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restore() {
        System.setErr(originalErr);
        System.setOut(originalOut);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8).trim();
    }

    @Test
    void shouldRecordATinyRunWithItsSidecar(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("rec/cv.bin");
        assertEquals(0, LgcCommand.execute("record", "compact-vectors", "--warmup", "1", "--steps", "2", "--output",
                file.toString()), err());

        CompactVectorFile.Recording r = CompactVectorFile.readAll(file);
        assertEquals(new CompactVectorFile.Header(4, 427, 2), r.header());
        JsonNode side = new ObjectMapper().readTree(dir.resolve("rec/cv.bin.json").toFile());
        assertEquals(427, side.get("mu").asInt());
        assertEquals(4, side.get("learnedBlocks").size());
        assertEquals(3, side.get("meanLossPerStep").size());
        assertTrue(side.get("provenance").has("gitCommit"), side.toString());
        String table = out.toString(StandardCharsets.UTF_8);
        assertTrue(table.contains("| μ | | 427 |"), table);
    }

    @Test
    void shouldRejectZeroWorkersBeforeLoadingData() {
        assertEquals(2, LgcCommand.execute("record", "compact-vectors", "--workers", "0"));
        assertEquals("lgc: bad option: workers must be in [1, 65536], got 0", err());
    }

    @Test
    void shouldSayHowToInstallAMissingDataset(@TempDir Path dir) {
        assertEquals(2, LgcCommand.execute("record", "compact-vectors", "--data", dir.resolve("none").toString(),
                "--output", dir.resolve("cv.bin").toString()));
        assertTrue(err().contains("apt-get install dataset-fashion-mnist"), err());
    }

    @Test
    void shouldAskForWhatToBenchmark() {
        assertEquals(2, LgcCommand.execute("bench"));
        assertEquals("lgc: bench needs WHAT: dense, topk, compressors, codec, autoencoder, ae-convergence,"
                + " rate-distortion, transport or checkpoints (lgc bench WHAT --help)", err());
    }

    @Test
    void shouldRejectAnUnknownOptimizer() {
        assertEquals(2, LgcCommand.execute("bench", "ae-convergence", "--optimizer", "rmsprop"));
        assertTrue(err().startsWith("Invalid value for option '--optimizer': expected sgd or adam, found 'rmsprop'"),
                err());
    }

    @Test
    void shouldRejectAnEmptyMuList() {
        assertEquals(2, LgcCommand.execute("bench", "autoencoder", "--mu", "1000,-1"));
        assertEquals("lgc: bad option: mu must be a non-empty list of positive lengths, got [1000, -1]", err());
    }

    @Test
    void shouldSayHowToMakeAMissingRecording(@TempDir Path dir) {
        Path missing = dir.resolve("cv.bin");
        assertEquals(2, LgcCommand.execute("bench", "ae-convergence", "--recording", missing.toString()));
        assertEquals("lgc: recording " + missing + " not found; make one with: lgc record compact-vectors --output "
                + missing, err());
    }

    @Test
    void rateDistortionShouldNameTheMissingRecordingAndRefuseATrainingThatLeavesNothingToScore(@TempDir Path dir)
            throws IOException {
        Path missing = dir.resolve("cv.bin");
        assertEquals(2, LgcCommand.execute("bench", "rate-distortion", "--recording", missing.toString()));
        assertEquals("lgc: recording " + missing + " not found; make one with: lgc record compact-vectors --output "
                + missing, err());
        Path tiny = dir.resolve("tiny.bin");
        try (io.lgc4j.bench.CompactVectorFile.Writer w =
                     io.lgc4j.bench.CompactVectorFile.create(tiny, 2, 16, 3)) {
            for (int s = 0; s < 3; s++) {
                w.append(0, new float[][] {new float[16], new float[16]});
            }
        }
        assertEquals(2, LgcCommand.execute("bench", "rate-distortion", "--recording", tiny.toString(),
                "--train-steps", "3"));
        assertTrue(err().endsWith("lgc: " + tiny + ": trainSteps (3) must leave steps to score: the source holds 3 "
                + "steps"), err());
        assertEquals(2, LgcCommand.execute("bench", "rate-distortion", "--recording", tiny.toString(),
                "--channels", "0"));
        assertTrue(err().endsWith("lgc: bad option: channels must be a non-empty list of positive counts, got [0]"),
                err());
    }

    @Test
    void shouldRejectARecordingThatIsNotOne(@TempDir Path dir) throws IOException {
        Path bad = dir.resolve("cv.bin");
        Files.writeString(bad, "not a recording, but long enough for a header");
        assertEquals(2, LgcCommand.execute("bench", "ae-convergence", "--steps", "1", "--recording", bad.toString()));
        assertTrue(err().endsWith("lgc: cv.bin: expected magic \"LGCV\" ([76, 71, 67, 86]), found [110, 111, 116, 32]"),
                err());
    }
}

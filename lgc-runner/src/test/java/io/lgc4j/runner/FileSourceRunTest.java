package io.lgc4j.runner;

import io.lgc4j.data.FashionMnist;
import io.lgc4j.runner.config.ConfigLoader;
import io.lgc4j.runner.config.ExperimentConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** {@code data.source: files} in the runner: the same run as from memory, bit for bit; CSV runs; what is refused. */
class FileSourceRunTest {
    private static final int IMAGES = 1_000;

    @TempDir
    static Path data;

    /** The first 1,000 training images and labels uncompressed; the test split as installed (gzipped). */
    @BeforeAll
    static void uncompressAPrefix() throws IOException {
        assumeTrue(Files.isDirectory(FashionMnist.DEFAULT_DIR), "Fashion-MNIST not installed");
        FashionMnist.Split train = FashionMnist.Split.TRAIN;
        prefix(train.imagesFileName(), 0x803, 16, 784);
        prefix(train.labelsFileName(), 0x801, 8, 1);
        for (FashionMnist.Split split : List.of(FashionMnist.Split.TEST)) {
            for (String name : List.of(split.imagesFileName(), split.labelsFileName())) {
                Files.createSymbolicLink(data.resolve(name + ".gz"), FashionMnist.DEFAULT_DIR.resolve(name + ".gz"));
            }
        }
    }

    private static void prefix(String name, int magic, int header, int record) throws IOException {
        try (InputStream raw = Files.newInputStream(FashionMnist.DEFAULT_DIR.resolve(name + ".gz"));
             DataInputStream in = new DataInputStream(new GZIPInputStream(raw))) {
            in.skipNBytes(header);
            ByteBuffer file = ByteBuffer.allocate(header + IMAGES * record).putInt(magic).putInt(IMAGES);
            if (record > 1) {
                file.putInt(28).putInt(28);
            }
            in.readFully(file.array(), header, IMAGES * record);
            Files.write(data.resolve(name), file.array());
        }
    }

    private static ExperimentConfig config(Path out, String data) {
        return ConfigLoader.parse("""
                run: {name: files, seed: 7, outputDir: %s}
                data: %s
                model: {name: tiny-cnn}
                training: {workers: 2, batchSizePerWorker: 16, epochs: 1, maxSteps: 20, evalEverySteps: 10}
                topology: {type: ring}
                """.formatted(out, data), "files.yaml");
    }

    @Test
    void aRunFromTheIdxFilesShouldEqualTheRunFromMemory(@TempDir Path out) throws IOException {
        String fashion = "{path: " + data + ", trainLimit: 640, testLimit: 200, source: %s, prefetch: %d}";
        ExperimentRunner.RunOutcome memory = new ExperimentRunner().run(config(out,
                fashion.formatted("memory", 2)), "files.yaml", List.of());
        ExperimentRunner.RunOutcome files = new ExperimentRunner().run(config(out,
                fashion.formatted("files", 0)), "files.yaml", List.of());
        assertEquals(20, files.summary().steps());
        assertEquals(memory.summary().replicaChecksums(), files.summary().replicaChecksums());
        assertEquals(memory.result().finalAccuracy(), files.result().finalAccuracy());
    }

    /** The first {@code n} training images from {@code from} as CSV rows, the label first, under a header. */
    private static String csvRows(int from, int n) throws IOException {
        byte[] images = Files.readAllBytes(data.resolve(FashionMnist.Split.TRAIN.imagesFileName()));
        byte[] labels = Files.readAllBytes(data.resolve(FashionMnist.Split.TRAIN.labelsFileName()));
        StringBuilder csv = new StringBuilder("label,pixels...\n");
        for (int i = from; i < from + n; i++) {
            csv.append(labels[8 + i]);
            for (int p = 0; p < 784; p++) {
                csv.append(',').append(Byte.toUnsignedInt(images[16 + i * 784 + p]) / 255.0);
            }
            csv.append('\n');
        }
        return csv.toString();
    }

    @Test
    void aCsvRunShouldEvaluateOnItsTestPathAndSayWhenItHasNone(@TempDir Path out) throws IOException {
        Path dir = Files.createDirectories(out.resolve("csv"));
        Files.writeString(dir.resolve("train.csv"), csvRows(0, 640));
        Path test = Files.createDirectories(out.resolve("csv-test")).resolve("test.csv");
        Files.writeString(test, csvRows(640, 200));
        String csv = "{dataset: csv, source: files, path: " + dir + ", csv: {labelColumn: 0, classes: 10,"
                + " skipLines: 1}";
        ExperimentRunner.RunOutcome run = new ExperimentRunner().run(config(out.resolve("results"),
                csv + "}"), "files.yaml", List.of());
        assertEquals(20, run.summary().steps());
        assertTrue(Double.isNaN(run.result().finalAccuracy()), "no test data: " + run.result().finalAccuracy());
        assertEquals("not evaluated (no test data: set data.testPath)",
                ExperimentRunner.accuracy(run.result().finalAccuracy()));
        assertTrue(Files.isRegularFile(run.directory().resolve("summary.json")));

        ExperimentRunner.RunOutcome evaluated = new ExperimentRunner().run(config(out.resolve("results"),
                csv + ", testPath: " + test + ", testLimit: 150}"), "files.yaml", List.of());
        double accuracy = evaluated.result().finalAccuracy();
        assertTrue(accuracy > 0.1 && Math.abs(accuracy * 150 - Math.rint(accuracy * 150)) < 1e-9, "150 test rows evaluated: "
                + accuracy);
        assertEquals(run.summary().replicaChecksums(), evaluated.summary().replicaChecksums(),
                "evaluating changes no bit of training");
    }

    @Test
    void filesShouldNotBeGzipped(@TempDir Path out) throws IOException {
        RunInputException e = assertThrows(RunInputException.class, () -> new ExperimentRunner().run(config(out,
                "{path: " + FashionMnist.DEFAULT_DIR + ", source: files}"), "files.yaml", List.of()));
        assumeTrue(!Files.isRegularFile(FashionMnist.DEFAULT_DIR.resolve("train-images-idx3-ubyte")));
        assertEquals("data.source files streams the uncompressed IDX files, but " + FashionMnist.DEFAULT_DIR
                + "/train-images-idx3-ubyte is missing (only train-images-idx3-ubyte.gz is there): gunzip it"
                + " (gunzip -k keeps the .gz), or use data.source: memory", e.getMessage());
    }

    @Test
    void aBadCsvShouldBeARunInputError(@TempDir Path out) throws IOException {
        Path dir = Files.createDirectories(out.resolve("empty"));
        RunInputException e = assertThrows(RunInputException.class, () -> new ExperimentRunner().run(config(
                out.resolve("results"), "{dataset: csv, source: files, path: " + dir
                        + ", csv: {labelColumn: 0, classes: 10}}"), "files.yaml", List.of()));
        assertEquals("cannot train on " + dir + ": csv " + dir + ": the directory holds no files", e.getMessage());
        assertTrue(!Files.exists(out.resolve("results")), "a refused run leaves no directory");
    }
}

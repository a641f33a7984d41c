package io.lgc4j.datasource;

import io.lgc4j.core.data.DataCheck;
import io.lgc4j.core.data.DataSource;
import io.lgc4j.core.data.DataSourceContract;
import io.lgc4j.core.data.MemorySource;
import io.lgc4j.core.data.Shard;
import io.lgc4j.core.train.DistributedTrainer;
import io.lgc4j.core.train.ReplicaModel;
import io.lgc4j.core.train.TestModels;
import io.lgc4j.data.FashionMnist;
import io.lgc4j.data.PixelPreprocessing;
import io.lgc4j.ring.topology.RingTopology;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.factory.Nd4j;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class CsvSourceTest extends DataSourceContract {
    @TempDir
    Path dir;

    /**
     * Example i is the line {@code i,i/4,class,7.5} with class i mod 3, spread over files that test the row numbers:
     * a header in each, "part-10" before "part-2" (name order, not number order), an empty file, CRLF line ends, a
     * blank line and a last line without a line break.
     */
    @Override
    protected DataSource source(int examples) throws IOException {
        Path data = Files.createDirectories(dir.resolve("numbered-" + examples));
        int first = examples / 3;
        int second = 2 * examples / 3;
        StringBuilder a = new StringBuilder("id,quarter,class,constant\n");
        StringBuilder b = new StringBuilder("id,quarter,class,constant\r\n");
        StringBuilder c = new StringBuilder("id,quarter,class,constant\n");
        for (int i = 0; i < examples; i++) {
            String line = i + "," + i / 4f + "," + i % 3 + ",7.5";
            if (i < first) {
                a.append(line).append('\n');
            } else if (i < second) {
                b.append(line).append("\r\n");
                if (i == first + 1) {
                    b.append("\r\n");
                }
            } else {
                c.append(line).append(i == examples - 1 ? "" : "\n");
            }
        }
        Files.writeString(data.resolve("part-10.csv"), a);
        Files.writeString(data.resolve("part-11.csv"), "id,quarter,class,constant\n");
        Files.writeString(data.resolve("part-2.csv"), b);
        Files.writeString(data.resolve("part-3.csv"), c);
        Files.writeString(data.resolve(".lgc-hidden"), "not,data\n");
        return CsvSource.in(data).label(2, 3).skipLines(1);
    }

    @Test
    void rowsShouldBeNumberedInFileNameOrder() throws Exception {
        try (DataSource source = source(30)) {
            DataSet all = source.open(new Shard(0, 1, 30, 0, 0, 5)).next();
            float[] features = TestFiles.floats(all.getFeatures());
            float[] labels = TestFiles.floats(all.getLabels());
            assertEquals(90, features.length, "3 features a row: the label column is not one");
            for (int row = 0; row < 30; row++) {
                int id = (int) features[3 * row];
                assertEquals(id / 4f, features[3 * row + 1]);
                assertEquals(7.5f, features[3 * row + 2]);
                assertEquals(1f, labels[3 * row + id % 3], "one-hot class of example " + id);
            }
            assertEquals("csv " + dir.resolve("numbered-30") + " (4 files, 30 rows, 4 columns, label column 2, 3"
                    + " classes)", source.describe());
        }
    }

    @Test
    void batchesShouldBeBitEqualToFashionMnistInMemory() throws Exception {
        assumeTrue(Files.isDirectory(FashionMnist.DEFAULT_DIR), "Fashion-MNIST not installed");
        int n = 2_000;
        FashionMnist.Split split = FashionMnist.Split.TRAIN;
        byte[] pixels = TestFiles.fashionMnistPrefix(TestFiles.fashionMnistFile(split.imagesFileName()), 16, 784, n);
        byte[] labels = TestFiles.fashionMnistPrefix(TestFiles.fashionMnistFile(split.labelsFileName()), 8, 1, n);
        Path data = Files.createDirectories(dir.resolve("fashion"));
        // raw bytes as integers (R4: no decimals), the label last, two files
        for (int part = 0; part < 2; part++) {
            StringBuilder csv = new StringBuilder();
            for (int i = part * n / 2; i < (part + 1) * n / 2; i++) {
                for (int p = 0; p < 784; p++) {
                    csv.append(Byte.toUnsignedInt(pixels[i * 784 + p])).append(',');
                }
                csv.append(labels[i]).append('\n');
            }
            Files.writeString(data.resolve("part-" + part + ".csv"), csv);
        }
        PixelPreprocessing standardize = PixelPreprocessing.STANDARDIZE;
        MemorySource memory = MemorySource.of(FashionMnist.load(FashionMnist.DEFAULT_DIR, split, n, standardize)
                .toDataSet());
        try (CsvSource files = CsvSource.in(data).label(784, 10).preProcessor(TestFiles.pixels(standardize))) {
            assertEquals(n, files.plan(2, 32).examples());
            assertEquals(memory.plan(2, 32).stepsPerEpoch(), files.plan(2, 32).stepsPerEpoch());
            for (int rank = 0; rank < 2; rank++) {
                Shard shard = new Shard(rank, 2, 32, 1, 0, 42);
                DataSetIterator expected = memory.open(shard);
                DataSetIterator actual = files.open(shard);
                for (int step = 0; expected.hasNext(); step++) {
                    TestFiles.assertBitEqual(expected.next(), actual.next(), "rank " + rank + " step " + step);
                }
                assertFalse(actual.hasNext());
            }
        }
    }

    @Test
    void trainingFromCsvShouldEqualTrainingFromMemory() throws Exception {
        // integer features (R4), 160 examples: K = 2, b = 8, 10 steps an epoch, 2 epochs
        Random random = new Random(3);
        int n = 160;
        float[] x = new float[n * 8];
        float[] y = new float[n * 3];
        StringBuilder csv = new StringBuilder("f0,f1,f2,class,f3,f4,f5,f6,f7\n");
        for (int i = 0; i < n; i++) {
            int c = random.nextInt(3);
            List<String> fields = new ArrayList<>();
            for (int j = 0; j < 8; j++) {
                x[i * 8 + j] = Math.round(random.nextGaussian() * 4 + (j % 3 == c ? 6 : 0));
                fields.add(Integer.toString((int) x[i * 8 + j]));
            }
            fields.add(3, Integer.toString(c));
            y[i * 3 + c] = 1;
            csv.append(String.join(",", fields)).append('\n');
        }
        Files.writeString(dir.resolve("train.csv"), csv, StandardCharsets.UTF_8);
        DataSet data = new DataSet(Nd4j.create(x, new long[] {n, 8}, DataType.FLOAT),
                Nd4j.create(y, new long[] {n, 3}, DataType.FLOAT));

        List<ReplicaModel> fromMemory = train(MemorySource.of(data));
        List<ReplicaModel> fromCsv = train(CsvSource.in(dir.resolve("train.csv")).label(3, 3).skipLines(1));
        assertEquals(2, fromCsv.size());
        float[] start = TestFiles.floats(TestModels.mlp(11).params());
        for (int rank = 0; rank < 2; rank++) {
            float[] expected = TestFiles.floats(fromMemory.get(rank).model().params());
            assertArrayEquals(expected, TestFiles.floats(fromCsv.get(rank).model().params()), "rank " + rank);
            assertFalse(Arrays.equals(start, expected), "the model should have trained");
        }
    }

    private static List<ReplicaModel> train(DataSource source) throws IOException {
        try (source) {
            DistributedTrainer trainer = DistributedTrainer.builder().model(TestModels.mlp(11)).data(source)
                    .workers(2).batchSizePerWorker(8).seed(42).topology(new RingTopology()).build();
            assertEquals(10, trainer.stepsPerEpoch());
            trainer.fit(2);
            return trainer.replicas();
        }
    }

    // ---- bad input: every message names what is wrong and where

    private UncheckedIOException planFails(CsvSource source) {
        return assertThrows(UncheckedIOException.class, () -> source.plan(1, 1));
    }

    private String batchFails(CsvSource source) {
        DataSetIterator all = source.open(new Shard(0, 1, 1, 0, 0, 1));
        String message = null;
        while (all.hasNext() && message == null) {
            try {
                all.next();
            } catch (UncheckedIOException e) {
                message = e.getMessage();
            }
        }
        assertTrue(message != null, "no batch failed");
        String prefix = ": cannot read rank 0's batch of step ";
        return message.substring(message.indexOf(": ", message.indexOf(prefix) + prefix.length()) + 2);
    }

    @Test
    void missingOrEmptyDataShouldBeRefused() throws Exception {
        Path none = dir.resolve("none");
        assertEquals(none + ": the csv data does not exist", planFails(CsvSource.in(none).label(0, 2)).getMessage());
        Path empty = Files.createDirectories(dir.resolve("empty"));
        assertEquals("csv " + empty + ": the directory holds no files",
                planFails(CsvSource.in(empty).label(0, 2)).getMessage());
        Files.writeString(empty.resolve("a.csv"), "x,y\n\n");
        Files.writeString(empty.resolve("b.csv"), "x,y\n");
        assertEquals("csv " + empty + ": no rows in 2 files after skipping 1 lines of each",
                planFails(CsvSource.in(empty).label(0, 2).skipLines(1)).getMessage());
        Files.writeString(empty.resolve("c.csv.gz"), "x");
        assertEquals(empty.resolve("c.csv.gz") + ": CSV streaming needs uncompressed files (gunzip it), or use"
                + " data.source: memory", planFails(CsvSource.in(empty).label(0, 2)).getMessage());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> CsvSource.in(empty).plan(1, 1));
        assertEquals("csv " + empty + ": say which column holds the label and how many classes there are, with"
                + " label(column, classes)", e.getMessage());
    }

    @Test
    void aLabelColumnBeyondTheRowShouldBeRefused() throws Exception {
        Files.writeString(dir.resolve("d.csv"), "# header\n1,2,0\n");
        assertEquals(dir.resolve("d.csv") + " line 2: label column 3 is outside its 3 columns (counted from 0)",
                planFails(CsvSource.in(dir.resolve("d.csv")).label(3, 2).skipLines(1)).getMessage());
    }

    @Test
    void badRowsShouldNameFileLineAndColumn() throws Exception {
        Path data = Files.createDirectories(dir.resolve("data"));
        Files.writeString(data.resolve("part-1.csv"), "1,2,0\n3,4,1\n");
        StringBuilder bad = new StringBuilder("a,b,label\n");
        for (int i = 0; i < 15; i++) {
            bad.append(i).append(",1,0\n");
        }
        Files.writeString(data.resolve("part-2.csv"), bad + "5,6,7,0\n");
        assertEquals(data.resolve("part-2.csv") + " line 17: 4 columns, expected 3",
                batchFails(CsvSource.in(data).label(2, 2).skipLines(1)));
        // skipLines(1) also skipped part-1's first row: the header is per file

        Files.writeString(data.resolve("part-2.csv"), bad + "5,six,0\n");
        assertEquals(data.resolve("part-2.csv") + " line 17, column 1 (from 0): \"six\" is not a number",
                batchFails(CsvSource.in(data).label(2, 2).skipLines(1)));

        Files.writeString(data.resolve("part-2.csv"), bad + "5,NaN,0\n");
        assertEquals(data.resolve("part-2.csv") + " line 17, column 1 (from 0): \"NaN\" is not a finite number",
                batchFails(CsvSource.in(data).label(2, 2).skipLines(1)));

        Files.writeString(data.resolve("part-2.csv"), bad + "5,6,2\n");
        assertEquals(data.resolve("part-2.csv") + " line 17: label \"2\" in column 2 is not a class in [0, 2)",
                batchFails(CsvSource.in(data).label(2, 2).skipLines(1)));

        Files.writeString(data.resolve("part-2.csv"), bad + "5,6,0.5\n");
        assertEquals(data.resolve("part-2.csv") + " line 17: label \"0.5\" in column 2 is not a class in [0, 2)",
                batchFails(CsvSource.in(data).label(2, 2).skipLines(1)));
    }

    /** 200 rows "i,1,c" in two files; the last row of the second reads {@code last}. */
    private Path twoHundredRows(String last) throws IOException {
        Path data = Files.createDirectories(dir.resolve("rows"));
        StringBuilder a = new StringBuilder();
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 200; i++) {
            (i < 100 ? a : b).append(i == 199 ? last : i + ",1," + i % 2).append('\n');
        }
        Files.writeString(data.resolve("part-1.csv"), a);
        Files.writeString(data.resolve("part-2.csv"), b);
        return data;
    }

    @Test
    void theCheckShouldReadEachShareOnceAndNameTheFirstBadRow() throws Exception {
        Path data = twoHundredRows("199,1,1");
        try (CsvSource good = CsvSource.in(data).label(2, 2)) {
            long rows = 0;
            for (int r = 0; r < 3; r++) {
                rows += good.check(r, 3, DataCheck.FULL);
            }
            assertEquals(200, rows, "every row once");
            assertEquals(0, good.check(0, 3, DataCheck.NONE));
        }
        Files.writeString(data.resolve("part-2.csv"), Files.readString(data.resolve("part-2.csv"))
                .replace("199,1,1", "199,six,1"));
        try (CsvSource bad = CsvSource.in(data).label(2, 2)) {
            assertEquals(66, bad.check(0, 3, DataCheck.FULL), "rows 0 to 65: nothing wrong");
            for (DataCheck how : new DataCheck[] {DataCheck.FULL, DataCheck.SAMPLE}) {
                IOException e = assertThrows(IOException.class, () -> bad.check(2, 3, how));
                assertTrue(e.getMessage().startsWith("checking rows 133 to 199 of csv " + data + " ("),
                        e.getMessage());
                assertTrue(e.getMessage().endsWith("(share 2 of 3, " + how.configName() + "): "
                        + data.resolve("part-2.csv") + " line 100, column 1 (from 0): \"six\" is not a number"),
                        e.getMessage());
            }
        }
    }

    @Test
    void aBadLastRowShouldFailTheRunBeforeStepZero() throws Exception {
        Path data = twoHundredRows("199,1,7");
        java.util.List<Integer> steps = new java.util.ArrayList<>();
        io.lgc4j.core.train.TrainingListener count = m -> steps.add(m.step());
        try (CsvSource source = CsvSource.in(data).label(2, 2)) {
            DistributedTrainer trainer = DistributedTrainer.builder().model(twoByTwo()).data(source)
                    .workers(2).batchSizePerWorker(8).seed(42).topology(new RingTopology()).listener(count).build();
            RuntimeException e = assertThrows(RuntimeException.class, () -> trainer.fit(1));
            assertTrue(e.getMessage().contains("training failed: rank 1 failed: checking rows 100 to 199 of csv "
                    + data) && e.getMessage().contains(data.resolve("part-2.csv") + " line 100: label \"7\" in"
                    + " column 2 is not a class in [0, 2)"), e.getMessage());
            assertEquals(List.of(), steps, "no step ran");
        }
        try (CsvSource source = CsvSource.in(data).label(2, 2)) {
            DistributedTrainer unchecked = DistributedTrainer.builder().model(twoByTwo()).data(source)
                    .workers(2).batchSizePerWorker(8).seed(42).topology(new RingTopology()).listener(count)
                    .checkData(DataCheck.NONE).build();
            RuntimeException e = assertThrows(RuntimeException.class, () -> unchecked.fit(1));
            assertTrue(e.getMessage().contains("line 100: label \"7\""), e.getMessage());
            assertFalse(steps.isEmpty(), "without the check, the bad row is found when its batch is read");
        }
    }

    /** 2 features → 4 → 2 classes. */
    private static org.deeplearning4j.nn.multilayer.MultiLayerNetwork twoByTwo() {
        var net = new org.deeplearning4j.nn.multilayer.MultiLayerNetwork(
                new org.deeplearning4j.nn.conf.NeuralNetConfiguration.Builder().seed(3).dataType(DataType.FLOAT)
                        .list()
                        .layer(new org.deeplearning4j.nn.conf.layers.DenseLayer.Builder().nIn(2).nOut(4).build())
                        .layer(new org.deeplearning4j.nn.conf.layers.OutputLayer.Builder().nIn(4).nOut(2)
                                .activation(org.nd4j.linalg.activations.Activation.SOFTMAX).build())
                        .build());
        net.init();
        return net;
    }

    @Test
    void otherDelimitersAndQuotesShouldBeDataVecs() throws Exception {
        Files.writeString(dir.resolve("semi.csv"), "\"1\";2;1\n3;\"4\";0\n");
        try (CsvSource source = CsvSource.in(dir.resolve("semi.csv")).delimiter(';').label(2, 2)) {
            DataSet all = source.open(new Shard(0, 1, 2, 0, 0, 1)).next();
            float[] features = TestFiles.floats(all.getFeatures());
            assertTrue(Arrays.equals(features, new float[] {1, 2, 3, 4})
                    || Arrays.equals(features, new float[] {3, 4, 1, 2}), Arrays.toString(features));
            assertNotEquals(0, source.plan(1, 2).fingerprint());
        }
    }

    @Test
    void aLimitShouldStopTheScan() throws Exception {
        try (DataSource whole = source(103);
             CsvSource limited = CsvSource.in(dir.resolve("numbered-103")).label(2, 3).skipLines(1).limit(40)) {
            assertEquals(40, limited.plan(2, 4).examples());
            assertNotEquals(whole.plan(2, 4).fingerprint(), limited.plan(2, 4).fingerprint());
            for (int[] batch : read(limited, new Shard(1, 2, 4, 0, 0, 42))) {
                for (int id : batch) {
                    assertTrue(id < 40, "example " + id);
                }
            }
        }
    }
}

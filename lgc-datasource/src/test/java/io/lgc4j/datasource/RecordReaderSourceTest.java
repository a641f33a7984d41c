package io.lgc4j.datasource;

import io.lgc4j.core.data.DataCheck;
import io.lgc4j.core.data.DataSource;
import io.lgc4j.core.data.DataSourceContract;
import io.lgc4j.core.data.MemorySource;
import io.lgc4j.core.data.Shard;
import io.lgc4j.core.train.DistributedTrainer;
import io.lgc4j.core.train.ReplicaModel;
import io.lgc4j.core.train.TrainingListener;
import io.lgc4j.ring.topology.RingTopology;

import org.datavec.api.conf.Configuration;
import org.datavec.api.io.labels.ParentPathLabelGenerator;
import org.datavec.api.io.labels.PathLabelGenerator;
import org.datavec.api.records.reader.RecordReader;
import org.datavec.api.records.reader.impl.FileRecordReader;
import org.datavec.api.records.reader.impl.csv.CSVRecordReader;
import org.datavec.api.records.reader.impl.csv.CSVSequenceRecordReader;
import org.datavec.api.split.CollectionInputSplit;
import org.datavec.api.split.FileSplit;
import org.datavec.api.split.ListStringSplit;
import org.datavec.api.writable.Text;
import org.datavec.api.writable.Writable;
import org.datavec.image.recordreader.ImageRecordReader;
import org.deeplearning4j.datasets.datavec.RecordReaderDataSetIterator;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.dataset.api.preprocessor.ImagePreProcessingScaler;
import org.nd4j.linalg.learning.config.Nesterovs;
import org.nd4j.linalg.lossfunctions.LossFunctions;

import java.awt.image.BufferedImage;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import javax.imageio.ImageIO;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A DL4J user's image pipeline — DataVec's {@code ImageRecordReader} with a {@code ParentPathLabelGenerator} over a
 * {@code FileSplit} of a folder per class — as the trainer's data source.
 */
class RecordReaderSourceTest extends DataSourceContract {
    /** The image tree's classes: its folder names, which the reader sorts. */
    private static final List<String> CLASSES = List.of("cat", "dog", "fox");
    private static final int PER_CLASS = 20;
    private static final int SIDE = 4;

    @TempDir
    Path dir;

    /** The user's reader: grey images of SIDE × SIDE, labelled by their folder. */
    private static ImageRecordReader imageReader() {
        return new ImageRecordReader(SIDE, SIDE, 1, new ParentPathLabelGenerator());
    }

    /**
     * A grey PNG whose first pixel is {@code first} and whose other pixels are noise, brighter in the class's own
     * column band: something to learn.
     */
    private static void png(Path file, int first, int classIndex, Random random) throws IOException {
        BufferedImage image = new BufferedImage(SIDE, SIDE, BufferedImage.TYPE_BYTE_GRAY);
        for (int y = 0; y < SIDE; y++) {
            for (int x = 0; x < SIDE; x++) {
                int value = random.nextInt(100) + (x == classIndex + 1 ? 150 : 0);
                image.getRaster().setSample(x, y, 0, x == 0 && y == 0 ? first : value);
            }
        }
        Files.createDirectories(file.getParent());
        assertTrue(ImageIO.write(image, "png", file.toFile()), "a PNG writer");
    }

    /**
     * {@code train/<class>/img-NN.png}: 3 classes × 20 images. In URI order cat's come first, so image {@code n} of
     * class {@code c} is example {@code 20·c + n}, which its first pixel holds.
     */
    private Path imageTree() throws IOException {
        Path train = dir.resolve("train");
        Random random = new Random(7);
        for (int c = 0; c < CLASSES.size(); c++) {
            for (int n = 0; n < PER_CLASS; n++) {
                png(train.resolve(CLASSES.get(c)).resolve(String.format("img-%02d.png", n)), c * PER_CLASS + n, c,
                        random);
            }
        }
        return train;
    }

    /** Example i is image i of {@code numbered-N/c<class>/}, classes in blocks, its first pixel i (contract). */
    @Override
    protected DataSource source(int examples) throws IOException {
        Path data = dir.resolve("numbered-" + examples);
        Random random = new Random(examples);
        for (int i = 0; i < examples; i++) {
            int c = i * 3 / examples;
            png(data.resolve("c" + c).resolve(String.format("img-%04d.png", i)), i, c, random);
        }
        return RecordReaderSource.of(RecordReaderSourceTest::imageReader,
                new FileSplit(data.toFile())).label(1, 3);
    }

    private static RecordReaderSource imageSource(Path train) {
        return RecordReaderSource.of(RecordReaderSourceTest::imageReader, new FileSplit(train.toFile())).label(1, 3);
    }

    @Test
    void examplesShouldBeTheFilesInUriOrderLabelledByTheirFolder() throws Exception {
        Path train = imageTree();
        try (RecordReaderSource source = imageSource(train)) {
            assertEquals(60, source.plan(2, 8).examples());
            assertEquals(3, source.plan(2, 8).stepsPerEpoch(), "⌊60 / (2 × 8)⌋");
            assertEquals(5, source.plan(3, 4).stepsPerEpoch(), "⌊60 / (3 × 4)⌋");
            assertEquals("records of ImageRecordReader from 60 files under " + train + " (label at 1, 3 classes)",
                    source.describe());
            DataSet all = source.inOrder(60).next();
            assertArrayEquals(new long[] {60, 1, SIDE, SIDE}, all.getFeatures().shape(), "[b, c, h, w]");
            assertArrayEquals(new long[] {60, 3}, all.getLabels().shape());
            assertEquals(DataType.FLOAT, all.getFeatures().dataType());
            int[] ids = ids(all);
            float[] labels = TestFiles.floats(all.getLabels());
            for (int i = 0; i < 60; i++) {
                assertEquals(i, ids[i], "example " + i + " is the file at position " + i + " in URI order");
                assertEquals(1f, labels[3 * i + i / PER_CLASS], "one-hot class of example " + i);
            }
        }
    }

    @Test
    void theNumberingShouldNotDependOnTheSplitsOrderOrWhereTheFolderIs() throws Exception {
        Path train = imageTree();
        List<URI> reversed = new ArrayList<>(Arrays.asList(new FileSplit(train.toFile()).locations()));
        reversed.sort((a, b) -> b.toString().compareTo(a.toString()));
        Path copy = dir.resolve("elsewhere").resolve("train");
        for (URI uri : reversed) {
            Path file = copy.resolve(train.relativize(Path.of(uri)));
            Files.createDirectories(file.getParent());
            Files.copy(Path.of(uri), file);
        }
        try (RecordReaderSource listed = imageSource(train);
             RecordReaderSource backwards = RecordReaderSource.of(imageReader(), new CollectionInputSplit(reversed))
                     .label(1, 3);
             RecordReaderSource moved = imageSource(copy)) {
            long fingerprint = listed.plan(2, 8).fingerprint();
            assertEquals(fingerprint, backwards.plan(2, 8).fingerprint());
            assertEquals(fingerprint, moved.plan(2, 8).fingerprint(), "the names below the folder, not the folder");
            TestFiles.assertBitEqual(listed.inOrder(60).next(), backwards.inOrder(60).next(), "reversed split");
            TestFiles.assertBitEqual(listed.inOrder(60).next(), moved.inOrder(60).next(), "copied folder");
            Files.delete(copy.resolve("fox").resolve("img-19.png"));
            try (RecordReaderSource fewer = imageSource(copy)) {
                assertTrue(fingerprint != fewer.plan(2, 8).fingerprint(), "another file list");
            }
        }
    }

    @Test
    void everyImageShouldBeReadOncePerEpochOverTheRanks() throws Exception {
        try (RecordReaderSource source = imageSource(imageTree())) {
            for (int epoch = 0; epoch < 2; epoch++) {
                Set<Integer> seen = new HashSet<>();
                for (int rank = 0; rank < 3; rank++) {
                    DataSetIterator batches = source.open(new Shard(rank, 3, 4, epoch, 0, 42));
                    int steps = 0;
                    while (batches.hasNext()) {
                        DataSet batch = batches.next();
                        float[] labels = TestFiles.floats(batch.getLabels());
                        int[] ids = ids(batch);
                        for (int i = 0; i < ids.length; i++) {
                            assertTrue(seen.add(ids[i]), "example " + ids[i] + " read twice in epoch " + epoch);
                            assertEquals(1f, labels[3 * i + ids[i] / PER_CLASS], "class of example " + ids[i]);
                        }
                        steps++;
                    }
                    assertEquals(5, steps, "rank " + rank + "'s steps");
                }
                assertEquals(60, seen.size(), "every image once in epoch " + epoch);
            }
        }
    }

    /**
     * The user's own pipeline over the same files in the same (URI) order: {@code RecordReaderDataSetIterator} over
     * an {@code ImageRecordReader}, scaled by {@code ImagePreProcessingScaler}, all 60 examples in one data set.
     */
    private static DataSet throughRecordReaderDataSetIterator(Path train) throws Exception {
        URI[] sorted = new FileSplit(train.toFile()).locations();
        Arrays.sort(sorted, (a, b) -> a.toString().compareTo(b.toString()));
        ImageRecordReader reader = imageReader();
        reader.initialize(new CollectionInputSplit(sorted));
        DataSetIterator iterator = new RecordReaderDataSetIterator(reader, 60, 1, 3);
        iterator.setPreProcessor(new ImagePreProcessingScaler());
        DataSet all = iterator.next();
        assertFalse(iterator.hasNext());
        return all;
    }

    @Test
    void batchesShouldBeBitEqualToTheUsersRecordReaderDataSetIterator() throws Exception {
        Path train = imageTree();
        MemorySource memory = MemorySource.of(throughRecordReaderDataSetIterator(train));
        try (RecordReaderSource files = imageSource(train).preProcessor(new ImagePreProcessingScaler())) {
            assertEquals(memory.plan(2, 8).stepsPerEpoch(), files.plan(2, 8).stepsPerEpoch());
            for (int rank = 0; rank < 2; rank++) {
                Shard shard = new Shard(rank, 2, 8, 1, 0, 42);
                DataSetIterator expected = memory.open(shard);
                DataSetIterator actual = files.open(shard);
                for (int step = 0; expected.hasNext(); step++) {
                    TestFiles.assertBitEqual(expected.next(), actual.next(), "rank " + rank + " step " + step);
                }
                assertFalse(actual.hasNext());
            }
        }
    }

    /** A 4 × 4 grey image → 3×3 convolution, 4 channels → 3 classes. */
    private static MultiLayerNetwork convNet() {
        MultiLayerNetwork net = new MultiLayerNetwork(new NeuralNetConfiguration.Builder().seed(5)
                .dataType(DataType.FLOAT).updater(new Nesterovs(0.05, 0.9)).weightInit(WeightInit.XAVIER).list()
                .layer(new ConvolutionLayer.Builder(3, 3).nOut(4).activation(Activation.RELU).build())
                .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nOut(3)
                        .activation(Activation.SOFTMAX).build())
                .setInputType(InputType.convolutional(SIDE, SIDE, 1)).build());
        net.init();
        return net;
    }

    private static List<ReplicaModel> train(DataSource source) throws IOException {
        try (source) {
            DistributedTrainer trainer = DistributedTrainer.builder().model(convNet()).data(source).workers(2)
                    .batchSizePerWorker(8).seed(42).topology(new RingTopology()).build();
            assertEquals(3, trainer.stepsPerEpoch());
            trainer.fit(2);
            return trainer.replicas();
        }
    }

    @Test
    void trainingFromImagesShouldEqualTrainingFromMemory() throws Exception {
        Path train = imageTree();
        List<ReplicaModel> fromMemory = train(MemorySource.of(throughRecordReaderDataSetIterator(train)));
        List<ReplicaModel> readerPerThread = train(imageSource(train).preProcessor(new ImagePreProcessingScaler()));
        List<ReplicaModel> oneReader = train(RecordReaderSource.of(imageReader(), new FileSplit(train.toFile()))
                .label(1, 3).preProcessor(new ImagePreProcessingScaler()));
        float[] start = TestFiles.floats(convNet().params());
        for (int rank = 0; rank < 2; rank++) {
            float[] expected = TestFiles.floats(fromMemory.get(rank).model().params());
            assertFalse(Arrays.equals(start, expected), "the model should have trained");
            assertArrayEquals(expected, TestFiles.floats(readerPerThread.get(rank).model().params()),
                    "a reader per thread, rank " + rank);
            assertArrayEquals(expected, TestFiles.floats(oneReader.get(rank).model().params()),
                    "one reader in turn, rank " + rank);
        }
    }

    @Test
    void ranksReadingAtOnceShouldEachGetAReaderOfTheirOwn() throws Exception {
        Path train = imageTree();
        AtomicInteger made = new AtomicInteger();
        List<List<DataSet>> serial = new ArrayList<>();
        try (RecordReaderSource source = imageSource(train)) {
            for (int rank = 0; rank < 4; rank++) {
                serial.add(batches(source, new Shard(rank, 4, 3, 0, 0, 42)));
            }
        }
        for (boolean perThread : new boolean[] {true, false}) {
            try (RecordReaderSource source = (perThread ? RecordReaderSource.of(() -> {
                made.incrementAndGet();
                return imageReader();
            }, new FileSplit(train.toFile())) : RecordReaderSource.of(imageReader(), new FileSplit(train.toFile())))
                    .label(1, 3)) {
                ExecutorService ranks = Executors.newFixedThreadPool(4);
                try {
                    List<Future<List<DataSet>>> read = new ArrayList<>();
                    for (int rank = 0; rank < 4; rank++) {
                        Shard shard = new Shard(rank, 4, 3, 0, 0, 42);
                        read.add(ranks.submit(() -> batches(source, shard)));
                    }
                    for (int rank = 0; rank < 4; rank++) {
                        List<DataSet> batches = read.get(rank).get();
                        for (int step = 0; step < batches.size(); step++) {
                            TestFiles.assertBitEqual(serial.get(rank).get(step), batches.get(step),
                                    (perThread ? "a reader per thread" : "one reader") + ", rank " + rank + " step "
                                            + step);
                        }
                    }
                } finally {
                    ranks.shutdown();
                }
            }
        }
        assertTrue(made.get() >= 1 && made.get() <= 4, "at most a reader per rank reading at once, made " + made);
    }

    private static List<DataSet> batches(DataSource source, Shard shard) throws IOException {
        List<DataSet> out = new ArrayList<>();
        DataSetIterator it = source.open(shard);
        while (it.hasNext()) {
            out.add(it.next());
        }
        return out;
    }

    // ---- bad input: the file and what is wrong with it

    @Test
    void theCheckShouldNameACorruptImage() throws Exception {
        Path train = imageTree();
        Path corrupt = train.resolve("fox").resolve("img-05.png");
        Files.writeString(corrupt, "not a png, only its name", StandardCharsets.UTF_8);
        try (RecordReaderSource source = imageSource(train)) {
            assertEquals(30, source.check(0, 2, DataCheck.FULL), "rows 0 to 29: nothing wrong");
            for (DataCheck how : new DataCheck[] {DataCheck.FULL, DataCheck.SAMPLE}) {
                IOException e = assertThrows(IOException.class, () -> source.check(1, 2, how));
                assertEquals("checking rows 30 to 59 of records of ImageRecordReader from 60 files under " + train
                        + " (label at 1, 3 classes) (share 1 of 2, " + how.configName() + "): " + corrupt
                        + ": ImageRecordReader cannot read it: Could not decode image from input stream",
                        e.getMessage());
            }
        }
    }

    @Test
    void aCorruptImageShouldStopTheRunBeforeStepZero() throws Exception {
        Path train = imageTree();
        Path corrupt = train.resolve("dog").resolve("img-11.png");
        Files.write(corrupt, new byte[] {(byte) 0x89, 'P', 'N', 'G', 0, 0, 0, 0});
        List<Integer> steps = new ArrayList<>();
        TrainingListener count = m -> steps.add(m.step());
        try (RecordReaderSource source = imageSource(train)) {
            DistributedTrainer trainer = DistributedTrainer.builder().model(convNet()).data(source).workers(2)
                    .batchSizePerWorker(8).seed(42).topology(new RingTopology()).listener(count).build();
            RuntimeException e = assertThrows(RuntimeException.class, () -> trainer.fit(1));
            assertTrue(e.getMessage().contains("rank 1 failed: checking rows 30 to 59 of records of"
                    + " ImageRecordReader") && e.getMessage().contains(corrupt + ": ImageRecordReader cannot read"
                    + " it: Could not decode image from input stream"), e.getMessage());
            assertEquals(List.of(), steps, "no step ran");
        }
    }

    @Test
    void aClassBeyondTheLabelCountShouldNameTheFile() throws Exception {
        Path train = imageTree();
        try (RecordReaderSource twoClasses = RecordReaderSource.of(imageReader(), new FileSplit(train.toFile()))
                .label(1, 2)) {
            IOException e = assertThrows(IOException.class, () -> twoClasses.check(0, 1, DataCheck.FULL));
            assertTrue(e.getMessage().endsWith("(share 0 of 1, full): " + train.resolve("fox").resolve("img-00.png")
                    + ": label 2 at 1 is not a class in [0, 2); ImageRecordReader's classes: [cat, dog, fox]"),
                    e.getMessage());
        }
    }

    /** Names the class by the folder but does not ask the reader to collect the class names. */
    private static final class FolderNameWithoutClasses implements PathLabelGenerator {
        private static final long serialVersionUID = 1L;

        @Override
        public Writable getLabelForPath(String path) {
            return new Text(new File(path).getParentFile().getName());
        }

        @Override
        public Writable getLabelForPath(URI uri) {
            return getLabelForPath(new File(uri).toString());
        }

        @Override
        public boolean inferLabelClasses() {
            return false;
        }
    }

    @Test
    void aFileTheReaderPlacesInNoClassShouldBeNamed() throws Exception {
        Path train = imageTree();
        ImageRecordReader reader = new ImageRecordReader(SIDE, SIDE, 1, new FolderNameWithoutClasses());
        try (RecordReaderSource source = RecordReaderSource.of(reader, new FileSplit(train.toFile())).label(1, 3)) {
            IOException e = assertThrows(IOException.class, () -> source.check(0, 1, DataCheck.FULL));
            assertTrue(e.getMessage().endsWith(": " + train.resolve("cat").resolve("img-00.png") + ": the reader"
                    + " placed it in no class (label -1 at 1); ImageRecordReader's classes: []"), e.getMessage());
        }
    }

    @Test
    void aLabelBeyondTheRecordShouldNameTheFile() throws Exception {
        Path train = imageTree();
        try (RecordReaderSource source = imageSource(train).label(2, 3)) {
            IOException e = assertThrows(IOException.class, () -> source.check(0, 1, DataCheck.FULL));
            assertTrue(e.getMessage().endsWith(": " + train.resolve("cat").resolve("img-00.png") + ": the record"
                    + " holds 2 values (0 to 1), its label is at 2"), e.getMessage());
        }
    }

    @Test
    void regressionShouldTakeTheTargetsAsTheyAre() throws Exception {
        try (RecordReaderSource source = imageSource(imageTree()).regression(1, 1)) {
            DataSet all = source.inOrder(60).next();
            assertArrayEquals(new long[] {60, 1}, all.getLabels().shape());
            float[] targets = TestFiles.floats(all.getLabels());
            for (int i = 0; i < 60; i++) {
                assertEquals(i / PER_CLASS, targets[i], "the class index as a number, example " + i);
            }
            assertEquals("records of ImageRecordReader from 60 files under " + dir.resolve("train")
                    + " (regression targets at 1 to 1)", source.describe());
        }
    }

    @Test
    void anyReaderOfOneRecordPerFileShouldDo() throws Exception {
        // FileRecordReader: a file's text as one value, its folder's index among the folders as the label
        Path numbers = dir.resolve("numbers");
        for (int i = 0; i < 12; i++) {
            Path file = numbers.resolve(i % 2 == 0 ? "even" : "odd").resolve(String.format("n-%02d.txt", i));
            Files.createDirectories(file.getParent());
            Files.writeString(file, Double.toString(i / 4.0));
        }
        Configuration appendLabel = new Configuration();
        appendLabel.setBoolean(RecordReader.APPEND_LABEL, true);
        Supplier<RecordReader> reader = () -> {
            FileRecordReader r = new FileRecordReader();
            r.setConf(appendLabel);
            return r;
        };
        try (RecordReaderSource source = RecordReaderSource.of(reader, new FileSplit(numbers.toFile())).label(1, 2)) {
            DataSet all = source.inOrder(12).next();
            assertArrayEquals(new long[] {12, 1}, all.getFeatures().shape(), "one value a file, in a row");
            float[] values = TestFiles.floats(all.getFeatures());
            float[] labels = TestFiles.floats(all.getLabels());
            for (int i = 0; i < 12; i++) {
                int n = i < 6 ? 2 * i : 2 * (i - 6) + 1; // even/ before odd/
                assertEquals(n / 4f, values[i], "example " + i);
                assertEquals(1f, labels[2 * i + n % 2], "class of example " + i);
            }
        }
        Path bad = numbers.resolve("odd").resolve("n-07.txt");
        Files.writeString(bad, "seven");
        try (RecordReaderSource source = RecordReaderSource.of(reader, new FileSplit(numbers.toFile())).label(1, 2)) {
            IOException e = assertThrows(IOException.class, () -> source.check(0, 1, DataCheck.FULL));
            assertTrue(e.getMessage().endsWith(": " + bad + ": feature \"seven\" at 0 is not a number"),
                    e.getMessage());
        }
    }

    @Test
    void readersOfManyRecordsPerFileAndSplitsWithoutFilesShouldBeRefused() throws Exception {
        Path train = imageTree();
        FileSplit split = new FileSplit(train.toFile());
        IllegalArgumentException csv = assertThrows(IllegalArgumentException.class,
                () -> RecordReaderSource.of(new CSVRecordReader(), split));
        assertEquals("CSVRecordReader reads a record per line, many from one file; RecordReaderSource reads one record"
                + " per file. For CSV files use CsvSource.in(dir).label(column, classes), which indexes the lines",
                csv.getMessage());
        IllegalArgumentException sequences = assertThrows(IllegalArgumentException.class,
                () -> RecordReaderSource.of(CSVSequenceRecordReader::new, split));
        assertEquals("CSVSequenceRecordReader reads sequences; RecordReaderSource reads one record of fixed shape per"
                + " file (sequences need masks, which are not carried to the ranks)", sequences.getMessage());
        IllegalArgumentException noFiles = assertThrows(IllegalArgumentException.class,
                () -> RecordReaderSource.of(imageReader(), new ListStringSplit(List.of(List.of("1", "0")))));
        assertEquals("records of ImageRecordReader: the ListStringSplit lists no locations; RecordReaderSource reads"
                + " one record per file of a split that lists its files (FileSplit, CollectionInputSplit)",
                noFiles.getMessage());
        RecordReader reader = imageReader();
        IllegalStateException noLabel = assertThrows(IllegalStateException.class,
                () -> RecordReaderSource.of(reader, split).plan(1, 1));
        assertEquals("records of ImageRecordReader: say which value of a record is the label, with label(index,"
                + " classes) or regression(from, to)", noLabel.getMessage());
    }
}

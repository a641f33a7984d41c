package io.lgc4j.spark;

import io.lgc4j.core.compress.TopKCompressor;
import io.lgc4j.core.data.RankLocalSource;
import io.lgc4j.core.train.DistributedTrainer;
import io.lgc4j.core.train.TrainingRuntime;
import io.lgc4j.ring.topology.RingTopology;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.dataset.DataSet;
import scala.collection.JavaConverters;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The estimator on {@code local[2]}: a custom ComputationGraph trained on a DataFrame and scored by the model, the
 * same bits as {@code DistributedTrainer} in one JVM over the same partitions, a failed stage retried from the last
 * checkpoint to the same bits, and bad inputs refused naming them.
 */
class LgcEstimatorTest {
    private static SparkSession spark;

    @BeforeAll
    static void startSpark() {
        spark = SparkSession.builder().master("local[2]").appName("lgc-estimator-test")
                .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2").getOrCreate();
    }

    @AfterAll
    static void stopSpark() {
        if (spark != null) {
            spark.stop();
        }
    }

    private static LgcEstimator estimator() {
        return new LgcEstimator().setModelFactory(EstimatorData::graph).setWorkers(2).setBatchSizePerWorker(16)
                .setSortCol("id").setSeed(7).setSlotWaitSeconds(5);
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aGraphTrainedOnADataFrameShouldPredictWellAboveChance() {
        Dataset<Row> train = EstimatorData.frame(spark, EstimatorData.rows(400, 1), EstimatorData.SCHEMA, 220, 180);
        LgcModel model = estimator().setEpochs(3)
                .setMethod("topology: {type: ps}\ncompressor: {type: topk, ratio: 0.25}").fit(train);
        assertEquals(3 * (180 / 16), model.trainingSteps(), "epochs × the smaller partition's batches");
        assertEquals(model.replicaChecksums().get(0), model.replicaChecksums().get(1));
        assertInstanceOf(ComputationGraph.class, model.model());

        Dataset<Row> test = EstimatorData.frame(spark, EstimatorData.rows(300, 2), EstimatorData.SCHEMA, 150, 150);
        List<Row> scored = model.transform(test).collectAsList();
        assertEquals(300, scored.size());
        int right = 0;
        for (Row row : scored) {
            double prediction = row.getDouble(row.fieldIndex("prediction"));
            Vector p = (Vector) row.get(row.fieldIndex("probability"));
            assertEquals(3, p.size());
            assertEquals(1.0, p.toArray()[0] + p.toArray()[1] + p.toArray()[2], 1e-5);
            assertEquals(p.argmax(), (int) prediction);
            if (prediction == row.getDouble(row.fieldIndex("label"))) {
                right++;
            }
        }
        double accuracy = right / 300.0;
        assertTrue(accuracy > 0.8, "accuracy " + accuracy + ", chance 1/3");
    }

    @ParameterizedTest(name = "overlap {0}")
    @ValueSource(strings = {"none", "delayed"})
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void theEstimatorShouldTrainWhatDistributedTrainerTrainsInOneJvmOverTheSamePartitionsBitForBit(String overlap) {
        Dataset<Row> train = EstimatorData.frame(spark, EstimatorData.rows(170, 3), EstimatorData.SCHEMA, 100, 70);
        TopologyFactory topology = () -> new RingTopology(new TopKCompressor(0.25));
        LgcModel model = estimator().setEpochs(2).setTopologyFactory(topology).setOverlap(overlap).fit(train);
        assertEquals(2 * (70 / 16), model.trainingSteps());

        // the same partitions, each sorted by id, as one JVM's ranks read them
        List<DataSet> perRank = EstimatorData.partitions(train);
        DistributedTrainer inProcess = DistributedTrainer.builder().model(EstimatorData.graph())
                .data(RankLocalSource.of(170, 70 / 16, perRank::get)).workers(2).batchSizePerWorker(16).seed(7)
                .topology(topology.create()).runtime(TrainingRuntime.inProcess())
                .overlap(io.lgc4j.core.train.Overlap.parse(overlap)).build();
        inProcess.fit(2);
        Model expected = inProcess.trainedModel();
        assertArrayEquals(expected.params().toFloatVector(), model.model().params().toFloatVector());
        assertArrayEquals(((ComputationGraph) expected).getUpdater().getStateViewArray().toFloatVector(),
                ((ComputationGraph) model.model()).getUpdater().getStateViewArray().toFloatVector(),
                "the updater state travels with the model");
    }

    /**
     * A model with Dropout, DropConnect, Gaussian noise, batch normalization and a residual merge, on Spark's task
     * threads: the same bits as one JVM's rank threads over the same partitions, and on a second fit.
     */
    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aModelWithDropoutShouldTrainOnSparkWhatItTrainsInOneJvmBitForBit() {
        Dataset<Row> train = EstimatorData.frame(spark, EstimatorData.rows(170, 3), EstimatorData.SCHEMA, 100, 70);
        TopologyFactory topology = io.lgc4j.ps.topology.ParameterServerTopology::new;
        LgcEstimator noisy = estimator().setModelFactory(EstimatorData::noisyGraph).setEpochs(2)
                .setTopologyFactory(topology);
        LgcModel model = noisy.fit(train);
        List<DataSet> perRank = EstimatorData.partitions(train);
        DistributedTrainer inProcess = DistributedTrainer.builder().model(EstimatorData.noisyGraph())
                .data(RankLocalSource.of(170, 70 / 16, perRank::get)).workers(2).batchSizePerWorker(16).seed(7)
                .topology(topology.create()).runtime(TrainingRuntime.inProcess()).build();
        inProcess.fit(2);
        assertArrayEquals(inProcess.trainedModel().params().toFloatVector(), model.model().params().toFloatVector());
        assertEquals(model.replicaChecksums(), noisy.fit(train).replicaChecksums(), "a second fit");
    }

    /**
     * {@code compressor: auto} on a DataFrame: the two tasks join the advise session with the user's model and their
     * own rows; the graph has no evidence, so the one candidate of dense's math (the dense ring) is chosen and
     * trained, bit for bit as one JVM trains it.
     */
    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void autoShouldChooseInTheTasksAndTrainTheChoiceBitForBit(@TempDir Path tmp) throws java.io.IOException {
        Path candidates = tmp.resolve("candidates.yaml");
        java.nio.file.Files.writeString(candidates, """
                candidates:
                  - {id: ring, label: Dense ring, config: {topology: {type: ring}}}
                  - {id: ps-topk, label: Top-k on a PS, config: {topology: {type: ps},
                     compressor: {type: topk, ratio: 0.25}, stages: {fullIterations: 2}}}
                """);
        Dataset<Row> train = EstimatorData.frame(spark, EstimatorData.rows(170, 3), EstimatorData.SCHEMA, 100, 70);
        String method = "compressor: auto\nadvise: {candidates: " + candidates + "}";
        LgcModel model = estimator().setEpochs(2).setMethod(method).fit(train);
        assertEquals("ring", model.chosenMethod());
        assertTrue(model.advice().contains("Dense ring") && model.advice().contains("<- chosen"), model.advice());
        List<DataSet> perRank = EstimatorData.partitions(train);
        DistributedTrainer inProcess = DistributedTrainer.builder().model(EstimatorData.graph())
                .data(RankLocalSource.of(170, 70 / 16, perRank::get)).workers(2).batchSizePerWorker(16).seed(7)
                .topology(new RingTopology()).runtime(TrainingRuntime.inProcess()).build();
        inProcess.fit(2);
        assertArrayEquals(inProcess.trainedModel().params().toFloatVector(), model.model().params().toFloatVector());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> estimator().setMethod(method)
                .setCheckpointDir(tmp.toString()).setCheckpointEverySteps(3).fit(train));
        assertEquals("compressor: auto with checkpointDir: a retried stage would have to find the choice its first"
                + " attempt made, which the estimator does not record yet; name the method, or drop"
                + " setCheckpointDir", e.getMessage());
    }

    @Test
    void anUnknownOverlapModeShouldBeRefusedWhenSetNamingTheParameter() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> estimator().setOverlap("forward"));
        assertTrue(e.getMessage().contains("overlap given invalid value forward"), e.getMessage());
        LgcEstimator predicted = estimator().setOverlap("predicted");
        assertEquals("predicted", predicted.getOrDefault(predicted.overlap()));
        LgcEstimator backward = estimator().setOverlap("backward");
        assertEquals("backward", backward.getOrDefault(backward.overlap()));
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void mutualTlsShouldChangeTheLinksOnlyTheSameParametersBitForBit() throws java.io.IOException {
        Dataset<Row> train = EstimatorData.frame(spark, EstimatorData.rows(170, 6), EstimatorData.SCHEMA, 100, 70);
        String method = "topology: {type: ps}\ncompressor: {type: topk, ratio: 0.25}";
        List<java.nio.file.Path> before = certificateDirectories();
        LgcModel plain = estimator().setMethod(method).fit(train);
        // fit checks every task's links against setTls: lgc-net's TcpCluster.tls() of each endpoint, rank and shard
        LgcModel tls = estimator().setMethod(method).setTls(true).fit(train);
        assertEquals(plain.trainingSteps(), tls.trainingSteps());
        assertEquals(plain.replicaChecksums(), tls.replicaChecksums());
        assertArrayEquals(plain.model().params().toFloatVector(), tls.model().params().toFloatVector());
        assertEquals(before, certificateDirectories(), "every task deleted its certificates");
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void aFailedTaskShouldMakeSparkRetryTheStageWhichResumesFromTheLastCheckpointToTheSameBits(@TempDir Path tmp)
            throws java.io.IOException {
        // 2 epochs of 140 / 16 = 8 steps; checkpoints after 3, 6, 9, 12; rank 0 fails after 10 steps on attempt 0
        Dataset<Row> train = EstimatorData.frame(spark, EstimatorData.rows(340, 8), EstimatorData.SCHEMA, 200, 140);
        String method = "topology: {type: ps}\ncompressor: {type: topk, ratio: 0.25}";
        List<java.nio.file.Path> spilledBefore = spilledPartitions();
        LgcModel uninterrupted = estimator().setEpochs(2).setMethod(method).setCheckpointDir(tmp.toString())
                .setCheckpointEverySteps(3).fit(train);
        assertEquals(spilledBefore, spilledPartitions(), "every task deleted its spilled partition");
        LgcModel resumed = estimator().setEpochs(2).setMethod(method).setCheckpointDir(tmp.toString())
                .setCheckpointEverySteps(3).withFault(new SparkOptions.Fault(10)).fit(train);
        assertEquals(spilledBefore, spilledPartitions(), "the failed attempt's tasks deleted their partitions too");

        assertEquals(1, uninterrupted.stageAttempts());
        assertEquals(-1, uninterrupted.resumedFromStep());
        assertEquals(2, resumed.stageAttempts());
        assertEquals(9, resumed.resumedFromStep(), "the last checkpoint before the fault after 10 steps");
        assertEquals(16, resumed.trainingSteps(), "the steps before the checkpoint count");
        assertEquals(uninterrupted.replicaChecksums(), resumed.replicaChecksums());
        assertArrayEquals(uninterrupted.model().params().toFloatVector(), resumed.model().params().toFloatVector());
        assertArrayEquals(((ComputationGraph) uninterrupted.model()).getUpdater().getStateViewArray().toFloatVector(),
                ((ComputationGraph) resumed.model()).getUpdater().getStateViewArray().toFloatVector(),
                "the updater state resumed too");
        Path runDir = Path.of(resumed.checkpointRunDir());
        assertEquals(tmp.toAbsolutePath(), runDir.getParent(), "one run directory per fit under checkpointDir");
        assertTrue(Files.isDirectory(runDir.resolve("checkpoints")), "checkpoints in " + runDir);
        assertNotEquals(Path.of(uninterrupted.checkpointRunDir()), runDir, "each fit has a run id of its own");
    }

    /**
     * Elastic: rank 0 fails after 5 steps of epoch 0 (8 steps at K = 2 over partitions of 200 and 140 rows); the
     * cluster then offers 1 slot (this test's count), and the fit goes on at K = 1 over the DataFrame repartitioned to
     * 1: epoch 0 ends at the checkpoint after 4 steps (which rows were read cannot be told across partitionings), epoch
     * 1 is whole at K = 1 (340 / 16 = 21 steps). It trains what DistributedTrainer trains in one JVM: K = 2 over the
     * two partitions to step 4, then resumed at K = 1 over the one (allowResize), bit for bit.
     */
    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void anElasticFitShouldGoOnWithTheSlotsLeftEndingTheEpochAtTheCheckpoint(@TempDir Path tmp) throws Exception {
        Dataset<Row> train = EstimatorData.frame(spark, EstimatorData.rows(340, 8), EstimatorData.SCHEMA, 200, 140);
        TopologyFactory topology = () -> new RingTopology(new TopKCompressor(0.25));
        java.util.concurrent.atomic.AtomicInteger counted = new java.util.concurrent.atomic.AtomicInteger();
        LgcModel elastic = estimator().setEpochs(2).setTopologyFactory(topology).setCheckpointDir(tmp.resolve("spark").toString())
                .setCheckpointEverySteps(2).setElastic(1, 1).withFault(new SparkOptions.Fault(5))
                .fitWith(train, () -> counted.getAndIncrement() == 0 ? 2 : 1);
        assertEquals(2, elastic.stageAttempts());
        assertEquals(4, elastic.resumedFromStep(), "the last checkpoint before the fault after 5 steps");
        assertEquals(4 + 340 / 16, elastic.trainingSteps(), "epoch 0 ends at step 4, epoch 1 is 21 steps at K = 1");
        assertEquals(1, elastic.replicaChecksums().size());

        // one JVM: K = 2 over the two partitions, its checkpoint after 4 steps resumed at K = 1 over the one
        Path k2 = tmp.resolve("k2");
        List<DataSet> two = EstimatorData.partitions(train);
        DistributedTrainer.builder().model(EstimatorData.graph()).data(RankLocalSource.of(340, 140 / 16, two::get))
                .workers(2).batchSizePerWorker(16).seed(7).topology(topology.create())
                .runtime(TrainingRuntime.inProcess()).checkpoints(k2, 2).build().fit(2);
        io.lgc4j.core.checkpoint.CheckpointDirectory saved = io.lgc4j.core.checkpoint.CheckpointDirectory.in(k2);
        for (long step : saved.steps()) {
            if (step > 4) {
                io.lgc4j.runner.RunFiles.deleteTree(saved.stepDirectory(step));
            }
        }
        List<DataSet> one = EstimatorData.partitions(train.repartition(1));
        DistributedTrainer resumed = DistributedTrainer.builder().model(EstimatorData.graph())
                .data(RankLocalSource.of(340, 340 / 16, one::get).withStepsPerEpochAt(2, 140 / 16)).workers(1)
                .batchSizePerWorker(16).seed(7).topology(topology.create()).runtime(TrainingRuntime.inProcess())
                .checkpoints(k2, 2).resumeFrom(io.lgc4j.core.checkpoint.CheckpointDirectory.in(k2).load(4))
                .allowResize(true).build();
        resumed.fit(2);
        assertArrayEquals(resumed.trainedModel().params().toFloatVector(), elastic.model().params().toFloatVector());
        assertArrayEquals(((ComputationGraph) resumed.trainedModel()).getUpdater().getStateViewArray()
                .toFloatVector(), ((ComputationGraph) elastic.model()).getUpdater().getStateViewArray()
                .toFloatVector(), "the updater state");
        assertEquals(1, ((ComputationGraph) elastic.model()).getConfiguration().getEpochCount() - 1,
                "DL4J's epoch count: epoch 0 ended at the resume, epoch 1 at the end");
    }

    @Test
    @Timeout(value = 1, unit = TimeUnit.MINUTES)
    void checkpointSettingsThatDoNotGoTogetherShouldBeRefusedNamingBoth() {
        refuses("checkpointEverySteps is 0 while checkpointDir is set (/shared/lgc): expected at least 1, the steps"
                + " between checkpoints (setCheckpointEverySteps)", estimator().setCheckpointDir("/shared/lgc"),
                good(40, 40));
        refuses("checkpointEverySteps is 5 but checkpointDir is not set: expected a directory the driver and every"
                + " executor reach (setCheckpointDir), or 0", estimator().setCheckpointEverySteps(5), good(40, 40));
        assertNull(estimator().fit(good(40, 40)).checkpointRunDir(), "no checkpoints by default");
        refuses("minWorkers is 1 but checkpointDir is not set: an elastic fit goes on from the latest checkpoint;"
                + " setCheckpointDir and setCheckpointEverySteps", estimator().setElastic(1, 1), good(40, 40));
        refuses("maxRestarts is 0 while minWorkers is 1: expected at least 1, the failed attempts an elastic fit goes"
                + " on after (setElastic(min, restarts))", estimator().setCheckpointDir("/shared/lgc")
                .setCheckpointEverySteps(5).setElastic(1, 0), good(40, 40));
        refuses("minWorkers is 3, more than the 2 workers: expected at most 2", estimator()
                .setCheckpointDir("/shared/lgc").setCheckpointEverySteps(5).setElastic(3, 1), good(40, 40));
    }

    /** A model the method refuses fails every task of every attempt alike: an elastic fit does not restart it. */
    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void anElasticFitShouldNotRestartAFailureEveryAttemptWouldRepeat(@TempDir Path tmp) {
        LgcSparkException e = assertThrows(LgcSparkException.class, () -> estimator()
                .setMethod("topology: {type: ring}\ncompressor: {type: dgc, ratio: 0.25}")
                .setCheckpointDir(tmp.toString()).setCheckpointEverySteps(2).setElastic(1, 3).fit(good(40, 40)));
        assertTrue(e.getMessage().matches("attempt 1 of estimator \\S+ at K = 2 failed on a bad input, which every"
                + " attempt would repeat \\(not restarted\\): .*applies momentum itself.*"), e.getMessage());
    }

    /** The partition files in the tasks' local directory (in local mode, the driver's Spark files directory). */
    static List<java.nio.file.Path> spilledPartitions() throws java.io.IOException {
        try (var list = java.nio.file.Files.list(SpilledPartition.localDir())) {
            return list.filter(p -> p.getFileName().toString().startsWith(SpilledPartition.FILE_PREFIX)).sorted()
                    .toList();
        }
    }

    /** The tasks' certificate directories in the temporary directory (local mode: this JVM's). */
    static List<java.nio.file.Path> certificateDirectories() throws java.io.IOException {
        try (var list = java.nio.file.Files.list(java.nio.file.Path.of(System.getProperty("java.io.tmpdir")))) {
            return list.filter(p -> p.getFileName().toString().startsWith("lgc-spark-tls-")).sorted().toList();
        }
    }

    private static void refuses(String message, LgcEstimator estimator, Dataset<Row> data) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> estimator.fit(data));
        assertEquals(message, e.getMessage());
    }

    private static Dataset<Row> good(int... sizes) {
        int n = 0;
        for (int s : sizes) {
            n += s;
        }
        return EstimatorData.frame(spark, EstimatorData.rows(n, 4), EstimatorData.SCHEMA, sizes);
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void badColumnsShouldBeRefusedNamingTheColumnWhatItHoldsAndWhatWasExpected() {
        refuses("the DataFrame has no column 'pixels' (featuresCol); its columns are [id, features, label]",
                estimator().setFeaturesCol("pixels"), good(40, 40));
        StructType text = new StructType().add("id", DataTypes.LongType).add("features", DataTypes.StringType)
                .add("label", DataTypes.DoubleType);
        refuses("column 'features' (featuresCol) holds string, expected a vector (org.apache.spark.ml.linalg.Vector),"
                + " array<double> or array<float>", estimator(),
                spark.createDataFrame(List.of(RowFactory.create(1L, "1,2,3,4", 0.0)), text));
        StructType labels = new StructType().add("id", DataTypes.LongType)
                .add("features", SQLDataTypes.VectorType()).add("label", DataTypes.StringType);
        refuses("column 'label' (labelCol) holds string, expected a class index (a number) or a one-hot vector,"
                + " array<double> or array<float>", estimator(),
                spark.createDataFrame(List.of(), labels));
        StructType arrays = new StructType().add("id", DataTypes.LongType)
                .add("features", DataTypes.createArrayType(DataTypes.DoubleType)).add("label", DataTypes.DoubleType);
        List<Row> narrow = new ArrayList<>();
        for (int i = 0; i < 80; i++) {
            narrow.add(RowFactory.create((long) i, JavaConverters.asScalaBuffer(List.of(1.0, 2.0, 0.5)).toSeq(),
                    0.0));
        }
        refuses("column 'features' (featuresCol) holds 3 values in row 0 of partition 0, expected 4: the model's"
                + " input width", estimator(), EstimatorData.frame(spark, narrow, arrays, 40, 40));
        List<Row> badLabel = new ArrayList<>(EstimatorData.rows(80, 5));
        Row r = badLabel.get(45);
        badLabel.set(45, RowFactory.create(r.get(0), r.get(1), 3.0));
        refuses("column 'label' (labelCol) holds 3.0 in row 5 of partition 1, expected a class index 0..2"
                + " (numClasses 3)", estimator(), EstimatorData.frame(spark, badLabel, EstimatorData.SCHEMA, 40, 40));
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void partitionsWithoutABatchAFailingFactoryAndTooFewSlotsShouldBeRefusedBeforeTraining() {
        refuses("partition 1 of 2 holds no rows: every rank reads its own partition, at least one batch of"
                + " batchSizePerWorker = 16 rows; give more rows or fewer workers", estimator(), good(60, 0));
        refuses("partition 0 of 2 holds 10 rows, fewer than one batch of batchSizePerWorker = 16: every rank reads"
                + " one batch of its own partition per step; give more rows, fewer workers or a smaller batch",
                estimator(), good(10, 60));
        refuses("the model factory failing factory failed on the driver: java.lang.IllegalStateException: no weights"
                + " here", estimator().setModelFactory(new FailingFactory()), good(40, 40));
        LgcSparkException slots = assertThrows(LgcSparkException.class,
                () -> estimator().setWorkers(3).setSlotWaitSeconds(1).fit(good(40, 40)));
        assertEquals("the cluster offers 2 task slots (local[2], 1 executor registered after 1 s), the job needs 3"
                + " barrier tasks (3 ranks; topology ring, compressor none) at once: add executors or cores, or lower"
                + " workers (setWorkers)", slots.getMessage());
        refuses("numClasses is 4, the model's output layer has 3 units: they must be equal",
                estimator().setNumClasses(4), good(40, 40));
    }

    /** A factory that cannot build its model. */
    private static final class FailingFactory implements ModelFactory {
        private static final long serialVersionUID = 1L;

        @Override
        public Model create() {
            throw new IllegalStateException("no weights here");
        }

        @Override
        public String toString() {
            return "failing factory";
        }
    }
}

package io.lgc4j.spark;

import io.lgc4j.core.train.Overlap;
import io.lgc4j.core.train.Topology;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.ml.Estimator;
import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.LongParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.param.ParamValidators;
import org.apache.spark.ml.util.Identifiable$;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructType;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.graph.ComputationGraph;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntSupplier;

/**
 * A Spark ML {@link Estimator} that trains your DL4J model on a DataFrame with lgc4j's data-parallel runtime: K
 * workers, one per partition, in one barrier stage; gradients travel over lgc-net's authenticated links, never Spark.
 * <pre>{@code
 * LgcEstimator estimator = new LgcEstimator()
 *         .setModelFactory(() -> MyModels.graph(42))          // serializable; every JVM builds the same model
 *         .setFeaturesCol("features")                         // a Vector, array<double> or array<float>
 *         .setLabelCol("label")                               // a class index, or a one-hot vector/array
 *         .setWorkers(4).setBatchSizePerWorker(32).setEpochs(2).setSeed(7)
 *         .setMethod("topology: {type: ring}\ncompressor: {type: topk, ratio: 0.01}");
 * LgcModel model = estimator.fit(train);                      // one counting job, then one barrier stage
 * Dataset<Row> scored = model.transform(test);                // + prediction, probability
 * ComputationGraph trained = (ComputationGraph) model.model();
 * }</pre>
 * {@link #fit} checks schema, cluster and every row first, then each rank takes min_p floor(n_p / b) steps per epoch
 * and rank 0 returns the model with its updater state. Set {@code sortCol} for a run that repeats bit for bit; set
 * {@code checkpointDir} for a stage Spark retries from the latest checkpoint (docs/architecture/spark.md).
 */
public final class LgcEstimator extends Estimator<LgcModel> {
    private static final long serialVersionUID = 1L;

    private final String uid;
    private final Param<ModelFactory> modelFactory;
    private final Param<TopologyFactory> topologyFactory;
    private final Param<String> method;
    private final Param<String> featuresCol;
    private final Param<String> labelCol;
    private final Param<String> predictionCol;
    private final Param<String> probabilityCol;
    private final Param<String> sortCol;
    private final IntParam numClasses;
    private final IntParam workers;
    private final IntParam batchSizePerWorker;
    private final IntParam epochs;
    private final LongParam seed;
    private final IntParam maxSteps;
    private final Param<String> overlap;
    private final BooleanParam forceRepartition;
    private final IntParam slotWaitSeconds;
    private final BooleanParam tls;
    private final Param<String> checkpointDir;
    private final IntParam checkpointEverySteps;
    private final IntParam minWorkers;
    private final IntParam maxRestarts;
    private SparkOptions.Fault fault;

    /** An estimator with a new uid. */
    public LgcEstimator() {
        this(Identifiable$.MODULE$.randomUID("lgcEstimator"));
    }

    /** An estimator with the given uid (Spark ML's copies). */
    public LgcEstimator(String uid) {
        this.uid = uid;
        modelFactory = new Param<>(this, "modelFactory", "builds the DL4J model (serializable; the same parameters"
                + " in every JVM)");
        topologyFactory = new Param<>(this, "topologyFactory", "builds the topology and compressor of each endpoint"
                + " (serializable); or set method");
        method = new Param<>(this, "method", "lgc-runner's method sections as YAML: topology, compressor, stages,"
                + " autoencoder, runtime; neither this nor topologyFactory: the dense ring all-reduce");
        featuresCol = new Param<>(this, "featuresCol", "features column: a Vector, array<double> or array<float>");
        labelCol = new Param<>(this, "labelCol", "label column: a class index or a one-hot vector/array");
        predictionCol = new Param<>(this, "predictionCol", "the model's prediction column (class index, double)");
        probabilityCol = new Param<>(this, "probabilityCol", "the model's class probabilities column (Vector)");
        sortCol = new Param<>(this, "sortCol", "rows are sorted by this column within each partition before"
                + " training (a run that repeats bit for bit); unset: the partition's own order");
        numClasses = new IntParam(this, "numClasses", "classes (default: the model's output width)",
                ParamValidators.gtEq(1));
        workers = new IntParam(this, "workers", "worker ranks K, one per partition (default: the DataFrame's"
                + " partitions)", ParamValidators.gtEq(1));
        batchSizePerWorker = new IntParam(this, "batchSizePerWorker", "examples per rank per step",
                ParamValidators.gtEq(1));
        epochs = new IntParam(this, "epochs", "passes over the smallest partition's batches", ParamValidators.gtEq(1));
        seed = new LongParam(this, "seed", "seed of each rank's data order and of the method");
        maxSteps = new IntParam(this, "maxSteps", "stop after this many steps (0: no cap)", ParamValidators.gtEq(0));
        overlap = new Param<>(this, "overlap", "none: compute, exchange and apply in turn; delayed: step t + 1's"
                + " gradient computed while step t's is exchanged, step t's mean applied one step late; predicted:"
                + " delayed, the gradient taken at predicted parameters; backward: a dense step's exchange starts on the last"
                + " layers while the backward pass computes the first (the same math, pieces of at least 1 MiB)",
                ParamValidators.inArray(Arrays.stream(Overlap.values()).map(Overlap::configName)
                        .toArray(String[]::new)));
        forceRepartition = new BooleanParam(this, "forceRepartition", "repartition to K even when the DataFrame has"
                + " K partitions already");
        slotWaitSeconds = new IntParam(this, "slotWaitSeconds", "how long to wait for K task slots before refusing",
                ParamValidators.gtEq(0));
        tls = new BooleanParam(this, "tls", "mutual TLS on the ranks' links: each task makes its own CA and"
                + " certificate and trusts the stage's tasks only; only CA certificates travel");
        checkpointDir = new Param<>(this, "checkpointDir", "a directory the driver and every executor reach; each fit"
                + " checkpoints into checkpointDir/<run id>/, and a failed stage is retried from its latest complete"
                + " checkpoint; unset: no checkpoints, a failed task ends the fit");
        checkpointEverySteps = new IntParam(this, "checkpointEverySteps", "steps between checkpoints (at least 1 with"
                + " checkpointDir)", ParamValidators.gtEq(0));
        minWorkers = new IntParam(this, "minWorkers", "elastic: when a task fails (an executor lost), go on from the"
                + " latest checkpoint with as many ranks as the cluster then offers task slots, at least this many"
                + " (0: not elastic, Spark retries the stage whole)", ParamValidators.gtEq(0));
        maxRestarts = new IntParam(this, "maxRestarts", "elastic: failed attempts to go on after (at least 1 with"
                + " minWorkers)", ParamValidators.gtEq(0));
        setDefault(minWorkers, 0);
        setDefault(maxRestarts, 0);
        setDefault(checkpointEverySteps, 0);
        setDefault(featuresCol, "features");
        setDefault(labelCol, "label");
        setDefault(predictionCol, "prediction");
        setDefault(probabilityCol, "probability");
        setDefault(batchSizePerWorker, 32);
        setDefault(epochs, 1);
        setDefault(seed, 42L);
        setDefault(maxSteps, 0);
        setDefault(overlap, "none");
        setDefault(forceRepartition, false);
        setDefault(slotWaitSeconds, 60);
        setDefault(tls, false);
    }

    @Override
    public String uid() {
        return uid;
    }

    /** The model factory parameter. */
    public Param<ModelFactory> modelFactory() {
        return modelFactory;
    }

    /** The topology factory parameter. */
    public Param<TopologyFactory> topologyFactory() {
        return topologyFactory;
    }

    /** The method YAML parameter. */
    public Param<String> method() {
        return method;
    }

    /** The features column parameter. */
    public Param<String> featuresCol() {
        return featuresCol;
    }

    /** The label column parameter. */
    public Param<String> labelCol() {
        return labelCol;
    }

    /** The prediction column parameter (of the model). */
    public Param<String> predictionCol() {
        return predictionCol;
    }

    /** The probability column parameter (of the model). */
    public Param<String> probabilityCol() {
        return probabilityCol;
    }

    /** The sort column parameter. */
    public Param<String> sortCol() {
        return sortCol;
    }

    /** The number of classes parameter. */
    public IntParam numClasses() {
        return numClasses;
    }

    /** The workers (K) parameter. */
    public IntParam workers() {
        return workers;
    }

    /** The batch size per worker parameter. */
    public IntParam batchSizePerWorker() {
        return batchSizePerWorker;
    }

    /** The epochs parameter. */
    public IntParam epochs() {
        return epochs;
    }

    /** The seed parameter. */
    public LongParam seed() {
        return seed;
    }

    /** The step cap parameter. */
    public IntParam maxSteps() {
        return maxSteps;
    }

    /** The force-repartition parameter. */
    public BooleanParam forceRepartition() {
        return forceRepartition;
    }

    /** The slot wait parameter. */
    public IntParam slotWaitSeconds() {
        return slotWaitSeconds;
    }

    /** The mutual-TLS parameter. */
    public BooleanParam tls() {
        return tls;
    }

    /** Sets the model factory. */
    public LgcEstimator setModelFactory(ModelFactory factory) {
        set(modelFactory, factory);
        return this;
    }

    /** Sets the model as its configuration's JSON ({@link ModelFactory#fromJson}). */
    public LgcEstimator setModelJson(String json) {
        return setModelFactory(ModelFactory.fromJson(json));
    }

    /** Sets the topology factory (instead of {@link #setMethod}). */
    public LgcEstimator setTopologyFactory(TopologyFactory factory) {
        set(topologyFactory, factory);
        return this;
    }

    /**
     * Sets the method as lgc-runner's sections in YAML (instead of {@link #setTopologyFactory}), e.g.
     * {@code "topology: {type: ps}\ncompressor: {type: dgc, ratio: 0.01}"}; or {@code "compressor: auto"} with an
     * optional {@code advise} section (candidates, target, denseSteps, penalties): the tasks measure their links and
     * the model and train the candidate predicted fastest ({@link LgcModel#chosenMethod()}, {@link LgcModel#advice()}).
     */
    public LgcEstimator setMethod(String yaml) {
        set(method, yaml);
        return this;
    }

    /** Sets the features column. */
    public LgcEstimator setFeaturesCol(String column) {
        set(featuresCol, column);
        return this;
    }

    /** Sets the label column. */
    public LgcEstimator setLabelCol(String column) {
        set(labelCol, column);
        return this;
    }

    /** Sets the model's prediction column. */
    public LgcEstimator setPredictionCol(String column) {
        set(predictionCol, column);
        return this;
    }

    /** Sets the model's probability column. */
    public LgcEstimator setProbabilityCol(String column) {
        set(probabilityCol, column);
        return this;
    }

    /** Sets the column rows are sorted by within each partition. */
    public LgcEstimator setSortCol(String column) {
        set(sortCol, column);
        return this;
    }

    /** Sets the number of classes. */
    public LgcEstimator setNumClasses(int value) {
        set(numClasses, value);
        return this;
    }

    /** Sets K, the worker ranks (one partition each). */
    public LgcEstimator setWorkers(int value) {
        set(workers, value);
        return this;
    }

    /** Sets b, the examples per rank per step. */
    public LgcEstimator setBatchSizePerWorker(int value) {
        set(batchSizePerWorker, value);
        return this;
    }

    /** Sets the epochs. */
    public LgcEstimator setEpochs(int value) {
        set(epochs, value);
        return this;
    }

    /** Sets the seed of the data order and the method. */
    public LgcEstimator setSeed(long value) {
        set(seed, value);
        return this;
    }

    /** {@code none} (the default), {@code delayed}, {@code predicted} or {@code backward}: {@code training.overlap}. */
    public Param<String> overlap() {
        return overlap;
    }

    /**
     * {@code none} (the default), {@code delayed}, {@code predicted} or {@code backward}
     * ({@link io.lgc4j.core.train.Overlap}; {@code backward} with the default 1 MiB pieces).
     */
    public LgcEstimator setOverlap(String value) {
        set(overlap, value);
        return this;
    }

    /** Sets the step cap (0: none). */
    public LgcEstimator setMaxSteps(int value) {
        set(maxSteps, value);
        return this;
    }

    /** Sets whether to repartition to K even when the DataFrame has K partitions. */
    public LgcEstimator setForceRepartition(boolean value) {
        set(forceRepartition, value);
        return this;
    }

    /** Sets how long to wait for K task slots. */
    public LgcEstimator setSlotWaitSeconds(int value) {
        set(slotWaitSeconds, value);
        return this;
    }

    /**
     * Sets whether the ranks' links run mutual TLS (default false): each barrier task makes its own CA and host
     * certificate in a temporary directory, the tasks exchange only their CA certificates (one extra allGather), and
     * each trusts exactly the stage's tasks. The job token still authenticates every link.
     */
    public LgcEstimator setTls(boolean value) {
        set(tls, value);
        return this;
    }

    /** The checkpoint directory parameter. */
    public Param<String> checkpointDir() {
        return checkpointDir;
    }

    /** The steps-between-checkpoints parameter. */
    public IntParam checkpointEverySteps() {
        return checkpointEverySteps;
    }

    /**
     * Sets the directory under which each fit checkpoints ({@code dir/<run id>/checkpoints/}); the driver and every
     * executor must reach it at this path (a shared file system). With it, a failed barrier stage is retried and
     * resumes from the latest complete checkpoint; set {@link #setCheckpointEverySteps} too.
     */
    public LgcEstimator setCheckpointDir(String dir) {
        set(checkpointDir, dir);
        return this;
    }

    /** Sets the steps between checkpoints (at least 1 when {@link #setCheckpointDir} is set). */
    public LgcEstimator setCheckpointEverySteps(int steps) {
        set(checkpointEverySteps, steps);
        return this;
    }

    /** The elastic minimum of ranks parameter (0: not elastic). */
    public IntParam minWorkers() {
        return minWorkers;
    }

    /** The elastic restarts parameter. */
    public IntParam maxRestarts() {
        return maxRestarts;
    }

    /**
     * Makes the fit elastic: when a task fails (an executor lost, a rank's error), the fit goes on from the latest
     * checkpoint as a new barrier job with as many ranks as the cluster then offers task slots, at most {@code
     * workers} and at least {@code min}, the DataFrame repartitioned to that K and counted again, at most {@code
     * restarts} times. Needs {@link #setCheckpointDir}. A resume inside an epoch ends that epoch: the rows of a
     * partition have no identity across partitionings, so which were read cannot be told, and the next epoch begins
     * at the checkpoint (docs/manual.md).
     */
    public LgcEstimator setElastic(int min, int restarts) {
        set(minWorkers, min);
        set(maxRestarts, restarts);
        return this;
    }

    /**
     * For tests of recovery: rank 0 fails after {@code injected.afterSteps()} steps in the stage's first attempt
     * (only with checkpoints); null for none. Not a parameter: {@link #copy} does not carry it.
     */
    LgcEstimator withFault(SparkOptions.Fault injected) {
        this.fault = injected;
        return this;
    }

    private int intOf(IntParam p) {
        return (Integer) getOrDefault(p);
    }

    @Override
    public LgcEstimator copy(ParamMap extra) {
        return defaultCopy(extra);
    }

    /** The input schema with the model's prediction and probability columns; checks the two input columns. */
    @Override
    public StructType transformSchema(StructType schema) {
        Columns.featureKind(schema, getOrDefault(featuresCol), "featuresCol");
        Columns.labelKind(schema, getOrDefault(labelCol), "labelCol");
        return LgcModel.outputSchema(schema, getOrDefault(predictionCol), getOrDefault(probabilityCol));
    }

    /**
     * Trains the model on {@code dataset}: a counting job, then one barrier stage (docs/architecture/spark.md).
     *
     * @throws IllegalArgumentException naming the column, parameter, partition or row that is wrong, and what was
     *                                  expected
     * @throws LgcSparkException        when the cluster cannot run the stage, or the stage failed
     */
    @Override
    public LgcModel fit(Dataset<?> dataset) {
        return fitWith(dataset, null);
    }

    /**
     * The fit, with {@code slotCount} saying how many task slots the cluster offers now (null: Spark's count; a test of
     * the elastic loop gives its own).
     */
    LgcModel fitWith(Dataset<?> dataset, IntSupplier slotCount) {
        StructType schema = dataset.schema();
        checkParams(schema);
        String features = getOrDefault(featuresCol);
        String label = getOrDefault(labelCol);
        SparkContext sc = dataset.sparkSession().sparkContext();
        ClusterChecks.refuseDynamicAllocation(sc);
        ModelFactory factory = getOrDefault(modelFactory);
        Model model = Models.create(factory, "on the driver");
        boolean graph = model instanceof ComputationGraph;
        int width = Models.inputWidth(model);
        int classes = classes(model, schema, features, width);
        String initialChecksum = Models.paramsChecksum(model);

        int partitions = dataset.toDF().rdd().getNumPartitions();
        int most = isDefined(workers) ? intOf(workers) : partitions;
        int b = intOf(batchSizePerWorker);
        long seedValue = (Long) getOrDefault(seed);
        MethodSpec spec = methodSpec(most, b, seedValue);
        Topology probe = spec.auto() != null ? null : spec.newEndpoint().topology();
        int least = intOf(minWorkers);
        if (least > most) {
            throw new IllegalArgumentException("minWorkers is " + least + ", more than the " + most + " workers: expected"
                    + " at most " + most);
        }
        Duration wait = Duration.ofSeconds(intOf(slotWaitSeconds));
        IntSupplier slots = slotCount != null ? slotCount : () -> ClusterChecks.slots(sc);
        int k = most;
        if (least > 0) {
            k = elasticWorkers(sc, slots, most, least, probe, spec, wait, true);
        } else {
            ClusterChecks.awaitSlots(sc, k, describeStage(k, services(probe, k), probe, spec), wait,
                    "workers (setWorkers)");
        }
        LgcSpark.replaceBarrierTimer(sc);
        byte[] token = new byte[32];
        new SecureRandom().nextBytes(token);
        int job = LgcSpark.jobNumber(sc.applicationId() + "/" + uid + "/" + System.nanoTime());
        Path runDir = isDefined(checkpointDir) ? newRunDirectory() : null;
        Map<Integer, Integer> stepsAt = new TreeMap<>();
        List<TaskOutcome> outcomes;
        Columns columns;
        for (int round = 0; ; round++) {
            Dataset<Row> df = dataset.toDF();
            if (partitions != k || (Boolean) getOrDefault(forceRepartition) || round > 0) {
                df = df.repartition(k);
            }
            Counted counted = counted(sc, df, k, new Columns(features, Columns.featureKind(schema, features,
                    "featuresCol"), width, label, Columns.labelKind(schema, label, "labelCol"), classes));
            columns = counted.columns();
            int services = services(probe, k);
            TaskCheckpoints checkpoints = runDir == null ? null : new TaskCheckpoints(runDir.toString(),
                    intOf(checkpointEverySteps), uid, identity(columns, initialChecksum, MethodSpec.describe(probe),
                    counted.perPartition(), least > 0), fault);
            EstimatorTask task = new EstimatorTask(columns, factory, initialChecksum, spec, k, services, true, b,
                    intOf(epochs), seedValue, intOf(maxSteps), Overlap.parse(getOrDefault(overlap)),
                    counted.perPartition(), counted.steps(), token, job, (Boolean) getOrDefault(tls), checkpoints)
                    .round(round, least > 0, stepsAt);
            try {
                outcomes = runStage(sc, counted.rows(), task, checkpoints != null && least == 0,
                        describeStage(k, services, probe, spec));
                break;
            } catch (LgcSparkException e) {
                refuseRestart(e, round, k);
                stepsAt.put(k, counted.steps());
                int before = k;
                LgcSpark.pause(LgcSpark.SETTLE);
                k = elasticWorkers(sc, slots, most, least, probe, spec, wait, false);
                System.err.println("lgc-spark: attempt " + (round + 1) + " of estimator " + uid + " at K = " + before
                        + " failed (" + LgcSpark.firstLines(e) + "); the cluster offers " + slots.getAsInt()
                        + " task slots: going on at K = " + k + " from the latest checkpoint");
            }
        }
        return modelOf(outcomes, graph, columns.width(), classes, runDir);
    }

    /** The model rank 0 trained, with what the fit did ({@link FitReport}) and this estimator's parameters. */
    private LgcModel modelOf(List<TaskOutcome> outcomes, boolean graph, int width, int classes, Path runDir) {
        TaskOutcome rank0 = outcomes.get(0);
        int attempts = outcomes.stream().mapToInt(TaskOutcome::stageAttempt).max().orElse(0) + 1;
        TaskOutcome.Trained run = rank0.trained();
        LgcModel trained = new LgcModel(uid, run.model(), graph, width, classes, new FitReport(run.steps(),
                run.replicaChecksums(), attempts, rank0.resumedFrom(), runDir == null ? null : runDir.toString(),
                rank0.chosen(), rank0.advice()));
        copyValues(trained, extractParamMap());
        return trained.setParent(this);
    }

    /** The method of {@code method} or {@code topologyFactory} at K ranks; auto with checkpoints refused. */
    private MethodSpec methodSpec(int k, int b, long seedValue) {
        MethodSpec spec = MethodSpec.of(isDefined(topologyFactory) ? getOrDefault(topologyFactory) : null,
                isDefined(method) ? getOrDefault(method) : null, seedValue, k, b);
        if (spec.auto() != null && isDefined(checkpointDir)) {
            throw new IllegalArgumentException("compressor: auto with checkpointDir: a retried stage would have to"
                    + " find the choice its first attempt made, which the estimator does not record yet; name the"
                    + " method, or drop setCheckpointDir");
        }
        return spec;
    }

    /**
     * Throws the failure of attempt {@code round} at K = {@code k} when the fit does not go on after it: not elastic,
     * a bad input every attempt would repeat, or no restart left.
     */
    private void refuseRestart(LgcSparkException e, int round, int k) {
        if (intOf(minWorkers) == 0) {
            throw e;
        }
        String attempt = "attempt " + (round + 1) + " of estimator " + uid + " at K = " + k;
        if (LgcSpark.badInput(e)) {
            throw new LgcSparkException(attempt + " failed on a bad input, which every attempt would repeat (not"
                    + " restarted): " + LgcSpark.firstLines(e), e);
        }
        if (round >= intOf(maxRestarts)) {
            throw new LgcSparkException(attempt + " failed after " + round + " restart" + (round == 1 ? "" : "s")
                    + " (maxRestarts " + intOf(maxRestarts) + "): " + LgcSpark.firstLines(e), e);
        }
    }

    /** A DataFrame of K partitions ready for the barrier stage: its two columns, their rows counted and checked. */
    private record Counted(JavaRDD<Row> rows, Columns columns, int[] perPartition, int steps) {
    }

    /**
     * {@code df}'s K partitions, sorted by {@code sortCol} when set, as the stage reads them: each partition's rows
     * counted and checked by a job of their own ({@link #countRows}), the features' width agreed, and the steps per
     * epoch, the smallest partition's whole batches.
     */
    private Counted counted(SparkContext sc, Dataset<Row> df, int k, Columns declared) {
        Dataset<Row> sorted = isDefined(sortCol) ? df.sortWithinPartitions(getOrDefault(sortCol)) : df;
        JavaRDD<Row> rows = sorted.select(declared.features(), declared.label()).javaRDD();
        int b = intOf(batchSizePerWorker);
        List<PartitionCount> counts = countRows(sc, rows, declared, k);
        int[] perPartition = checkCounts(counts, b, k);
        Columns columns = declared.width() < 0 ? declared.withWidth(agreedWidth(counts, declared.features()))
                : declared;
        int steps = Integer.MAX_VALUE;
        for (int n : perPartition) {
            steps = Math.min(steps, n / b);
        }
        return new Counted(rows, columns, perPartition, steps);
    }

    /**
     * The K of an elastic attempt: the most ranks, at most {@code most}, whose tasks the cluster offers slots for (a
     * shard rides with a rank: K tasks); at least {@code least}, waiting up to {@code wait} for them (the first attempt
     * waits that long for {@code most}).
     */
    private static int elasticWorkers(SparkContext sc, IntSupplier slots, int most, int least, Topology probe,
                                      MethodSpec spec, Duration wait, boolean first) {
        int offered = ClusterChecks.slotsWithin(slots, first ? most : least, first ? wait : Duration.ZERO);
        if (offered < least && !first) {
            offered = ClusterChecks.slotsWithin(slots, least, wait);
        }
        for (int k = Math.min(most, offered); k >= least; k--) {
            if (probe == null || probe.serviceEndpoints(k) <= k) {
                return k;
            }
        }
        throw ClusterChecks.tooFew(sc, offered, "at least " + describeStage(least, services(probe, least), probe, spec)
                + " (minWorkers " + least + ")", wait, "minWorkers (setElastic)");
    }

    /** The input columns, the model and the checkpoint parameters, before the cluster is asked for anything. */
    private void checkParams(StructType schema) {
        transformSchema(schema);
        if (!isDefined(modelFactory)) {
            throw new IllegalArgumentException("modelFactory is not set: setModelFactory(() -> model) or"
                    + " setModelJson(configuration.toJson())");
        }
        if (isDefined(sortCol)) {
            Columns.field(schema, getOrDefault(sortCol), "sortCol");
        }
        checkCheckpointParams();
    }

    /** The topology's parameter-server shards (0 for auto: not known yet), at most one per worker's task. */
    private static int services(Topology probe, int k) {
        int services = probe == null ? 0 : probe.serviceEndpoints(k);
        if (services > k) {
            throw new IllegalArgumentException("the topology has " + services + " parameter-server shards for " + k
                    + " workers: each shard runs on a worker's task, so at most " + k + " (more workers, or fewer"
                    + " topology.servers)");
        }
        return services;
    }

    /**
     * The number of classes (numClasses, else the model's output width), checked against the model's output layer,
     * and the features column's declared vector size against the model's input width.
     */
    private int classes(Model model, StructType schema, String features, int width) {
        int outputs = Models.outputWidth(model);
        int classes = isDefined(numClasses) ? intOf(numClasses) : outputs;
        if (classes < 1) {
            throw new IllegalArgumentException("numClasses is not set and the model's output layer does not say its"
                    + " width: setNumClasses(...)");
        }
        if (outputs > 0 && classes != outputs) {
            throw new IllegalArgumentException("numClasses is " + classes + ", the model's output layer has "
                    + outputs + " units: they must be equal");
        }
        int declared = Columns.declaredSize(schema, features);
        if (declared >= 0 && width > 0 && declared != width) {
            throw new IllegalArgumentException("column '" + features + "' (featuresCol) holds vectors of " + declared
                    + " values (its ML attributes say), expected " + width + ": the model's input width");
        }
        return classes;
    }

    /** The barrier stage in words, for Spark's UI and the wait for slots. */
    private static String describeStage(int k, int services, Topology probe, MethodSpec spec) {
        return k + " barrier task" + (k > 1 ? "s" : "") + " (" + k + " rank" + (k > 1 ? "s" : "")
                + (services == 0 ? "" : services == 1 ? ", parameter-server shard 0 with rank 0"
                : ", parameter-server shards 0.." + (services - 1) + " with ranks 0.." + (services - 1)) + "; "
                + (probe == null ? "compressor auto among " + spec.auto().candidates().size() + " candidates"
                : MethodSpec.describe(probe)) + ")";
    }

    /** Each partition's rows, counted (and checked) by a job of their own, in partition order. */
    private List<PartitionCount> countRows(SparkContext sc, JavaRDD<Row> rows, Columns columns, int k) {
        sc.setJobDescription("lgc4j estimator " + uid + ": counting the rows of " + k + " partitions");
        List<PartitionCount> counts;
        try {
            counts = new ArrayList<>(rows.mapPartitionsWithIndex(new PartitionCount.Counter(columns), false)
                    .collect());
        } finally {
            sc.setJobDescription(null);
        }
        counts.sort(Comparator.comparingInt(PartitionCount::partition));
        return counts;
    }

    /**
     * The barrier stage: one task per partition trains one rank; their outcomes in partition order, each checked to
     * have run the links asked for.
     */
    private List<TaskOutcome> runStage(SparkContext sc, JavaRDD<Row> rows, EstimatorTask task, boolean checkpointed,
                                       String what) {
        ClassTag<TaskOutcome> tag = ClassTag$.MODULE$.apply(TaskOutcome.class);
        sc.setJobDescription("lgc4j estimator " + uid + ": " + what);
        List<TaskOutcome> outcomes;
        try {
            JavaRDD<TaskOutcome> trained = new JavaRDD<>(rows.rdd().barrier().mapPartitions(task, false, tag), tag);
            // with checkpoints, through a shuffle: Spark retries a failed barrier stage only when it is a shuffle-map
            // stage; a failed barrier result stage aborts the job ("Could not recover from a failed barrier
            // ResultStage"), which is what a fit without checkpoints wants: a retry would start at step 0
            outcomes = new ArrayList<>((checkpointed ? trained.repartition(1) : trained).collect());
        } catch (Exception e) { // a failed job throws SparkException, a checked exception to Java
            String hint = String.valueOf(e.getMessage()).contains("Barrier execution mode does not allow")
                    ? " (setForceRepartition(true) gives the stage a lineage of K partitions)" : "";
            throw new LgcSparkException("the barrier stage of estimator " + uid + " failed: " + e.getMessage() + hint,
                    e);
        } finally {
            sc.setJobDescription(null);
        }
        outcomes.sort(Comparator.comparingInt(TaskOutcome::partition));
        for (TaskOutcome o : outcomes) {
            if (o.tls() != (Boolean) getOrDefault(tls)) {
                throw new LgcSparkException("estimator " + uid + " asked for " + ((Boolean) getOrDefault(tls)
                        ? "mutual TLS" : "plain TCP") + " links, but task " + o.partition() + "'s links ran "
                        + (o.tls() ? "mutual TLS" : "plain TCP"));
            }
        }
        return outcomes;
    }

    /** Refuses a checkpoint directory without steps between checkpoints, and steps without a directory. */
    private void checkCheckpointParams() {
        int every = intOf(checkpointEverySteps);
        if (isDefined(checkpointDir) && every < 1) {
            throw new IllegalArgumentException("checkpointEverySteps is " + every + " while checkpointDir is set ("
                    + getOrDefault(checkpointDir) + "): expected at least 1, the steps between checkpoints"
                    + " (setCheckpointEverySteps)");
        }
        if (intOf(minWorkers) > 0 && !isDefined(checkpointDir)) {
            throw new IllegalArgumentException("minWorkers is " + intOf(minWorkers) + " but checkpointDir is not set:"
                    + " an elastic fit goes on from the latest checkpoint; setCheckpointDir and"
                    + " setCheckpointEverySteps");
        }
        if (intOf(minWorkers) > 0 && intOf(maxRestarts) < 1) {
            throw new IllegalArgumentException("maxRestarts is " + intOf(maxRestarts) + " while minWorkers is "
                    + intOf(minWorkers) + ": expected at least 1, the failed attempts an elastic fit goes on after"
                    + " (setElastic(min, restarts))");
        }
        if (!isDefined(checkpointDir) && every > 0) {
            throw new IllegalArgumentException("checkpointEverySteps is " + every + " but checkpointDir is not set:"
                    + " expected a directory the driver and every executor reach (setCheckpointDir), or 0");
        }
    }

    /** This fit's {@code checkpointDir/<run id>}, created: the estimator's uid, the time and 4 random bytes. */
    private Path newRunDirectory() {
        byte[] random = new byte[4];
        new SecureRandom().nextBytes(random);
        String id = uid + "-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))
                + "-" + HexFormat.of().formatHex(random);
        Path dir = Path.of(getOrDefault(checkpointDir)).toAbsolutePath().resolve(id);
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the run's checkpoint directory " + dir + " under"
                    + " checkpointDir", e);
        }
        return dir;
    }

    /**
     * The fit's identity in its checkpoints: the settings a resume must share (epochs, maxSteps and
     * checkpointEverySteps may change, as lgc-runner's runs allow), and, not elastic, the rows of each partition.
     */
    private Map<String, String> identity(Columns columns, String initialChecksum, String method, int[] rows,
                                         boolean elastic) {
        Map<String, String> id = new TreeMap<>();
        id.put("training.workers", String.valueOf(rows.length));
        id.put("training.batchSizePerWorker", String.valueOf(intOf(batchSizePerWorker)));
        id.put("training.epochs", String.valueOf(intOf(epochs)));
        id.put("training.maxSteps", String.valueOf(intOf(maxSteps)));
        id.put("training.overlap", getOrDefault(overlap));
        id.put("training.checkpointEverySteps", String.valueOf(intOf(checkpointEverySteps)));
        id.put("run.seed", String.valueOf(getOrDefault(seed)));
        id.put("model.initialChecksum", initialChecksum);
        id.put("method", method);
        id.put("method.yaml", isDefined(this.method) ? getOrDefault(this.method) : "");
        id.put("data.columns", columns.toString());
        id.put("data.sortCol", isDefined(sortCol) ? getOrDefault(sortCol) : "");
        if (!elastic) {
            // an elastic fit counts its partitions again at each attempt's K: the rows are each attempt's own
            id.put("data.rowsPerPartition", Arrays.toString(rows));
        }
        return id;
    }

    /** The rows of each partition, refusing an empty one, one with less than a batch, and the first bad row. */
    private static int[] checkCounts(List<PartitionCount> counts, int b, int k) {
        int[] rows = new int[counts.size()];
        for (PartitionCount c : counts) {
            if (c.problem() != null) {
                throw new IllegalArgumentException(c.problem());
            }
        }
        for (PartitionCount c : counts) {
            if (c.rows() == 0) {
                throw new IllegalArgumentException("partition " + c.partition() + " of " + k + " holds no rows: every"
                        + " rank reads its own partition, at least one batch of batchSizePerWorker = " + b
                        + " rows; give more rows or fewer workers");
            }
            if (c.rows() < b) {
                throw new IllegalArgumentException("partition " + c.partition() + " of " + k + " holds " + c.rows()
                        + " row" + (c.rows() == 1 ? "" : "s") + ", fewer than one batch of batchSizePerWorker = " + b
                        + ": every rank reads one batch of its own partition per step; give more rows, fewer"
                        + " workers or a smaller batch");
            }
            if (c.rows() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("partition " + c.partition() + " holds " + c.rows() + " rows, more"
                        + " than one task reads (" + Integer.MAX_VALUE + "): use more workers");
            }
            rows[c.partition()] = (int) c.rows();
        }
        return rows;
    }

    /** The features' width every partition's rows agree on, when the model does not say it. */
    private static int agreedWidth(List<PartitionCount> counts, String features) {
        int width = counts.get(0).width();
        for (PartitionCount c : counts) {
            if (c.width() != width) {
                throw new IllegalArgumentException("column '" + features + "' (featuresCol) holds " + width
                        + " values per row in partition 0 and " + c.width() + " in partition " + c.partition()
                        + ", expected one width");
            }
        }
        return width;
    }
}

package io.lgc4j.runner;

import io.lgc4j.core.compute.ComputeReport;
import io.lgc4j.core.compute.ComputeThreads;
import io.lgc4j.core.compute.CpuInfo;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.lgc4j.core.checkpoint.Checkpoint;
import io.lgc4j.core.checkpoint.CheckpointDirectory;
import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointManifest;
import io.lgc4j.core.compute.Nd4jThreads;
import io.lgc4j.core.data.DataSource;
import io.lgc4j.core.data.MemorySource;
import io.lgc4j.core.metrics.StepMetrics;
import io.lgc4j.core.metrics.TraceSettings;
import io.lgc4j.core.runtime.ClusterConnector;
import io.lgc4j.core.settings.SettingsException;
import io.lgc4j.core.train.CheckpointMismatchException;
import io.lgc4j.core.train.DistributedTrainer;
import io.lgc4j.core.train.Topology;
import io.lgc4j.core.train.TrainingListener;
import io.lgc4j.core.train.TrainingPlan;
import io.lgc4j.core.train.TrainingResult;
import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.runner.config.ConfigLoader;
import io.lgc4j.runner.config.ConfiguredMethod;
import io.lgc4j.runner.config.CsvConfig;
import io.lgc4j.runner.config.DataConfig;
import io.lgc4j.runner.config.DatasetName;
import io.lgc4j.runner.config.ExperimentConfig;
import io.lgc4j.runner.config.RuntimeType;
import io.lgc4j.runner.config.SourceKind;
import io.lgc4j.runner.config.TraceSection;
import io.lgc4j.runner.config.ModelConfig;
import io.lgc4j.runner.config.UpdaterConfig;
import io.lgc4j.data.DatasetNotFoundException;
import io.lgc4j.data.FashionMnist;
import io.lgc4j.datasource.CsvSource;
import io.lgc4j.datasource.IdxSource;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.deeplearning4j.nn.api.Model;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Nesterovs;
import org.nd4j.linalg.learning.config.Sgd;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.zip.GZIPInputStream;

/**
 * Runs one {@link ExperimentConfig}: loads the data, builds the model and the topology, trains with
 * {@link DistributedTrainer}, and writes {@code results/<run-id>/} with {@code config.yaml} (resolved),
 * {@code provenance.json}, {@code metrics.csv} and {@code summary.json}.
 *
 * <pre>{@code
 * ExperimentConfig config = ConfigLoader.load(Path.of("configs/quickstart.yaml"));
 * RunOutcome outcome = new ExperimentRunner().run(config, "configs/quickstart.yaml", List.of());
 * System.out.println(outcome.summary().finalTestAccuracy());
 * }</pre>
 */
public final class ExperimentRunner {

    /** The file a finished run writes last. */
    public static final String SUMMARY = "summary.json";
    /** The file a run whose training failed writes instead of {@link #SUMMARY}: the failure's message. */
    public static final String FAILURE = "failure.txt";

    private Map<String, String> records = Map.of();
    private Map<String, Object> provenanceExtra = Map.of();
    private Function<TrainingResult, Map<String, Object>> summaryExtra = r -> null;
    private boolean allowResize;

    /**
     * Files to write into the run's directory beside {@code config.yaml} (name to content), and entries to add to
     * {@code provenance.json}: what decided the run's method ({@code compressor: auto}'s {@code advice.csv} and
     * {@code advice.json}). On endpoint 0 only, as every result file.
     */
    public ExperimentRunner records(Map<String, String> files, Map<String, Object> provenance) {
        this.records = Map.copyOf(files);
        this.provenanceExtra = Map.copyOf(provenance);
        return this;
    }

    /**
     * Lets a resumed run go on at another number of workers than its checkpoint's ({@code lgc run --resume DIR
     * --workers K}, {@code lgc launch --resize}): see {@code DistributedTrainer.Builder#allowResize}.
     */
    public ExperimentRunner allowResize(boolean allow) {
        this.allowResize = allow;
        return this;
    }

    /**
     * As {@link #records(Map, Map)}, and {@code summary} of the finished run's result goes into {@code summary.json}
     * as {@code advice} (null: nothing).
     */
    public ExperimentRunner records(Map<String, String> files, Map<String, Object> provenance,
                                    Function<TrainingResult, Map<String, Object>> summary) {
        this.summaryExtra = Objects.requireNonNull(summary, "summary");
        return records(files, provenance);
    }

    /**
     * What a run produced.
     *
     * @param directory the result directory
     * @param result    the trainer's result
     * @param summary   the content of summary.json
     * @param model     the trained model (this process's replica, the same on every rank), or null on a process
     *                  that hosts only a service endpoint (a parameter-server shard)
     */
    public record RunOutcome(Path directory, TrainingResult result, RunSummary summary, Model model) {
    }

    /**
     * Runs {@code config} into a new directory {@code <run.outputDir>/<run.name>-<yyyyMMdd-HHmmss>[-n]/};
     * {@code extraListeners} (a progress bar) observe the training too.
     *
     * <p>Every input is checked before that directory is created — the output directory can be made, the data is
     * there and holds one global batch, the trainer accepts model, topology and schedule — so a run that fails a
     * check leaves nothing behind. A run whose training then fails keeps its directory with {@code config.yaml},
     * {@code provenance.json} and the {@code metrics.csv} of the steps it made, and no {@code summary.json}; see
     * {@link RunFailedException}.
     *
     * @throws RunInputException        when the output directory cannot be created or the trainer refuses the
     *                                  settings; nothing was written
     * @throws DatasetNotFoundException when the data is not there (names where it looked and how to install it);
     *                                  nothing was written
     * @throws IOException              when the data cannot be read or the results cannot be written
     * @throws RunFailedException       when training failed after it started
     */
    public RunOutcome run(ExperimentConfig config, String configSource, List<TrainingListener> extraListeners)
            throws IOException {
        Path root = Path.of(config.run().outputDir());
        checkCanCreate(root, "run.outputDir " + root);
        Path dir = newRunDirectory(root, config.run().name());
        Prepared prepared = prepare(config, extraListeners, null, dir, null, true, dir);
        Files.createDirectories(dir);
        return execute(prepared, dir, true, config, configSource, 0);
    }

    /**
     * Resumes the run in {@code runDir} from its latest complete checkpoint ({@code runDir/checkpoints/}, written
     * with {@code training.checkpointEverySteps}): the trainer is built from {@code config} (null: the run's own
     * {@code config.yaml}), restored, and trained to the end; {@code metrics.csv} keeps the rows of the steps before
     * the checkpoint and continues after them (rows the interrupted run wrote after it are dropped), and
     * {@code summary.json} is written at the end as for a run never interrupted — the same, but for timings.
     *
     * <p>A config may differ from the checkpoint's only in keys that do not change what a step computes
     * ({@code training.epochs}, {@code training.maxSteps}, {@code training.checkpointEverySteps}, {@code runtime.*},
     * {@code run.outputDir}): more epochs continue a finished run. Checkpoints that fail their checks are passed over
     * for an older one, and said so on {@code log}.
     *
     * @throws RunInputException when the directory holds no complete checkpoint, or the checkpoint does not fit the
     *                           config (every difference named); nothing was written
     * @throws RunFailedException when training failed after it resumed
     */
    public RunOutcome resume(Path runDir, ExperimentConfig config, String configSource,
                             List<TrainingListener> extraListeners, PrintStream log) throws IOException {
        Path yaml = runDir.resolve("config.yaml");
        if (!Files.isDirectory(runDir)) {
            throw new RunInputException("cannot resume " + runDir + ": no such directory");
        }
        ExperimentConfig cfg = config;
        if (cfg == null) {
            if (!Files.isRegularFile(yaml)) {
                throw new RunInputException("cannot resume " + runDir + ": it has no config.yaml; is it a result"
                        + " directory of lgc run?");
            }
            cfg = ConfigLoader.load(yaml);
        }
        CheckpointDirectory checkpoints = CheckpointDirectory.in(runDir);
        Checkpoint from = checkpoints.latest(skipped -> log.println("lgc: passing over a checkpoint that fails"
                + " its checks: " + skipped.getMessage())).orElseThrow(() -> new RunInputException("cannot resume "
                + runDir + ": no complete checkpoint in " + checkpoints.root() + " (a run saves them with"
                + " training.checkpointEverySteps > 0)"));
        log.println("lgc: resuming " + runDir + " from " + from.directory().getFileName() + " (step "
                + from.nextStep() + ", " + from.manifest().stage() + ")");
        return runIn(runDir, cfg, configSource, extraListeners, null, from);
    }

    /**
     * Runs this process's endpoint of a multi-process run of {@code config} (one process per rank and service,
     * joined by {@code connector}; see {@code lgc worker}). Endpoint 0 writes the result directory as {@link #run}
     * does (its {@code config.yaml} says {@code runtime.type: tcp}) and calls {@code extraListeners}; the others
     * write nothing and return an outcome without directory or summary.
     *
     * @param endpoint this process's endpoint (workers 0..K-1, then the topology's services)
     * @throws IOException        as for {@link #run}
     * @throws RunFailedException when training failed after it started on endpoint 0: the directory holds a
     *                            {@code failure.txt} saying why, and no summary (on other endpoints the trainer's
     *                            exception propagates)
     */
    public RunOutcome runAsEndpoint(ExperimentConfig config, String configSource, ClusterConnector connector,
                                    int endpoint, List<TrainingListener> extraListeners) throws IOException {
        return runAsEndpoint(config, configSource, connector, endpoint, extraListeners, null, -1);
    }

    /**
     * As {@link #runAsEndpoint(ExperimentConfig, String, ClusterConnector, int, List)}, in a result directory every
     * process of the job names alike (what {@code lgc launch} does when the run checkpoints or may restart): every
     * endpoint writes its checkpoint parts into {@code runDir/checkpoints/}, and endpoint 0 the result files into
     * {@code runDir}. With {@code resumeStep >= 0} every endpoint resumes from the checkpoint after that many steps
     * (each reads its own part), and endpoint 0 continues the run's metrics.csv as {@link #resume} does.
     *
     * @param runDir     the run's directory, the same on every process; null for endpoint 0's new timestamped one
     *                   and no checkpoints
     * @param resumeStep the step of the checkpoint to resume from ({@code step-NNNNNN}), or -1
     */
    public RunOutcome runAsEndpoint(ExperimentConfig config, String configSource, ClusterConnector connector,
                                    int endpoint, List<TrainingListener> extraListeners, Path runDir,
                                    long resumeStep) throws IOException {
        ExperimentConfig tcp = config.runtime().type() == RuntimeType.TCP ? config
                : config.withRuntime(config.runtime().withType(RuntimeType.TCP));
        Checkpoint from = null;
        if (resumeStep >= 0) {
            if (runDir == null) {
                throw new IllegalArgumentException("a resume needs the run directory");
            }
            try {
                from = CheckpointDirectory.in(runDir).load(resumeStep);
            } catch (CheckpointException e) {
                throw new RunInputException("cannot resume " + runDir + ": " + e.getMessage(), e);
            }
        }
        if (endpoint != 0) {
            Prepared prepared = prepare(tcp, List.of(), connector, runDir, from, endpoint < tcp.training().workers(),
                    runDir);
            prepared.csv().target = new TrainingListener() {
                @Override
                public void onStep(StepMetrics metrics) {
                    // only endpoint 0 assembles step metrics
                }
            };
            TrainingResult result = fit(prepared.trainer(), tcp.training().epochs());
            return new RunOutcome(null, result, null, endpoint < tcp.training().workers()
                    ? prepared.trainer().trainedModel() : null);
        }
        if (runDir != null) {
            return runIn(runDir, tcp, configSource, extraListeners, connector, from);
        }
        Path root = Path.of(tcp.run().outputDir());
        checkCanCreate(root, "run.outputDir " + root);
        Path dir = newRunDirectory(root, tcp.run().name());
        Prepared prepared = prepare(tcp, extraListeners, connector, null, null, true, dir);
        Files.createDirectories(dir);
        return execute(prepared, dir, true, tcp, configSource, 0);
    }

    /**
     * Runs {@code config} into the given directory (created if absent; files of an earlier attempt are replaced).
     * {@code summary.json} is written last and atomically, so its presence marks a finished run: the table
     * commands use it to resume a suite without rerunning what already finished. The inputs are checked, as for
     * {@link #run}, before the directory is created or anything in it is touched.
     *
     * @throws IOException as for {@link #run}
     */
    public RunOutcome runInto(Path dir, ExperimentConfig config, String configSource,
                              List<TrainingListener> extraListeners) throws IOException {
        return runIn(dir, config, configSource, extraListeners, null, null);
    }

    /**
     * Trains into {@code dir} (created if absent; an earlier attempt's summary and failure removed once the inputs
     * are checked), from the start or resumed from {@code from}.
     */
    private RunOutcome runIn(Path dir, ExperimentConfig config, String configSource,
                                    List<TrainingListener> extraListeners, ClusterConnector connector,
                                    Checkpoint from) throws IOException {
        checkCanCreate(dir, "result directory " + dir);
        Prepared prepared = prepare(config, extraListeners, connector, dir, from, true, dir);
        boolean created = !Files.isDirectory(dir);
        Files.createDirectories(dir);
        Files.deleteIfExists(dir.resolve(SUMMARY));
        Files.deleteIfExists(dir.resolve(FAILURE));
        return execute(prepared, dir, created, config, configSource, from == null ? 0 : from.nextStep());
    }

    /** A trainer ready to run, whose metrics file is opened only once the directory exists. */
    private record Prepared(DistributedTrainer trainer, LateListener csv, ComputeThreads threads) {
    }

    /** Forwards to a listener set after the trainer was built (the CSV writer, once its directory exists). */
    private static final class LateListener implements TrainingListener {
        private TrainingListener target;

        @Override
        public void onStart(TrainingPlan plan) {
            target.onStart(plan);
        }

        @Override
        public void onStep(StepMetrics metrics) {
            target.onStep(metrics);
        }

        @Override
        public void onEnd(TrainingResult result) {
            target.onEnd(result);
        }
    }

    /**
     * Reads the data and builds model, topology and trainer: every check that needs no output directory.
     *
     * @param runDir where the run's checkpoints go when the config asks for them (the directory need not exist
     *               yet), or null for none
     * @param resume the checkpoint to resume from, or null
     */
    /**
     * @param worker    whether this process hosts a worker rank: a process hosting only a service endpoint reads no
     *                  example (it counts them from the files' headers) and no test data
     * @param resultDir the run's directory, where a relative {@code training.trace.file} goes; null: the working
     *                  directory
     */
    private Prepared prepare(ExperimentConfig config, List<TrainingListener> extraListeners,
                                    ClusterConnector connector, Path runDir, Checkpoint resume, boolean worker,
                                    Path resultDir)
            throws IOException {
        Nd4jEnvironment.configure();
        // one process computes at a time here: a launched one its rank (lgc launch resolved auto for all it started),
        // and one JVM's K ranks take turns computing (InProcessRuntime), so each pass may have every core
        ComputeThreads threads;
        try {
            threads = Nd4jEnvironment.threads(config.model().compute().threads(), 1);
        } catch (IllegalStateException e) {
            throw new RunInputException(e.getMessage(), e);
        }
        DataConfig data = config.data();
        Path dataDir = Path.of(data.path());
        DataSource train = worker ? trainingData(data) : DataSource.countOnly(countOnly(data));
        DataSetIterator test = worker ? testData(data) : null;
        Model model = buildModel(config.model(), config.run().seed());
        // the compressor and topology come from the registry (ServiceLoader): the runner names no method
        ConfiguredMethod method = config.method();
        Topology topology = method.newTopology();
        LateListener csv = new LateListener();
        DistributedTrainer.Builder builder = DistributedTrainer.builder()
                .model(model)
                .data(train)
                .prefetch(data.prefetch())
                .workers(config.training().workers())
                .batchSizePerWorker(config.training().batchSizePerWorker())
                .seed(config.run().seed())
                .topology(topology)
                .maxSteps(config.training().maxSteps())
                .diagnostics(config.training().diagnostics())
                .overlap(config.training().overlapMode())
                .bucketBytes(config.training().bucketBytes())
                .compute(config.model().compute().settings().withThreads(threads.threads()))
                .checkData(data.check())
                .values(config.compressor().valueEncoding())
                .stages(method.stages())
                .runIdentity(config.run().name(), ConfigKeys.flatten(config), CheckpointManifest.DEFAULT_IGNORED_KEYS)
                .listener(csv);
        if (test != null) {
            builder.evaluation(test, config.training().evalEverySteps());
        }
        if (runDir != null && config.training().checkpointEverySteps() > 0) {
            builder.checkpoints(runDir, config.training().checkpointEverySteps());
        }
        if (resume != null) {
            builder.resumeFrom(resume).allowResize(allowResize);
        }
        TraceSection trace = config.training().trace();
        if (trace.on()) {
            builder.trace(traceSettings(trace, resultDir));
        }
        extraListeners.forEach(builder::listener);
        if (connector != null) {
            builder.cluster(connector);
        }
        try {
            return new Prepared(builder.build(), csv, threads);
        } catch (CheckpointMismatchException e) {
            throw new RunInputException(e.getMessage(), e);
        } catch (SettingsException e) {
            // a compressor setting that does not fit this model (e.g. a PowerSGD rank above every matrix's side)
            throw new RunInputException("key 'compressor." + e.key() + "' " + e.problem() + " (model "
                    + config.model().name() + ")", e);
        } catch (IllegalArgumentException | IllegalStateException e) {
            // e.g. a data.path whose training split holds less than one global batch
            throw new RunInputException("cannot train on " + dataDir + ": " + e.getMessage(), e);
        } catch (UncheckedIOException e) {
            // a file source that cannot read its files (missing, gzipped, malformed), found by the trainer's plan
            throw new RunInputException("cannot train on " + dataDir + ": " + e.getMessage(), e);
        }
    }

    /**
     * Where the run's trace goes: {@code training.trace.file} (relative to the run's directory, else absolute), the
     * endpoints' own files in {@code trace/} beside it, so every process of a job finds the same directory when the
     * path is absolute (as {@code lgc launch} makes it).
     */
    public static TraceSettings traceSettings(TraceSection trace, Path resultDir) {
        Path file = Path.of(trace.file());
        if (!file.isAbsolute() && resultDir != null) {
            file = resultDir.resolve(file);
        }
        file = file.toAbsolutePath();
        return new TraceSettings(file, file.resolveSibling("trace"), trace.range());
    }

    /**
     * How many training examples {@code data} names, read from the IDX header (a CSV source counts its rows): what a
     * service endpoint's trainer is told, without reading an example.
     */
    private static long countOnly(DataConfig data) throws IOException {
        if (data.dataset() == DatasetName.CSV) {
            return trainingData(data).plan(1, 1).examples();
        }
        Path dir = Path.of(data.path());
        String name = FashionMnist.Split.TRAIN.imagesFileName();
        Path plain = dir.resolve(name);
        boolean gzipped = !Files.isRegularFile(plain);
        Path file = gzipped ? dir.resolve(name + ".gz") : plain;
        long declared;
        try (InputStream raw = Files.newInputStream(file);
             DataInputStream in = new DataInputStream(gzipped
                     ? new GZIPInputStream(raw) : new BufferedInputStream(raw))) {
            in.readInt(); // magic, checked by the workers' reader
            declared = Integer.toUnsignedLong(in.readInt());
        } catch (NoSuchFileException e) {
            throw new RunInputException("cannot train on " + dir + ": " + file + " is missing", e);
        }
        return data.trainLimit() == DataConfig.NO_LIMIT ? declared : Math.min(declared, data.trainLimit());
    }

    /**
     * The training data {@code data} names: Fashion-MNIST's training split in memory (read here), or a file source
     * that each worker streams its rows from (opened by the trainer, on workers only).
     */
    public static DataSource trainingData(DataConfig data) throws IOException {
        Path dir = Path.of(data.path());
        long limit = data.trainLimit() == DataConfig.NO_LIMIT ? Long.MAX_VALUE : data.trainLimit();
        if (data.dataset() == DatasetName.CSV) {
            CsvConfig csv = data.csv();
            return CsvSource.in(dir).label(csv.labelColumn(), csv.classes()).skipLines(csv.skipLines())
                    .delimiter(csv.delimiter().charAt(0)).limit(limit);
        }
        FashionMnist.Split split = FashionMnist.Split.TRAIN;
        if (data.source() == SourceKind.MEMORY) {
            return MemorySource.of(FashionMnist.load(dir, split, data.trainLimit() == DataConfig.NO_LIMIT
                    ? FashionMnist.ALL : data.trainLimit(), data.preprocessing()).toDataSet());
        }
        for (String name : List.of(split.imagesFileName(), split.labelsFileName())) {
            if (!Files.isRegularFile(dir.resolve(name)) && Files.isRegularFile(dir.resolve(name + ".gz"))) {
                throw new RunInputException("data.source files streams the uncompressed IDX files, but "
                        + dir.resolve(name) + " is missing (only " + name + ".gz is there): gunzip it (gunzip -k"
                        + " keeps the .gz), or use data.source: memory");
            }
        }
        return IdxSource.fashionMnist(dir, split).pixels(data.preprocessing()).limit(limit);
    }

    /**
     * The test data {@code data} names, read like its training data: Fashion-MNIST's test split in memory, or from
     * its uncompressed IDX files with {@code source: files}; a CSV dataset's {@code testPath}. Null when there is none
     * (a CSV dataset without {@code testPath}): the run is not evaluated.
     */
    public static DataSetIterator testData(DataConfig data) throws IOException {
        Path dir = Path.of(data.path());
        long limit = data.testLimit() == DataConfig.NO_LIMIT ? Long.MAX_VALUE : data.testLimit();
        if (data.dataset() == DatasetName.CSV) {
            if (data.testPath().isEmpty()) {
                return null;
            }
            CsvConfig csv = data.csv();
            return CsvSource.in(Path.of(data.testPath())).label(csv.labelColumn(), csv.classes())
                    .skipLines(csv.skipLines()).delimiter(csv.delimiter().charAt(0)).limit(limit).inOrder(1000);
        }
        FashionMnist.Split split = FashionMnist.Split.TEST;
        if (data.source() == SourceKind.FILES && Files.isRegularFile(dir.resolve(split.imagesFileName()))) {
            return IdxSource.fashionMnist(dir, split).pixels(data.preprocessing()).limit(limit).inOrder(1000);
        }
        return FashionMnist.load(dir, split, data.testLimit() == DataConfig.NO_LIMIT ? FashionMnist.ALL
                : data.testLimit(), data.preprocessing()).iterator(1000);
    }

    /**
     * "test accuracy 0.8123", or, for a run that evaluated nothing, why: "not evaluated (no test data: set
     * data.testPath)".
     */
    public static String accuracy(double finalAccuracy) {
        return Double.isNaN(finalAccuracy) ? "not evaluated (no test data: set data.testPath)"
                : String.format(Locale.ROOT, "test accuracy %.4f", finalAccuracy);
    }

    /**
     * Says on stderr when the fast path was asked for and some layer does not run on it: the run goes on (DL4J's own
     * path computes the same gradient, slower), and provenance.json names the layers.
     */
    private static void warnAboutCompute(ComputeReport compute) {
        if (compute.build().narrowerThanTheCpu(CpuInfo.ofThisMachine())) {
            System.err.println("lgc: note: this CPU has AVX-512, but ND4J runs " + compute.build().loaded() + " ("
                    + compute.build().reason() + ")");
        }
        if (!compute.settings().oneDnn()) {
            return;
        }
        if (!compute.oneDnnAvailable()) {
            System.err.println("lgc: warning: model.compute.oneDnn is true but ND4J's native library here has no"
                    + " oneDNN (native variant " + compute.build().loaded() + "; the *-onednn* classifiers have"
                    + " it): every layer runs DL4J's own, slower path");
            return;
        }
        if (!compute.missingHelpers().isEmpty()) {
            System.err.println("lgc: warning: these layers run without their oneDNN helper (DL4J refused it for"
                    + " their configuration), slower: " + compute.missingHelpers().stream()
                    .map(l -> l.name() + " (" + l.type() + ")").collect(Collectors.joining(", ")));
        }
    }

    /** Writes the run's files into {@code dir} (which exists), trains, and writes summary.json last. */
    private RunOutcome execute(Prepared prepared, Path dir, boolean created, ExperimentConfig config,
                                      String configSource, long resumeStep) throws IOException {
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        DistributedTrainer trainer = prepared.trainer();
        warnAboutCompute(trainer.compute());
        TrainingResult result;
        boolean started = false;
        try {
            Files.writeString(dir.resolve("config.yaml"), config.toYaml());
            for (Map.Entry<String, String> file : records.entrySet()) {
                Files.writeString(dir.resolve(file.getKey()), file.getValue());
            }
            // a resumed run keeps the provenance of its start and adds the resume's own
            Map<String, Object> provenance = Provenance.collect(configSource, config.run().seed(), trainer.compute());
            provenance.put("computeThreads", Map.of("requested", prepared.threads().requested(),
                    "threads", prepared.threads().threads(), "reason", prepared.threads().reason(),
                    "blasThreads", Nd4jThreads.blas()));
            provenance.putAll(provenanceExtra);
            json.writeValue(dir.resolve(resumeStep > 0 ? "provenance-resumed-at-step-" + resumeStep + ".json"
                    : "provenance.json").toFile(), provenance);
            try (MetricsCsvWriter csv = resumeStep > 0
                    ? MetricsCsvWriter.continuing(dir.resolve("metrics.csv"), config.training().diagnostics(),
                            resumeStep, config.training().workers(),
                            config.method().newTopology().serviceEndpoints(config.training().workers()))
                    : new MetricsCsvWriter(dir.resolve("metrics.csv"), config.training().diagnostics())) {
                prepared.csv().target = csv;
                started = true;
                try {
                    result = fit(trainer, config.training().epochs());
                } catch (RuntimeException e) {
                    // a reader of the directory sees at once that the run failed and why, not a half run
                    Files.writeString(dir.resolve(FAILURE), e.getMessage() + System.lineSeparator());
                    throw new RunFailedException(dir, e);
                }
            }
        } catch (IOException e) {
            // the run's own files could not be written before training: leave no half-made directory
            if (created && !started) {
                deleteRunFiles(dir);
            }
            throw e;
        }
        RunSummary summary = RunSummary.of(config, result, trainer.layout().length(), result.replicaChecksums());
        Map<String, Object> advice = summaryExtra.apply(result);
        if (advice != null) {
            summary = summary.withAdvice(advice);
        }
        summary.writeAtomically(dir.resolve(SUMMARY));
        return new RunOutcome(dir, result, summary, trainer.trainedModel());
    }

    /** Trains, then closes the training data (a file source's open files). */
    private static TrainingResult fit(DistributedTrainer trainer, int epochs) throws IOException {
        TrainingResult result;
        try {
            result = trainer.fit(epochs);
        } catch (RuntimeException e) {
            try {
                trainer.data().close();
            } catch (IOException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
        trainer.data().close();
        return result;
    }

    /** Removes the files a run writes, then the directory if nothing else is in it. */
    private static void deleteRunFiles(Path dir) {
        try {
            for (String f : List.of("metrics.csv", "config.yaml", "provenance.json", SUMMARY + ".partial")) {
                Files.deleteIfExists(dir.resolve(f));
            }
            try (var left = Files.list(dir)) {
                if (left.findAny().isEmpty()) {
                    Files.delete(dir);
                }
            }
        } catch (IOException ignored) {
            // best effort: the original failure is what the caller reports
        }
    }

    /**
     * Checks, without creating anything, that {@code dir} is a directory or can be created: it is not a file, the
     * nearest existing ancestor is a directory, and that one is writable.
     *
     * @param what how to name {@code dir} in the message, e.g. {@code run.outputDir results}
     * @throws RunInputException naming the path that is in the way
     */
    static void checkCanCreate(Path dir, String what) throws RunInputException {
        Path absolute = dir.toAbsolutePath().normalize();
        Path existing = absolute;
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            return;
        }
        if (!Files.isDirectory(existing)) {
            throw new RunInputException(what + (existing.equals(absolute) ? " is a file, not a directory"
                    : " cannot be created: " + existing + " is a file, not a directory"));
        }
        if (!Files.isWritable(existing)) {
            throw new RunInputException(what + (existing.equals(absolute) ? " is not writable"
                    : " cannot be created: " + existing + " is not writable"));
        }
    }

    /** The zoo model a config names, with its updater. */
    public static Model buildModel(ModelConfig model, long seed) {
        IUpdater updater = updater(model.updater());
        return model.name().build(seed, updater);
    }

    /** The DL4J updater of an updater config. */
    public static IUpdater updater(UpdaterConfig u) {
        return switch (u.type()) {
            case NESTEROVS -> new Nesterovs(u.learningRate(), u.momentum());
            case SGD -> new Sgd(u.learningRate());
            case ADAM -> new Adam(u.learningRate());
        };
    }

    /**
     * The stage schedule a config implies, as its compressor declares it: all FULL without a compressor; FULL then
     * TOP_K for the rest with one; FULL, TOP_K while the autoencoder trains, then COMPRESSED for LGC.
     */
    public static StageSchedule stages(ExperimentConfig config) {
        return config.method().stages();
    }

    /** The topology a config names, carrying its compressor (if any), built by the registered provider. */
    public static Topology topology(ExperimentConfig config) {
        return config.method().newTopology();
    }

    /** {@code root/<name>-<yyyyMMdd-HHmmss>[-n]}, a path that does not exist yet (not created). */
    public static Path newRunDirectory(Path root, String name) {
        String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Path dir = root.resolve(name + "-" + stamp);
        for (int i = 2; Files.exists(dir); i++) {
            dir = root.resolve(name + "-" + stamp + "-" + i);
        }
        return dir;
    }
}

package io.lgc4j.spark;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.lgc4j.advise.config.AutoMethod;
import io.lgc4j.runner.config.ExperimentConfig;
import io.lgc4j.runner.config.RuntimeType;
import io.lgc4j.runner.ExperimentRunner;
import io.lgc4j.runner.RunSummary;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.rdd.RDD;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;
import java.util.stream.IntStream;
import java.util.zip.CRC32C;

/**
 * Trains an experiment on a Spark cluster: one barrier stage (SPARK-24374), one task per rank, gang-scheduled, every
 * task running that rank of lgc4j's network runtime. The tasks exchange their addresses once through the barrier's
 * {@code allGather}; training traffic goes over the runtime's own authenticated TCP links, so a run computes what
 * {@code lgc run} computes in one JVM, bit for bit. Rank 0's result files and the trained model come back to the
 * driver into {@code <outputDir>/<run-id>/}. A failed task makes Spark retry the whole stage; with
 * {@code training.checkpointEverySteps} set, the retry resumes from the last complete checkpoint. An elastic fit
 * ({@link SparkOptions#withElastic}) instead submits the next attempt itself, a barrier job of as many ranks as the
 * cluster then offers slots (a lost executor's are gone), resumed at that K.
 *
 * <pre>{@code
 * JavaSparkContext sc = new JavaSparkContext(new SparkConf().setAppName("lgc"));
 * SparkRun run = LgcSpark.fit(sc, ConfigLoader.load(Path.of("configs/quickstart.yaml")), SparkOptions.defaults());
 * System.out.println(run.summary().finalTestAccuracy() + " in " + run.directory());
 * }</pre>
 *
 * <p>Every executor must reach the data at the config's {@code data.path}, and have the lgc-spark jar and its
 * libraries on its class path (spark-submit's {@code --jars}). Java 17 executors need
 * {@code --add-exports=java.base/sun.nio.ch=ALL-UNNAMED} (spark-submit adds it).
 */
public final class LgcSpark {
    /** The driver's record of the run, beside the result files. */
    public static final String SPARK_FILE = "spark.json";

    private LgcSpark() {
    }

    /**
     * Runs {@code config} as one barrier stage on {@code sc}'s cluster, with K = {@code training.workers} ranks.
     *
     * @throws LgcSparkException when the cluster cannot run it (dynamic allocation, fewer task slots than tasks
     *                           after {@link SparkOptions#slotWait()}) or the stage failed for good
     */
    public static SparkRun fit(JavaSparkContext sc, ExperimentConfig config, SparkOptions options) {
        return fit(sc, config, config.run().name() + ".yaml", options);
    }

    /** As {@link #fit(JavaSparkContext, ExperimentConfig, SparkOptions)}, naming where the config came from. */
    public static SparkRun fit(JavaSparkContext sc, ExperimentConfig config, String source, SparkOptions options) {
        ExperimentConfig tcp = config.withRuntime(config.runtime().withType(RuntimeType.TCP));
        return fit(sc, tcp, null, source, options);
    }

    /**
     * {@code compressor: auto} on Spark: the K tasks (parameter-server shards, when the choice has them, inside the
     * workers' tasks) first join an advise session on connections of their own, which probes the links between the
     * executors; rank 0 advises, every task learns the choice and trains it ({@code AutoRun}). Rank 0's result files
     * hold {@code advice.json} and {@code advice.csv}; a retried stage takes the recorded choice.
     *
     * <pre>{@code
     * SparkRun run = LgcSpark.fit(sc, AutoMethod.read(Path.of("configs/auto/quickstart.yaml")).orElseThrow(),
     *         "configs/auto/quickstart.yaml", SparkOptions.defaults());
     * }</pre>
     *
     * @throws LgcSparkException as {@link #fit(JavaSparkContext, ExperimentConfig, SparkOptions)}, and when the
     *                           shards are not to be co-located or a candidate has more shards than workers
     */
    public static SparkRun fit(JavaSparkContext sc, AutoMethod auto, String source, SparkOptions options) {
        AutoMethod tcp = auto.map(c -> c.withRuntime(c.runtime().withType(RuntimeType.TCP)));
        int workers = tcp.base().training().workers();
        if (!options.colocate()) {
            throw new LgcSparkException("compressor: auto runs every candidate's shards inside the workers' tasks (the"
                    + " stage's task count cannot wait for the choice): drop SparkOptions.withColocate(false)"
                    + " (lgc-spark --no-colocate)");
        }
        int most = tcp.maxServices(workers);
        if (most > workers) {
            throw new LgcSparkException("a candidate of compressor: auto has " + most + " parameter-server shards for "
                    + workers + " workers: co-located shards need at most as many as workers");
        }
        return fit(sc, tcp.base(), tcp, source, options);
    }

    private static SparkRun fit(JavaSparkContext sc, ExperimentConfig tcp, AutoMethod auto, String source,
                                SparkOptions options) {
        return fit(sc, tcp, auto, source, options, () -> ClusterChecks.slots(sc.sc()));
    }

    /**
     * The fit, with {@code slots} saying how many task slots the cluster offers now (Spark's count; a test of the
     * elastic loop gives its own).
     */
    static SparkRun fit(JavaSparkContext sc, ExperimentConfig tcp, AutoMethod auto, String source,
                        SparkOptions options, IntSupplier slots) {
        ClusterChecks.refuseDynamicAllocation(sc.sc());
        int workers = tcp.training().workers();
        SparkOptions.Elastic elastic = options.elastic();
        if (elastic != null && auto != null) {
            throw new LgcSparkException("compressor: auto cannot run elastic: its advise session is for K ="
                    + " training.workers; choose the method first (lgc advise) or drop SparkOptions.withElastic"
                    + " (lgc-spark --min-workers)");
        }
        if (elastic != null && elastic.minWorkers() > workers) {
            throw new LgcSparkException("elastic.minWorkers is " + elastic.minWorkers() + ", more than the "
                    + workers + " ranks of training.workers: expected at most " + workers);
        }
        Shape shape = new Shape(tcp, auto, options.colocate());
        shape.check(workers);
        int k = elastic == null ? workers : shape.elasticWorkers(sc.sc(), slots, workers, elastic.minWorkers(),
                options.slotWait(), true);
        if (elastic == null) {
            ClusterChecks.awaitSlots(sc.sc(), shape.tasks(workers), shape.describe(workers), options.slotWait(),
                    "training.workers");
        }

        Path dir = resultDirectory(tcp, options);
        Path shared = options.sharedDir() == null ? dir : options.sharedDir().resolve(dir.getFileName());
        byte[] token = options.token();
        if (token == null) {
            token = new byte[32];
            new SecureRandom().nextBytes(token);
        }
        int job = jobNumber(sc.sc().applicationId() + "/" + dir.getFileName());
        replaceBarrierTimer(sc.sc());
        List<Round> rounds = new ArrayList<>();
        List<TaskReport> reports;
        long submitted;
        for (int round = 0; ; round++) {
            ExperimentConfig atK = shape.at(k, workers);
            BarrierTraining task = new BarrierTraining(atK.toYaml(), source, k, shape.services(k), shape.colocate(k),
                    shared.toString(), token, job, options.fault(), options.tls())
                    .auto(auto == null ? null : BarrierTraining.AutoPlan.of(auto)).round(round, elastic != null);
            submitted = System.currentTimeMillis();
            try {
                reports = runStage(sc, task, shape.tasks(k), elastic == null, "lgc4j " + tcp.run().name() + ": "
                        + shape.describe(k));
                rounds.add(new Round(k, reports.get(0).resumedFrom(), null));
                break;
            } catch (Exception e) {
                String why = firstLines(e);
                if (elastic != null && badInput(e)) {
                    throw new LgcSparkException("attempt " + (round + 1) + " of " + tcp.run().name() + " at K = " + k
                            + " failed on a bad input, which every attempt would repeat (not restarted): " + why, e);
                }
                if (elastic == null || round >= elastic.maxRestarts()) {
                    throw new LgcSparkException((elastic == null ? "the barrier stage of " + tcp.run().name()
                            : "attempt " + (round + 1) + " of " + tcp.run().name() + " at K = " + k + " (after "
                            + round + " restart" + (round == 1 ? "" : "s") + ", elastic.maxRestarts "
                            + elastic.maxRestarts() + ")") + " failed: " + why + " (results, if any, in " + shared
                            + ")", e);
                }
                rounds.add(new Round(k, -2, why));
                pause(SETTLE);
                int before = k;
                k = shape.elasticWorkers(sc.sc(), slots, workers, elastic.minWorkers(), options.slotWait(), false);
                System.err.println("lgc-spark: attempt " + (round + 1) + " at K = " + before + " failed (" + why
                        + "); the cluster offers " + slots.getAsInt() + " task slots: going on at K = " + k
                        + " from the last complete checkpoint");
            }
        }
        long collected = System.currentTimeMillis();
        reports.sort(Comparator.comparingInt(TaskReport::partition));
        for (Map.Entry<String, byte[]> f : reports.get(0).resultFiles().entrySet()) {
            write(dir.resolve(f.getKey()), f.getValue());
        }
        SparkRun run = timing(dir, reports, submitted, collected);
        writeRecord(dir, sc.sc(), reports, run, shape.tasks(k), shape.colocate(k), shared, options.tls(),
                elastic == null ? null : rounds);
        return run;
    }

    /** The run's new {@code <outputDir>/<run-id>/} on the driver, created. */
    private static Path resultDirectory(ExperimentConfig config, SparkOptions options) {
        Path root = options.outputDir() != null ? options.outputDir() : Path.of(config.run().outputDir());
        Path dir = ExperimentRunner.newRunDirectory(root, config.run().name()).toAbsolutePath();
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the result directory " + dir, e);
        }
        return dir;
    }

    /** In local mode, Spark's non-daemon barrier timer replaced by a daemon one ({@link BarrierTimer}), or a warning. */
    static void replaceBarrierTimer(SparkContext sc) {
        if (sc.isLocal()) {
            String problem = BarrierTimer.replaceInThisJvm();
            if (problem != null) {
                System.err.println("lgc-spark: warning: " + problem);
            }
        }
    }

    /**
     * Runs one barrier stage of {@code task} over {@code tasks} partitions and returns the tasks' reports. With {@code
     * retried}, through a shuffle: Spark retries a failed barrier stage (the same tasks) only when it is a shuffle-map
     * stage; a failed barrier result stage aborts the job ("Could not recover from a failed barrier ResultStage"),
     * which is what an elastic fit wants: it submits the next attempt itself, at the K the cluster then offers.
     */
    private static List<TaskReport> runStage(JavaSparkContext sc, BarrierTraining task, int tasks, boolean retried,
                                             String description) {
        ClassTag<TaskReport> reportTag = ClassTag$.MODULE$.apply(TaskReport.class);
        sc.setJobDescription(description);
        try {
            RDD<Integer> slots = sc.parallelize(IntStream.range(0, tasks).boxed().toList(), tasks).rdd();
            RDD<TaskReport> trained = slots.barrier().mapPartitions(task, false, reportTag);
            JavaRDD<TaskReport> reports = new JavaRDD<>(trained, reportTag);
            return new ArrayList<>((retried ? reports.repartition(1) : reports).collect());
        } finally {
            sc.setJobDescription(null);
        }
    }

    /** How long an elastic fit lets Spark register a lost executor before it counts the slots left. */
    static final Duration SETTLE = Duration.ofSeconds(2);

    /**
     * One attempt of an elastic fit: its K, the checkpoint step it resumed from (-1 step 0, -2 not known: the
     * attempt failed), and why it failed (null: it finished).
     */
    private record Round(int workers, long resumedFrom, String failure) {
    }

    /**
     * The stage's shape at each K: shards, whether they share the ranks' tasks, task count, description. Co-located
     * shard s runs in rank s's task, so at a K below the config's S (an elastic attempt with fewer slots) the shards
     * beyond K go with their ranks: S' = min(S, K).
     */
    private record Shape(ExperimentConfig config, AutoMethod auto, boolean colocateWanted) {

        /** The config's shards at K (0 for auto: the chosen method's start inside the workers' tasks). */
        int configured(int k) {
            return auto != null ? 0 : config.method().newTopology().serviceEndpoints(k);
        }

        int services(int k) {
            return colocateWanted ? Math.min(configured(k), k) : configured(k);
        }

        /** The config an attempt at K runs: training.workers K, and topology.servers S' when fewer shards ride along. */
        ExperimentConfig at(int k, int workers) {
            ExperimentConfig atK = k == workers ? config : config.withTraining(config.training().withWorkers(k));
            return services(k) == configured(k) ? atK : atK.withTopology(atK.topology().with("servers", services(k)));
        }

        boolean colocate(int k) {
            return auto != null || colocateWanted && services(k) > 0;
        }

        int tasks(int k) {
            return BarrierTraining.tasks(k, services(k), colocate(k));
        }

        String describe(int k) {
            return describeTasks(config, auto, k, services(k), colocate(k));
        }

        void check(int k) {
            if (colocateWanted && auto == null && configured(k) > k) {
                throw new LgcSparkException("co-located shards need at most as many shards as workers, found "
                        + configured(k) + " shards (topology.servers) for " + k + " workers; use more workers or"
                        + " SparkOptions.withColocate(false) (lgc-spark --no-colocate)");
            }
        }

        /**
         * The K of an elastic attempt: the most ranks, at most {@code most}, whose tasks the cluster offers slots
         * for; at least {@code least}, waiting up to {@code wait} for them (the first attempt waits that long for
         * {@code most}).
         */
        int elasticWorkers(SparkContext sc, IntSupplier slots, int most, int least, Duration wait, boolean first) {
            int offered = ClusterChecks.slotsWithin(slots, tasks(first ? most : least), first ? wait : Duration.ZERO);
            int k = fitting(offered, most, least);
            if (k < 0 && !first) {
                offered = ClusterChecks.slotsWithin(slots, tasks(least), wait);
                k = fitting(offered, most, least);
            }
            if (k < 0) {
                throw ClusterChecks.tooFew(sc, offered, "at least " + describe(least) + " (elastic.minWorkers "
                        + least + ")", wait, "elastic.minWorkers");
            }
            return k;
        }

        private int fitting(int offered, int most, int least) {
            for (int k = most; k >= least; k--) {
                if (tasks(k) <= offered) {
                    return k;
                }
            }
            return -1;
        }
    }

    /**
     * Whether a failed job's task failed on a bad input (an {@code IllegalArgumentException}, a config's error: a model
     * the method refuses, a key out of range), which a restart would only repeat; not a lost executor or peer.
     */
    static boolean badInput(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof IllegalArgumentException) {
                return true;
            }
        }
        String[] lines = String.valueOf(e.getMessage()).split("\n");
        return lines.length > 1 && (lines[1].startsWith(IllegalArgumentException.class.getName() + ":")
                || lines[1].startsWith("io.lgc4j.runner.config.ConfigException:"));
    }

    /**
     * Why a job failed, on one line: Spark's first line and, when it goes on with the failed task's exception, that
     * exception's line (not its stack).
     */
    static String firstLines(Throwable e) {
        String[] lines = String.valueOf(e.getMessage()).split("\n");
        if (lines.length > 1 && !lines[1].isBlank() && !lines[1].startsWith("\t")) {
            return lines[0].strip() + " " + lines[1].strip();
        }
        return lines[0].strip();
    }

    static void pause(Duration time) {
        try {
            Thread.sleep(time.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LgcSparkException("interrupted between two attempts of an elastic fit");
        }
    }

    /** What the stage's tasks are, for messages: "4 tasks (4 ranks, shard 0 with rank 0)". */
    private static String describeTasks(ExperimentConfig config, AutoMethod auto, int workers, int services,
                                        boolean colocate) {
        String shards = services == 0 ? "" : colocate
                ? ", parameter-server shard" + (services > 1 ? "s 0.." + (services - 1) + " with ranks 0.."
                + (services - 1) : " 0 with rank 0")
                : ", " + services + " parameter-server shard" + (services > 1 ? "s" : "");
        int tasks = BarrierTraining.tasks(workers, services, colocate);
        return tasks + " barrier task" + (tasks > 1 ? "s" : "") + " (" + workers + " rank" + (workers > 1 ? "s" : "")
                + shards + "; " + (auto != null ? "compressor auto among " + auto.candidates().size() + " candidates,"
                + " shards with the ranks" : "topology " + config.topology().type() + ", compressor "
                + config.compressor().type()) + ")";
    }

    /** The job id of the runtime's frames: a CRC32C of the application and the run directory. */
    static int jobNumber(String text) {
        CRC32C crc = new CRC32C();
        crc.update(text.getBytes(StandardCharsets.UTF_8));
        return (int) crc.getValue();
    }

    private static SparkRun timing(Path dir, List<TaskReport> reports, long submitted, long collected) {
        int attempts = reports.stream().mapToInt(TaskReport::stageAttempt).max().orElse(0) + 1;
        List<TaskReport.Timeline> times = reports.stream().map(TaskReport::timeline).toList();
        long firstStart = times.stream().mapToLong(TaskReport.Timeline::startMs).min().orElse(submitted);
        long preparing = times.stream().mapToLong(t -> t.listeningMs() - t.startMs()).max().orElse(0);
        long firstListening = times.stream().mapToLong(TaskReport.Timeline::listeningMs).min().orElse(0);
        long lastJoined = times.stream().mapToLong(TaskReport.Timeline::joinedMs).max().orElse(0);
        long lastEnd = times.stream().mapToLong(TaskReport.Timeline::endMs).max().orElse(0);
        RunSummary summary;
        try {
            summary = RunSummary.read(dir.resolve(ExperimentRunner.SUMMARY));
        } catch (IOException e) {
            throw new UncheckedIOException("rank 0 sent no readable summary.json into " + dir, e);
        }
        return new SparkRun(dir, summary, attempts, reports.get(0).resumedFrom(), collected - submitted,
                attempts == 1 ? firstStart - submitted : -1, preparing, lastJoined - firstListening,
                lastEnd - lastJoined);
    }

    private static void writeRecord(Path dir, SparkContext sc, List<TaskReport> reports, SparkRun run, int tasks,
                                    boolean colocate, Path shared, boolean tls, List<Round> rounds) {
        Map<String, Object> record = new LinkedHashMap<>();
        record.put("master", sc.master());
        record.put("applicationId", sc.applicationId());
        record.put("sparkVersion", sc.version());
        record.put("tasks", tasks);
        record.put("colocatedShards", colocate);
        record.put("sharedDir", shared.toString());
        record.put("tls", tls);
        record.put("stageAttempts", run.stageAttempts());
        record.put("resumedFrom", run.resumedFrom());
        if (rounds != null) {
            List<Map<String, Object>> attempts = new ArrayList<>();
            for (Round r : rounds) {
                Map<String, Object> a = new LinkedHashMap<>();
                a.put("workers", r.workers());
                if (r.failure() == null) {
                    a.put("resumedFrom", r.resumedFrom());
                } else {
                    a.put("failure", r.failure());
                }
                attempts.add(a);
            }
            record.put("elasticAttempts", attempts);
        }
        record.put("wallMs", run.wallMs());
        record.put("untilTasksMs", run.untilTasksMs());
        record.put("preparingMs", run.preparingMs());
        record.put("rendezvousMs", run.rendezvousMs());
        record.put("trainingMs", run.trainingMs());
        List<Map<String, Object>> perTask = new ArrayList<>();
        for (TaskReport r : reports) {
            Map<String, Object> t = new LinkedHashMap<>();
            t.put("partition", r.partition());
            t.put("host", r.host());
            t.put("endpoints", r.endpoints());
            t.put("tls", r.tls());
            TaskReport.Timeline at = r.timeline();
            t.put("preparingMs", at.listeningMs() - at.startMs());
            t.put("allGatherMs", at.gatheredMs() - at.listeningMs());
            t.put("joinMs", at.joinedMs() - at.gatheredMs());
            t.put("trainingMs", at.endMs() - at.joinedMs());
            perTask.add(t);
        }
        record.put("perTask", perTask);
        try {
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(dir.resolve(SPARK_FILE).toFile(),
                    record);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + dir.resolve(SPARK_FILE), e);
        }
    }

    /** Writes {@code bytes} to {@code file} through a temporary file (rank 0 may have written the same file). */
    private static void write(Path file, byte[] bytes) {
        try {
            if (Files.exists(file) && Arrays.equals(Files.readAllBytes(file), bytes)) {
                return;
            }
            Path partial = file.resolveSibling(file.getFileName() + ".partial");
            Files.write(partial, bytes);
            Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}

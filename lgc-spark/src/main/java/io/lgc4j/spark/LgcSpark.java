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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.zip.CRC32C;

/**
 * Trains an experiment on a Spark cluster: one barrier stage (SPARK-24374), one task per rank, gang-scheduled, every
 * task running that rank of lgc4j's network runtime. The tasks exchange their addresses once through the barrier's
 * {@code allGather}; training traffic goes over the runtime's own authenticated TCP links, so a run computes what
 * {@code lgc run} computes in one JVM, bit for bit. Rank 0's result files and the trained model come back to the
 * driver into {@code <outputDir>/<run-id>/}. A failed task makes Spark retry the whole stage; with
 * {@code training.checkpointEverySteps} set, the retry resumes from the last complete checkpoint.
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
        ClusterChecks.refuseDynamicAllocation(sc.sc());
        int workers = tcp.training().workers();
        // auto: every task a worker; the chosen method's shards start inside the workers' tasks
        int services = auto != null ? 0 : tcp.method().newTopology().serviceEndpoints(workers);
        boolean colocate = auto != null || options.colocate() && services > 0;
        if (colocate && services > workers) {
            throw new LgcSparkException("co-located shards need at most as many shards as workers, found " + services
                    + " shards (topology.servers) for " + workers + " workers; use more workers or"
                    + " SparkOptions.withColocate(false) (lgc-spark --no-colocate)");
        }
        int tasks = BarrierTraining.tasks(workers, services, colocate);
        ClusterChecks.awaitSlots(sc.sc(), tasks, describeTasks(tcp, auto, workers, services, colocate), options.slotWait(),
                "training.workers");

        Path root = options.outputDir() != null ? options.outputDir() : Path.of(tcp.run().outputDir());
        Path dir = ExperimentRunner.newRunDirectory(root, tcp.run().name()).toAbsolutePath();
        Path shared = options.sharedDir() == null ? dir : options.sharedDir().resolve(dir.getFileName());
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the result directory " + dir, e);
        }
        byte[] token = options.token();
        if (token == null) {
            token = new byte[32];
            new SecureRandom().nextBytes(token);
        }
        int job = jobNumber(sc.sc().applicationId() + "/" + dir.getFileName());
        BarrierTraining task = new BarrierTraining(tcp.toYaml(), source, workers, services, colocate,
                shared.toString(), token, job, options.fault(), options.tls())
                .auto(auto == null ? null : BarrierTraining.AutoPlan.of(auto));

        if (sc.sc().isLocal()) {
            String problem = BarrierTimer.replaceInThisJvm();
            if (problem != null) {
                System.err.println("lgc-spark: warning: " + problem);
            }
        }
        ClassTag<Integer> intTag = ClassTag$.MODULE$.apply(Integer.class);
        ClassTag<TaskReport> reportTag = ClassTag$.MODULE$.apply(TaskReport.class);
        sc.setJobDescription("lgc4j " + tcp.run().name() + ": " + describeTasks(tcp, auto, workers, services, colocate));
        long submitted = System.currentTimeMillis();
        List<TaskReport> reports;
        try {
            RDD<Integer> slots = sc.parallelize(IntStream.range(0, tasks).boxed().toList(), tasks).rdd();
            RDD<TaskReport> trained = slots.barrier().mapPartitions(task, false, reportTag);
            // through a shuffle: Spark retries a failed barrier stage only when it is a shuffle-map stage; a failed
            // barrier result stage aborts the job ("Could not recover from a failed barrier ResultStage")
            reports = new ArrayList<>(new JavaRDD<>(trained, reportTag).repartition(1).collect());
        } catch (RuntimeException e) {
            throw new LgcSparkException("the barrier stage of " + tcp.run().name() + " failed: " + e.getMessage()
                    + " (results, if any, in " + shared + ")", e);
        } finally {
            sc.setJobDescription(null);
        }
        long collected = System.currentTimeMillis();
        reports.sort(Comparator.comparingInt(TaskReport::partition));
        for (Map.Entry<String, byte[]> f : reports.get(0).resultFiles().entrySet()) {
            write(dir.resolve(f.getKey()), f.getValue());
        }
        SparkRun run = timing(dir, reports, submitted, collected);
        writeRecord(dir, sc.sc(), reports, run, tasks, colocate, shared, options.tls());
        return run;
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
                                    boolean colocate, Path shared, boolean tls) {
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

package io.lgc4j.spark;

import io.lgc4j.runner.config.ConfigException;
import io.lgc4j.advise.config.AutoMethod;
import io.lgc4j.runner.config.ConfigLoader;
import io.lgc4j.runner.config.ExperimentConfig;
import io.lgc4j.net.JobToken;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;

/**
 * {@code spark-submit --class io.lgc4j.spark.LgcSparkMain lgc-spark.jar CONFIG}: trains the experiment as one barrier
 * stage of the application's cluster ({@link LgcSpark#fit}), K = {@code training.workers} tasks. Without a master
 * (started with plain {@code java}) it runs on {@code local[tasks]}. Exits when the run ends: in local mode Spark
 * leaves a non-daemon barrier timer thread behind.
 */
@Command(name = "lgc-spark", mixinStandardHelpOptions = true,
        description = {"Train an LGC4J experiment on a Spark cluster: one barrier task per rank, the ranks joined by",
            "LGC4J's own authenticated TCP links; results and the trained model into OUTPUT_DIR/<run-id>/ on the",
            "driver."})
public final class LgcSparkMain implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "CONFIG", description = "the experiment's YAML file (read on the driver)")
    private Path config;

    @Option(names = "--workers", paramLabel = "K", description = "ranks, one barrier task each (overrides"
            + " training.workers)")
    private Integer workers;

    @Option(names = "--max-steps", description = "stop after N steps (overrides training.maxSteps)")
    private Integer maxSteps;

    @Option(names = "--output-dir", description = "where the driver writes result directories (overrides"
            + " run.outputDir)")
    private Path outputDir;

    @Option(names = "--shared-dir", description = "a directory every executor reaches (shared file system): the"
            + " run's checkpoints, from which a retried stage resumes (default: the driver's result directory,"
            + " reachable from executors on the driver's machine only)")
    private Path sharedDir;

    @Option(names = "--no-colocate", negatable = false, description = "topology ps: give every parameter-server"
            + " shard a barrier task of its own (K + S tasks) instead of running shard r in rank r's task")
    private boolean noColocate;

    @Option(names = "--slot-wait-seconds", defaultValue = "60", description = "how long to wait for executors to"
            + " offer enough task slots before refusing the job (default: ${DEFAULT-VALUE})")
    private long slotWaitSeconds;

    @Option(names = "--token-file", defaultValue = "${env:LGC_TOKEN_FILE}", description = "the job token of the"
            + " ranks' links, from a file readable by its owner only (default: 32 random bytes per job)")
    private Path tokenFile;

    @Option(names = "--tls", negatable = false, description = "mutual TLS on the ranks' links: each task makes its"
            + " own CA and certificate and trusts the stage's tasks only (only CA certificates travel; the job token"
            + " still authenticates)")
    private boolean tls;

    @Option(names = "--min-workers", paramLabel = "M", description = "elastic: when a task fails (an executor lost),"
            + " go on from the last complete checkpoint with as many ranks as the cluster then offers task slots, at"
            + " least M (each such attempt a barrier job of its own, resumed at the smaller K); needs --max-restarts")
    private Integer minWorkers;

    @Option(names = "--max-restarts", paramLabel = "N", description = "elastic: give up after N failed attempts"
            + " (with --min-workers)")
    private Integer maxRestarts;

    /** Runs the command and exits with its status. */
    public static void main(String[] args) {
        System.exit(new CommandLine(new LgcSparkMain()).execute(args));
    }

    @Override
    public Integer call() {
        ExperimentConfig cfg;
        SparkOptions options;
        Optional<AutoMethod> auto;
        try {
            UnaryOperator<ExperimentConfig> flags = c -> {
                ExperimentConfig out = workers == null ? c : c.withTraining(c.training().withWorkers(workers));
                return maxSteps == null ? out : out.withTraining(out.training().withMaxSteps(maxSteps));
            };
            // compressor: auto: the tasks choose the method in an advise session before they train
            auto = AutoMethod.read(config).map(a -> a.map(flags));
            cfg = auto.isPresent() ? auto.get().base() : flags.apply(ConfigLoader.load(config));
            options = SparkOptions.defaults().withColocate(!noColocate).withOutputDir(outputDir)
                    .withSharedDir(sharedDir).withSlotWait(Duration.ofSeconds(slotWaitSeconds))
                    .withToken(tokenFile == null ? null : JobToken.fromFile(tokenFile)).withTls(tls);
            if ((minWorkers == null) != (maxRestarts == null)) {
                throw new IllegalArgumentException("--min-workers and --max-restarts go together: an elastic fit goes"
                        + " on with at least M ranks after at most N failed attempts");
            }
            if (minWorkers != null) {
                options = options.withElastic(new SparkOptions.Elastic(minWorkers, maxRestarts));
            }
        } catch (ConfigException | IllegalArgumentException | UncheckedIOException e) {
            System.err.println("lgc-spark: " + e.getMessage());
            return 2;
        }
        SparkConf conf = new SparkConf().setAppName("lgc4j " + cfg.run().name());
        if (!conf.contains("spark.master")) {
            conf.setMaster("local[" + cfg.training().workers() + "]");
        }
        try (JavaSparkContext sc = new JavaSparkContext(conf)) {
            SparkRun run = auto.isPresent() ? LgcSpark.fit(sc, auto.get(), config.toString(), options)
                    : LgcSpark.fit(sc, cfg, config.toString(), options);
            String untilTasks = run.untilTasksMs() < 0 ? "" : String.format(Locale.ROOT, "until tasks ran %.1f s, ",
                    run.untilTasksMs() / 1e3);
            System.out.printf(Locale.ROOT, "test accuracy %.4f after %d steps at K = %d; %d stage attempt%s%s; wall %.1f s"
                            + " (%s%spreparing %.1f s, rendezvous %.1f s, training %.1f s); results in %s%n",
                    run.summary().finalTestAccuracy(), run.summary().steps(), run.summary().workers(),
                    run.stageAttempts(),
                    run.stageAttempts() == 1 ? "" : "s",
                    run.resumedFrom() < 0 ? "" : ", the last resumed after step " + run.resumedFrom(),
                    run.wallMs() / 1e3, run.stageAttempts() == 1 ? "" : "the last attempt's ", untilTasks,
                    run.preparingMs() / 1e3, run.rendezvousMs() / 1e3, run.trainingMs() / 1e3, run.directory());
            return 0;
        } catch (LgcSparkException e) {
            System.err.println("lgc-spark: " + e.getMessage());
            return 1;
        }
    }
}

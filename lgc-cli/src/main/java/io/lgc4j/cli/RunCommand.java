package io.lgc4j.cli;

import io.lgc4j.cli.tables.SeedStats;
import io.lgc4j.core.train.TrainingListener;
import io.lgc4j.advise.config.AutoMethod;
import io.lgc4j.advise.config.AutoRun;
import io.lgc4j.runner.config.ConfigException;
import io.lgc4j.runner.config.ConfigLoader;
import io.lgc4j.runner.config.ExperimentConfig;
import io.lgc4j.runner.config.RuntimeType;
import io.lgc4j.data.DatasetNotFoundException;
import io.lgc4j.data.IdxFormatException;
import io.lgc4j.runner.ExperimentRunner;
import io.lgc4j.runner.RunFailedException;
import io.lgc4j.runner.RunInputException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code lgc run <config.yaml>}: trains the experiment a YAML file describes and writes its result directory;
 * {@code lgc run --resume RUN_DIR [config.yaml]} resumes one from its latest checkpoint.
 */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = {"Train the experiment described by a YAML config and write results/<run-id>/: in this JVM"
                + " (runtime.type in-process, the default), or as one process per rank on this host like lgc launch"
                + " (runtime.type tcp).",
                "With --resume RUN_DIR: go on from the latest complete checkpoint in RUN_DIR/checkpoints/ (saved with"
                        + " training.checkpointEverySteps) and end exactly where the run would have ended; CONFIG"
                        + " (default RUN_DIR/config.yaml) may change only training.epochs, training.maxSteps,"
                        + " training.checkpointEverySteps, training.trace.*, data.prefetch and runtime.*."})
final class RunCommand implements Callable<Integer> {

    @Parameters(index = "0", arity = "0..1", paramLabel = "CONFIG",
            description = "the experiment's YAML file, e.g. configs/quickstart.yaml")
    private Path config;

    @Option(names = "--resume", paramLabel = "RUN_DIR",
            description = "resume this result directory from its latest complete checkpoint")
    private Path resume;

    @Option(names = "--workers", paramLabel = "K",
            description = "with --resume: go on at K workers, also from a checkpoint of another K (the rest of its"
                    + " epoch split over K, each compressor memory regrouped keeping its mean; the global batch"
                    + " becomes K x batchSizePerWorker, the learning rate unchanged)")
    private Integer workers;

    @Option(names = "--servers", paramLabel = "S",
            description = "with --resume: go on with S parameter-server shards (topology.type ps), also from a"
                    + " checkpoint of another S (a shard holds nothing but its counters, LGC-PS's state is on shard 0;"
                    + " a sharded server computes the unsharded server's bits)")
    private Integer servers;

    @Mixin
    private TrainingOptions options;

    @Option(names = "--seeds", split = ",", paramLabel = "SEED",
            description = "train once per seed (run.seed; each run named <name>-s<seed>), then print the test"
                    + " accuracy's mean ± sd over them, e.g. --seeds 1,2,3")
    private List<Long> seeds;

    @Override
    public Integer call() {
        if (resume != null) {
            return resume();
        }
        if (config == null || workers != null || servers != null) {
            System.err.println(workers != null || servers != null ? "lgc: --workers K and --servers S go with --resume"
                    + " RUN_DIR (a new run takes training.workers and topology.servers from its config)"
                    : "lgc: run needs a CONFIG (e.g. lgc run configs/quickstart.yaml) or --resume RUN_DIR");
            return 2;
        }
        ExperimentConfig cfg;
        Optional<AutoMethod> auto;
        try {
            auto = AutoMethod.read(config).map(a -> a.map(options::apply));
            cfg = auto.isPresent() ? auto.get().base() : options.apply(ConfigLoader.load(config));
        } catch (ConfigException e) {
            System.err.println("lgc: " + e.getMessage());
            return 2;
        }
        if (cfg.runtime().type() == RuntimeType.TCP) {
            return launch();
        }
        AutoRun.Resolved chosen = null;
        if (auto.isPresent()) {
            try {
                // one JVM: no link to probe; the method is chosen once, for every seed
                chosen = AutoRun.inProcess(auto.get(), System.err);
            } catch (IOException | IllegalStateException e) {
                return failed(e instanceof IOException io ? io : new RunInputException(e.getMessage(), e));
            }
            cfg = chosen.config();
            System.err.println("lgc: compressor: auto chose " + chosen.chosen().id() + " (" + chosen.chosen().label()
                    + ") in " + String.format(Locale.ROOT, "%.1f s", chosen.seconds()));
        }
        List<ExperimentConfig> runs = new ArrayList<>();
        if (seeds == null) {
            runs.add(cfg);
        } else {
            if (seeds.stream().distinct().count() != seeds.size() || seeds.stream().anyMatch(s -> s < 0)) {
                System.err.println("lgc: --seeds expects distinct integers >= 0, found " + seeds
                        + ", e.g. --seeds 1,2,3");
                return 2;
            }
            if (cfg.training().trace().on() && Path.of(cfg.training().trace().file()).isAbsolute()) {
                System.err.println("lgc: the trace " + cfg.training().trace().file() + " is one file, and --seeds"
                        + " trains " + seeds.size() + " runs: trace one seed at a time, or give training.trace.file"
                        + " a relative path (each run writes it in its own directory)");
                return 2;
            }
            for (long seed : seeds) {
                runs.add(cfg.withRun(cfg.run().withSeed(seed, "-s" + seed)));
            }
        }
        try {
            double[] accuracies = new double[runs.size()];
            for (int i = 0; i < runs.size(); i++) {
                List<TrainingListener> listeners = new ArrayList<>();
                listeners.add(options.progress());
                ExperimentRunner runner = new ExperimentRunner();
                if (chosen != null) {
                    runner.records(chosen.files(), chosen.provenance(), chosen::summary);
                }
                ExperimentRunner.RunOutcome outcome = runner.run(runs.get(i), config.toString(), listeners);
                accuracies[i] = 100 * outcome.result().finalAccuracy();
                System.out.printf(Locale.ROOT, "%s%s after %d steps (%.1f s); results in %s%n",
                        seeds == null ? "" : "seed " + runs.get(i).run().seed() + ": ",
                        ExperimentRunner.accuracy(outcome.result().finalAccuracy()), outcome.result().steps().size(),
                        outcome.result().wallNanos() / 1e9, outcome.directory());
            }
            if (seeds != null) {
                System.out.printf(Locale.ROOT, "test accuracy over %d seeds: %s%%%n", runs.size(),
                        SeedStats.of(accuracies).format(2));
            }
            return 0;
        } catch (IOException | RunFailedException e) {
            return failed(e);
        }
    }

    /**
     * {@code runtime.type: tcp}: the run as one process per rank on this host, exactly as {@code lgc launch} starts
     * it (K = training.workers), with this command's flags.
     */
    private int launch() {
        if (seeds != null) {
            System.err.println("lgc: --seeds trains its runs in this JVM; with runtime.type tcp run lgc launch once per"
                    + " seed (run.seed)");
            return 2;
        }
        List<String> args = new ArrayList<>(List.of("launch", config.toString()));
        args.addAll(options.forward());
        return LgcCommand.execute(args.toArray(String[]::new));
    }

    /**
     * The exit status of a run that did not finish, its reason on stderr: 2 for bad input found before the result
     * directory was made (nothing was written), 1 for a failed training or an I/O error.
     */
    private static int failed(Exception e) {
        if (e instanceof DatasetNotFoundException || e instanceof IdxFormatException
                || e instanceof RunInputException) {
            System.err.println("lgc: " + e.getMessage());
            return 2;
        }
        System.err.println("lgc: " + (e instanceof RunFailedException ? "training failed: " + e.getMessage()
                : e.toString()));
        return 1;
    }

    /** {@code --resume RUN_DIR [CONFIG]}. */
    private Integer resume() {
        if (seeds != null || options.outputDir != null) {
            System.err.println("lgc: --resume continues one run in its own directory; it takes neither --seeds nor"
                    + " --output-dir");
            return 2;
        }
        ExperimentConfig cfg = null;
        try {
            Optional<AutoMethod> auto = config == null ? Optional.empty() : AutoMethod.read(config);
            if (auto.isPresent()) {
                // the choice the run recorded, never a new one
                cfg = AutoRun.recorded(auto.get(), resume).orElseThrow(() -> new RunInputException("cannot resume "
                        + resume + " with compressor: auto: it has no " + AutoRun.ADVICE_JSON + "; resume with the"
                        + " run's config.yaml")).config();
            } else if (config != null) {
                cfg = ConfigLoader.load(config);
            } else if (options.maxSteps != null || workers != null || servers != null) {
                cfg = ConfigLoader.load(resume.resolve("config.yaml"));
            }
            if (workers != null) {
                if (workers < 1) {
                    throw new RunInputException("--workers must be >= 1, found " + workers);
                }
                cfg = cfg.withTraining(cfg.training().withWorkers(workers));
            }
            if (servers != null) {
                if (servers < 1) {
                    throw new RunInputException("--servers must be >= 1, found " + servers);
                }
                cfg = cfg.withTopology(cfg.topology().with("servers", servers));
            }
            if (cfg != null) {
                cfg = options.apply(cfg);
            }
        } catch (ConfigException | RunInputException e) {
            System.err.println("lgc: " + e.getMessage());
            return 2;
        }
        try {
            List<TrainingListener> listeners = new ArrayList<>();
            listeners.add(options.progress());
            ExperimentRunner runner = new ExperimentRunner().allowResize(workers != null || servers != null);
            ExperimentRunner.RunOutcome outcome = runner.resume(resume, cfg,
                    config != null ? config.toString() : resume.resolve("config.yaml").toString(), listeners,
                    System.out);
            System.out.printf(Locale.ROOT, "%s after %d steps (%.1f s resumed); results in %s%n",
                    ExperimentRunner.accuracy(outcome.result().finalAccuracy()), outcome.result().steps().size(),
                    outcome.result().wallNanos() / 1e9, outcome.directory());
            return 0;
        } catch (IOException | RunFailedException e) {
            return failed(e);
        }
    }
}

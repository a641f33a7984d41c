package io.lgc4j.experiments.cli;

import io.lgc4j.core.train.TrainingListener;
import io.lgc4j.experiments.config.ConfigException;
import io.lgc4j.experiments.config.ConfigLoader;
import io.lgc4j.experiments.config.ExperimentConfig;
import io.lgc4j.data.DatasetNotFoundException;
import io.lgc4j.data.IdxFormatException;
import io.lgc4j.experiments.runner.ExperimentRunner;
import io.lgc4j.experiments.runner.RunFailedException;
import io.lgc4j.experiments.runner.RunInputException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code lgc run <config.yaml>}: trains the experiment a YAML file describes and writes its result directory. */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Train the experiment described by a YAML config and write results/<run-id>/.")
final class RunCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "CONFIG", description = "the experiment's YAML file, e.g. configs/quickstart.yaml")
    private Path config;

    @Option(names = "--max-steps", description = "stop after N steps (overrides training.maxSteps)")
    private Integer maxSteps;

    @Option(names = "--output-dir", description = "where result directories go (overrides run.outputDir)")
    private String outputDir;

    @Option(names = "--no-progress", description = "plain progress lines instead of a live bar")
    private boolean noProgress;

    @Override
    public Integer call() {
        ExperimentConfig cfg;
        try {
            cfg = ConfigLoader.load(config);
            if (maxSteps != null) {
                cfg = cfg.withTraining(cfg.training().withMaxSteps(maxSteps));
            }
            if (outputDir != null) {
                cfg = cfg.withRun(cfg.run().withOutputDir(outputDir));
            }
        } catch (ConfigException e) {
            System.err.println("lgc: " + e.getMessage());
            return 2;
        }
        List<TrainingListener> listeners = new ArrayList<>();
        listeners.add(new ProgressListener(System.out, !noProgress && System.console() != null));
        try {
            ExperimentRunner.RunOutcome outcome = new ExperimentRunner().run(cfg, config.toString(), listeners);
            System.out.printf(Locale.ROOT, "test accuracy %.4f after %d steps (%.1f s); results in %s%n",
                    outcome.result().finalAccuracy(), outcome.result().steps().size(),
                    outcome.result().wallNanos() / 1e9, outcome.directory());
            return 0;
        } catch (DatasetNotFoundException | IdxFormatException | RunInputException e) {
            // found before the result directory was created: nothing was written
            System.err.println("lgc: " + e.getMessage());
            return 2;
        } catch (RunFailedException e) {
            System.err.println("lgc: training failed: " + e.getMessage());
            return 1;
        } catch (java.io.IOException e) {
            System.err.println("lgc: " + e);
            return 1;
        }
    }
}

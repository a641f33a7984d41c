package io.lgc4j.experiments.tables;

import io.lgc4j.core.train.TrainingListener;
import io.lgc4j.experiments.config.ConfigException;
import io.lgc4j.experiments.config.ConfigLoader;
import io.lgc4j.experiments.config.ExperimentConfig;
import io.lgc4j.experiments.runner.ExperimentRunner;
import io.lgc4j.experiments.runner.RunSummary;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * Trains a suite's runs one after the other into {@code <output>/runs/<key>/}, skipping every run that already
 * finished with the same config: a run is finished when its {@code summary.json} exists (the runner writes it last)
 * and its {@code config.yaml} reads as the planned config (the same settings, defaults included: a key added to the
 * config format later, at its default, does not make a finished run stale). An interrupted suite therefore resumes
 * where it stopped, and a changed suite reruns only what changed.
 *
 * <pre>{@code
 * List<SuiteRuns.Finished> runs = SuiteRuns.execute(suite.plan(Profile.QUICK), out, System.out, List::of);
 * }</pre>
 */
public final class SuiteRuns {

    private SuiteRuns() {
    }

    /**
     * A run that has finished.
     *
     * @param planned   what it ran
     * @param directory its result directory
     * @param summary   its summary.json
     * @param reused    true when it had finished before this invocation
     */
    public record Finished(Suite.PlannedRun planned, Path directory, RunSummary summary, boolean reused) {
        /** The metrics.csv of the run. */
        public MetricsTable metrics() throws IOException {
            return MetricsTable.read(directory.resolve("metrics.csv"));
        }
    }

    /**
     * Runs (or reuses) every planned run, in order, printing one line per run to {@code log}.
     *
     * @param listeners a fresh set of extra listeners (a progress display) for each run that trains
     * @throws IOException when data cannot be read or results cannot be written
     */
    public static List<Finished> execute(List<Suite.PlannedRun> plan, Path output, PrintStream log,
                                         Supplier<List<TrainingListener>> listeners) throws IOException {
        List<Finished> finished = new ArrayList<>();
        Path runs = output.resolve("runs");
        int i = 0;
        for (Suite.PlannedRun run : plan) {
            i++;
            Path dir = runs.resolve(run.key());
            String prefix = String.format(Locale.ROOT, "[%d/%d] %s on %s", i, plan.size(), run.label(), run.model());
            if (isFinished(dir, run.config())) {
                log.println(prefix + ": finished before, reused (" + dir + ")");
                finished.add(new Finished(run, dir, Summaries.read(dir), true));
                continue;
            }
            log.println(prefix + ": training" + (Files.exists(dir.resolve("config.yaml"))
                    ? " (an earlier attempt did not finish or had another config)" : ""));
            long start = System.nanoTime();
            ExperimentRunner.RunOutcome outcome = new ExperimentRunner().runInto(dir, run.config(),
                    "suite " + run.key(), listeners.get());
            log.printf(Locale.ROOT, "%s: test accuracy %.4f after %d steps, %.1f s%n", prefix,
                    outcome.result().finalAccuracy(), outcome.result().steps().size(),
                    (System.nanoTime() - start) / 1e9);
            finished.add(new Finished(run, dir, Summaries.read(dir), false));
        }
        return finished;
    }

    /**
     * Whether {@code dir} holds a finished run of {@code planned}: a summary, and a config.yaml that the current
     * loader reads as {@code planned} (an unreadable one, e.g. of a key since removed, is not).
     */
    static boolean isFinished(Path dir, ExperimentConfig planned) throws IOException {
        Path summary = dir.resolve(ExperimentRunner.SUMMARY);
        Path config = dir.resolve("config.yaml");
        if (!Files.isRegularFile(summary) || !Files.isRegularFile(config)) {
            return false;
        }
        try {
            return ConfigLoader.parse(Files.readString(config, StandardCharsets.UTF_8), config.toString())
                    .equals(planned);
        } catch (ConfigException e) {
            return false;
        }
    }

    /** Whether {@code dir} holds a finished run whose config.yaml is {@code yaml} byte for byte. */
    static boolean isFinished(Path dir, String yaml) throws IOException {
        Path summary = dir.resolve(ExperimentRunner.SUMMARY);
        Path config = dir.resolve("config.yaml");
        return Files.isRegularFile(summary) && Files.isRegularFile(config)
                && Files.readString(config, StandardCharsets.UTF_8).equals(yaml);
    }
}

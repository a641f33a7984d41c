package io.lgc4j.cli.tables;

import io.lgc4j.core.train.TrainingListener;
import io.lgc4j.runner.config.ConfigException;
import io.lgc4j.runner.config.ConfigLoader;
import io.lgc4j.runner.config.ExperimentConfig;
import io.lgc4j.runner.ExperimentRunner;
import io.lgc4j.runner.RunFailedException;
import io.lgc4j.runner.RunSummary;

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
     * How a run that must train is trained into its directory: in this JVM ({@link #IN_PROCESS}), or as OS processes
     * ({@code lgc table ... --processes}); either writes the run's files, {@code summary.json} last.
     */
    @FunctionalInterface
    public interface Executor {
        /** Trains in this JVM, the ranks on threads ({@link ExperimentRunner#runInto}). */
        Executor IN_PROCESS = (run, dir, log, listeners) ->
                new ExperimentRunner().runInto(dir, run.config(), "suite " + run.key(), listeners.get());

        /**
         * Trains {@code run} into {@code dir}.
         *
         * @throws IOException        when data cannot be read or results cannot be written
         * @throws RunFailedException when training failed
         */
        void train(Suite.PlannedRun run, Path dir, PrintStream log, Supplier<List<TrainingListener>> listeners)
                throws IOException;
    }

    /** As {@link #execute(List, Path, PrintStream, Supplier, Executor)}, in this JVM. */
    public static List<Finished> execute(List<Suite.PlannedRun> plan, Path output, PrintStream log,
                                         Supplier<List<TrainingListener>> listeners) throws IOException {
        return execute(plan, output, log, listeners, Executor.IN_PROCESS);
    }

    /**
     * Runs (or reuses) every planned run, in order, printing one line per run to {@code log}.
     *
     * @param listeners a fresh set of extra listeners (a progress display) for each run that trains in this JVM
     * @param executor  how a run that must train is trained
     * @throws IOException when data cannot be read or results cannot be written
     */
    public static List<Finished> execute(List<Suite.PlannedRun> plan, Path output, PrintStream log,
                                         Supplier<List<TrainingListener>> listeners, Executor executor)
            throws IOException {
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
            executor.train(run, dir, log, listeners);
            RunSummary summary = Summaries.read(dir);
            log.printf(Locale.ROOT, "%s: test accuracy %.4f after %d steps, %.1f s%n", prefix,
                    summary.finalTestAccuracy(), summary.steps(), (System.nanoTime() - start) / 1e9);
            finished.add(new Finished(run, dir, summary, false));
        }
        return finished;
    }

    /**
     * Whether {@code dir} holds a finished run of {@code planned}: a summary, and a config.yaml that the current
     * loader reads as {@code planned} (an unreadable one, e.g. of a key since removed, is not), whatever runtime
     * trained it (one JVM or a process per rank give the same results bit for bit: scripts/fingerprint.py,
     * MultiProcessRunTest) and wherever its runner was told to write it ({@code run.outputDir}).
     */
    static boolean isFinished(Path dir, ExperimentConfig planned) throws IOException {
        Path summary = dir.resolve(ExperimentRunner.SUMMARY);
        Path config = dir.resolve("config.yaml");
        if (!Files.isRegularFile(summary) || !Files.isRegularFile(config)) {
            return false;
        }
        try {
            ExperimentConfig found = ConfigLoader.parse(Files.readString(config, StandardCharsets.UTF_8),
                    config.toString());
            return found.withRuntime(planned.runtime())
                    .withRun(found.run().withOutputDir(planned.run().outputDir())).equals(planned);
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

package io.lgc4j.experiments.cli;

import io.lgc4j.core.train.TrainingListener;
import io.lgc4j.experiments.config.ConfigException;
import io.lgc4j.experiments.data.DatasetNotFoundException;
import io.lgc4j.experiments.data.IdxFormatException;
import io.lgc4j.experiments.runner.Nd4jEnvironment;
import io.lgc4j.experiments.tables.Suite;
import io.lgc4j.experiments.tables.SuiteKind;
import io.lgc4j.experiments.tables.SuiteLoader;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * What every {@code lgc table ...} and {@code lgc figure ...} command shares: the suite file, the profile, the output
 * directory and the progress display. The suite is read and checked whole before anything trains; then the command
 * runs (or reuses) its runs and writes table.md, table.csv, its PNGs and provenance.json.
 */
abstract class SuiteCommand implements Callable<Integer> {

    @Option(names = "--suite", paramLabel = "FILE",
            description = "the suite file (default configs/tables/<name>.yaml)")
    private Path suiteFile;

    @Option(names = "--quick", description = "the quick profile: minutes instead of hours (the suite's 'quick' keys)")
    private boolean quick;

    @Option(names = "--output-dir", paramLabel = "DIR",
            description = "where table.md, table.csv, PNGs, provenance.json and runs/ go"
                    + " (default results/tables/<name>[-quick]); a finished run found there is reused")
    private Path outputDir;

    @Option(names = "--no-progress", description = "plain progress lines instead of a live bar")
    private boolean noProgress;

    /** The kind of suite this command reads. */
    abstract SuiteKind kind();

    /** Whether it is a table (else a figure), for the command line shown in table.md. */
    abstract boolean isTable();

    /** Runs what the suite asks for and writes the output. */
    abstract void produce(Suite suite, Suite.Profile profile, Path out, String commandLine, PrintStream log,
                          java.util.function.Supplier<List<TrainingListener>> progress) throws IOException;

    @Override
    public Integer call() {
        Path file = suiteFile != null ? suiteFile : Path.of("configs", "tables", kind().spelling() + ".yaml");
        Suite.Profile profile = quick ? Suite.Profile.QUICK : Suite.Profile.FULL;
        Path out = outputDir != null ? outputDir
                : Path.of("results", "tables", kind().spelling() + (quick ? "-quick" : ""));
        Suite suite;
        try {
            suite = SuiteLoader.load(file, kind());
        } catch (ConfigException e) {
            System.err.println("lgc: " + e.getMessage());
            return 2;
        }
        String commandLine = "lgc " + (isTable() ? "table " : "figure ") + kind().spelling()
                + (suiteFile != null ? " --suite " + file : "") + (quick ? " --quick" : "");
        System.out.println(commandLine + ": " + suite.title() + " -> " + out);
        Nd4jEnvironment.configure();
        try {
            produce(suite, profile, out, commandLine, System.out,
                    () -> List.of(new ProgressListener(System.out, !noProgress && System.console() != null)));
            System.out.println("wrote " + out.resolve("table.md") + ", table.csv, the PNGs and provenance.json");
            return 0;
        } catch (DatasetNotFoundException | IdxFormatException e) {
            System.err.println("lgc: " + e.getMessage());
            return 2;
        } catch (IOException e) {
            System.err.println("lgc: " + e);
            return 1;
        }
    }
}

package io.lgc4j.cli;

import io.lgc4j.cli.tables.Suite;
import io.lgc4j.cli.tables.SuiteKind;
import io.lgc4j.cli.tables.SuiteLoader;
import io.lgc4j.cli.tables.SuiteRuns;
import io.lgc4j.core.train.TrainingListener;
import io.lgc4j.runner.config.ConfigException;
import io.lgc4j.data.DatasetNotFoundException;
import io.lgc4j.data.IdxFormatException;
import io.lgc4j.runner.Nd4jEnvironment;
import io.lgc4j.runner.RunFailedException;
import io.lgc4j.runner.RunInputException;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

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

    @Option(names = "--processes", description = "train each run as one OS process per rank (and the PS server) over"
            + " loopback TCP (lgc launch): every core busy, the same results bit for bit")
    private boolean processes;

    @Option(names = "--seeds", split = ",", paramLabel = "SEED",
            description = "run every method (and time-to-accuracy's PyTorch peers) once per seed (run.seed), instead"
                    + " of the suite's 'seeds'; tables report mean ± sd over them, e.g. --seeds 42,43,44")
    private List<Long> seeds;

    /** Builds a table or figure from a suite's finished runs ({@code CompressionTable::write} and the like). */
    @FunctionalInterface
    interface Writer {
        void write(Suite suite, Suite.Profile profile, String commandLine, List<SuiteRuns.Finished> runs, Path out)
                throws IOException;
    }

    private final SuiteKind kind;
    private final Writer writer;

    /** A command that trains (or reuses) the suite's runs, then hands them to {@code writer}. */
    SuiteCommand(SuiteKind kind, Writer writer) {
        this.kind = kind;
        this.writer = writer;
    }

    /** How runs that must train are trained: in this JVM, or as processes ({@code --processes}). */
    final SuiteRuns.Executor executor() {
        return processes ? new LaunchedRuns() : SuiteRuns.Executor.IN_PROCESS;
    }

    /** The kind of suite this command reads. */
    final SuiteKind kind() {
        return kind;
    }

    /** Runs what the suite asks for and writes the output; a suite that trains no method overrides it. */
    void produce(Suite suite, Suite.Profile profile, Path out, String commandLine, PrintStream log,
                 Supplier<List<TrainingListener>> progress) throws IOException {
        writer.write(suite, profile, commandLine, SuiteRuns.execute(suite.plan(profile), out, log, progress,
                executor()), out);
    }

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
        if (seeds != null) {
            String wrong = seeds.stream().distinct().count() != seeds.size() ? "repeats a seed"
                    : seeds.stream().anyMatch(x -> x < 0) ? "has a negative seed"
                    : !kind().trainsMethods() ? "does not apply: this command trains no methods" : null;
            if (wrong != null) {
                System.err.println("lgc: --seeds " + wrong + ", found " + seeds
                        + "; expected distinct integers >= 0, e.g. --seeds 42,43,44");
                return 2;
            }
            suite = suite.withSeeds(seeds);
        }
        String commandLine = kind().command() + (suiteFile != null ? " --suite " + file : "") + (quick ? " --quick" : "")
                + (seeds != null ? " --seeds " + String.join(",", seeds.stream().map(String::valueOf).toList()) : "")
                + (processes ? " --processes" : "");
        System.out.println(commandLine + ": " + suite.title() + " -> " + out);
        Nd4jEnvironment.configure();
        try {
            produce(suite, profile, out, commandLine, System.out,
                    () -> List.of(new ProgressListener(System.out, !noProgress && System.console() != null)));
            System.out.println("wrote " + out.resolve("table.md") + ", table.csv, the PNGs and provenance.json");
            return 0;
        } catch (DatasetNotFoundException | IdxFormatException | RunInputException e) {
            System.err.println("lgc: " + e.getMessage());
            return 2;
        } catch (RunFailedException e) {
            System.err.println("lgc: training failed: " + e.getMessage());
            return 1;
        } catch (IOException e) {
            System.err.println("lgc: " + e);
            return 1;
        }
    }
}

package io.lgc4j.cli;

import io.lgc4j.core.data.DataCheck;
import io.lgc4j.core.data.DataSource;
import io.lgc4j.datasource.CsvSource;
import io.lgc4j.runner.ExperimentRunner;
import io.lgc4j.runner.config.ConfigException;
import io.lgc4j.runner.config.ConfigLoader;
import io.lgc4j.runner.config.DataConfig;
import io.lgc4j.runner.config.DatasetName;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

/**
 * {@code lgc data check}: reads training data as a run would, before any run, and stops at the first bad row with
 * the message the run would have failed with. The rows are split into {@code --shares} contiguous shares read at once
 * (as a run's workers read theirs before step 0, {@link DataSource#check}); it says how many rows it read and how fast.
 *
 * <pre>
 * lgc data check configs/my-csv.yaml                              # the config's training data (data.*)
 * lgc data check data/train --label-column 64 --classes 10        # a directory of CSV files, or one file
 * </pre>
 */
@Command(name = "data", mixinStandardHelpOptions = true, subcommands = DataCommand.Check.class,
        description = "Data sources: check training data before a run.")
final class DataCommand {

    /** {@code lgc data check (CONFIG | PATH --label-column C --classes N)}. */
    @Command(name = "check", mixinStandardHelpOptions = true,
            description = {"Read every row (or a sample) of the training data as a run would, in shares read at once,",
                "and stop at the first bad row, naming its file, line and column. Exit 0: no bad row; 1: a bad row;",
                "2: bad arguments."})
    static final class Check implements Callable<Integer> {

        @Parameters(index = "0", paramLabel = "CONFIG|PATH",
                description = "a config (.yaml: its data section), or a directory of CSV files or one CSV file")
        private Path input;

        @Option(names = "--label-column", paramLabel = "C", defaultValue = "-1",
                description = "CSV: the column (from 0) that holds the class")
        private int labelColumn;

        @Option(names = "--classes", paramLabel = "N", defaultValue = "0",
                description = "CSV: how many classes the labels count (0 … N-1)")
        private int classes;

        @Option(names = "--skip-lines", paramLabel = "L", defaultValue = "0",
                description = "CSV: header lines at the top of every file (default 0)")
        private int skipLines;

        @Option(names = "--delimiter", paramLabel = "D", defaultValue = ",",
                description = "CSV: the field delimiter (default ,)")
        private char delimiter;

        @Option(names = "--check", paramLabel = "full|sample", defaultValue = "full",
                description = "full: every row (default); sample: about one in a hundred")
        private String check;

        @Option(names = "--shares", paramLabel = "K", defaultValue = "0",
                description = "shares read at once (default: this machine's CPUs)")
        private int shares;

        @Override
        public Integer call() {
            DataCheck how;
            DataSource source;
            List<Path> files;
            try {
                how = DataCheck.parse("--check", check);
                if (how == DataCheck.NONE) {
                    throw new IllegalArgumentException("--check must be full or sample, found 'none'");
                }
                if (input.toString().endsWith(".yaml") || input.toString().endsWith(".yml")) {
                    DataConfig data = ConfigLoader.load(input).data();
                    source = ExperimentRunner.trainingData(data.withCheck(how));
                    files = data.dataset() == DatasetName.CSV ? files(Path.of(data.path()))
                            : List.of(Path.of(data.path()));
                } else {
                    if (labelColumn < 0 || classes < 1) {
                        throw new IllegalArgumentException("a CSV path needs --label-column C (from 0) and"
                                + " --classes N (>= 1), found " + labelColumn + " and " + classes);
                    }
                    source = CsvSource.in(input).label(labelColumn, classes).skipLines(skipLines)
                            .delimiter(delimiter);
                    files = files(input);
                }
            } catch (IllegalArgumentException | ConfigException e) {
                System.err.println("lgc data check: " + e.getMessage());
                return 2;
            } catch (IOException | UncheckedIOException e) {
                System.err.println("lgc data check: " + e.getMessage());
                return 1;
            }
            int k = shares > 0 ? shares : Runtime.getRuntime().availableProcessors();
            try (DataSource data = source) {
                long start = System.nanoTime();
                data.plan(1, 1); // the index (a file source's pass over its files), once, before the shares
                long indexed = System.nanoTime();
                long rows = checkShares(data, k, how);
                double seconds = (System.nanoTime() - indexed) / 1e9;
                long bytes = bytes(files);
                System.out.printf(Locale.ROOT, "lgc data check: %s: indexed in %.1f s; %,d rows read (%s) in %d"
                                + " shares in %.1f s, %.0f MB/s over %,d MB; no bad row%n", data.describe(),
                        (indexed - start) / 1e9, rows, how.configName(), k, seconds, bytes / 1e6 / seconds,
                        bytes / 1_000_000);
                return 0;
            } catch (IOException | UncheckedIOException | IllegalStateException e) {
                System.err.println("lgc data check: " + e.getMessage());
                return 1;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 1;
            }
        }

        /** Every share at once, on a thread each; the first bad row found by any. */
        private static long checkShares(DataSource data, int k, DataCheck how)
                throws IOException, InterruptedException {
            ExecutorService pool = Executors.newFixedThreadPool(k);
            try {
                List<Future<Long>> shares = new ArrayList<>();
                for (int r = 0; r < k; r++) {
                    int rank = r;
                    shares.add(pool.submit(() -> data.check(rank, k, how)));
                }
                long rows = 0;
                for (Future<Long> f : shares) {
                    try {
                        rows += f.get();
                    } catch (ExecutionException e) {
                        if (e.getCause() instanceof IOException io) {
                            throw io;
                        }
                        throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
                    }
                }
                return rows;
            } finally {
                pool.shutdownNow();
            }
        }

        private static List<Path> files(Path path) throws IOException {
            if (!Files.isDirectory(path)) {
                return List.of(path);
            }
            try (Stream<Path> s = Files.list(path)) {
                return s.filter(Files::isRegularFile).toList();
            }
        }

        private static long bytes(List<Path> files) throws IOException {
            long total = 0;
            for (Path f : files) {
                if (Files.isDirectory(f)) {
                    total += bytes(files(f));
                } else if (Files.exists(f)) {
                    total += Files.size(f);
                }
            }
            return total;
        }
    }
}

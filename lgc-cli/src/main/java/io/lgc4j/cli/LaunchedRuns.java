package io.lgc4j.cli;

import io.lgc4j.cli.tables.Suite;
import io.lgc4j.cli.tables.SuiteRuns;
import io.lgc4j.core.train.TrainingListener;
import io.lgc4j.runner.RunFailedException;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Trains a suite's runs as OS processes ({@code lgc table ... --processes}): each run is an {@code lgc launch} of
 * K worker processes (and the parameter server's) over loopback TCP, so the ranks compute on every core at once
 * instead of taking turns in one JVM. The results are those of the in-process runtime bit for bit
 * ({@code scripts/fingerprint.py compare}, {@code MultiProcessRunTest}); only the timing columns differ. The run's
 * {@code config.yaml} then says {@code runtime.type: tcp}; a suite reuses the run whichever runtime trained it. The
 * launcher watches its standard input (a pipe from this JVM): when the suite's JVM ends, however it ends, the
 * launcher and its workers end too.
 *
 * <pre>{@code
 * SuiteRuns.execute(suite.plan(profile), out, log, List::of, new LaunchedRuns());
 * }</pre>
 */
final class LaunchedRuns implements SuiteRuns.Executor {

    private final Function<Suite.PlannedRun, List<String>> launchOptions;

    /** Runs on loopback, as {@code lgc launch --nproc K} places them. */
    LaunchedRuns() {
        this(run -> List.of());
    }

    /**
     * Runs with more {@code lgc launch} options per run, e.g. {@code --netns-rate 10mbit --cpu-share 0.4}
     * ({@code lgc table time-to-accuracy}).
     */
    LaunchedRuns(Function<Suite.PlannedRun, List<String>> launchOptions) {
        this.launchOptions = launchOptions;
    }

    @Override
    public void train(Suite.PlannedRun run, Path dir, PrintStream log, Supplier<List<TrainingListener>> listeners)
            throws IOException {
        Path parent = dir.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        Path work = Files.createTempDirectory(parent, "." + run.key() + "-launch-");
        try {
            Path config = work.resolve("config.yaml");
            Files.writeString(config, run.config().toYaml(), StandardCharsets.UTF_8);
            Path out = work.resolve("out");
            List<String> command = new ArrayList<>(List.of(java(), "-Xmx256m", "-cp",
                    System.getProperty("java.class.path"), LgcCommand.class.getName(), "launch", "--nproc",
                    String.valueOf(run.config().training().workers()), config.toString(), "--output-dir",
                    out.toString(), "--exit-with-stdin"));
            command.addAll(launchOptions.apply(run));
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
            pb.environment().putIfAbsent("OMP_NUM_THREADS", "1");
            Process launch = pb.start();
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(launch.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    log.println("  " + line);
                }
            }
            int status;
            try {
                status = launch.waitFor();
            } catch (InterruptedException e) {
                launch.destroyForcibly();
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while " + run.key() + " trained", e);
            }
            List<Path> results = Files.isDirectory(out) ? list(out) : List.of();
            if (results.size() == 1) {
                // a failed run's directory too: its failure.txt says why
                deleteTree(dir);
                Files.move(results.get(0), dir);
            }
            if (status != 0 || results.size() != 1) {
                throw new RunFailedException(dir, new IllegalStateException("lgc launch of " + run.key()
                        + " exited with status " + status + " and wrote " + results.size()
                        + " result directories (expected 1); its output is above"));
            }
        } finally {
            if (Files.exists(work)) {
                deleteTree(work);
            }
        }
    }

    private static String java() {
        return ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    private static List<Path> list(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.toList();
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }
}

package io.lgc4j.bench;

import io.lgc4j.core.checkpoint.Checkpoint;
import io.lgc4j.core.checkpoint.CheckpointDirectory;
import io.lgc4j.core.metrics.StepMetrics;
import io.lgc4j.core.train.TrainingListener;
import io.lgc4j.core.train.TrainingPlan;
import io.lgc4j.runner.config.ConfigLoader;
import io.lgc4j.runner.config.ExperimentConfig;
import io.lgc4j.runner.ExperimentRunner;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@code lgc bench checkpoints}: what a checkpoint costs, per model and method, in process at K = 4. Each
 * configuration trains {@code steps} steps of Fashion-MNIST with {@code training.checkpointEverySteps} through
 * {@link ExperimentRunner} (the trainer's own checkpointing), then resumes a scratch copy from every checkpoint in
 * turn, reporting each checkpoint's bytes per part, write times, and {@code verify}
 * ({@link CheckpointDirectory#latest()}), {@code restore} and {@code to first step} ({@link ExperimentRunner#resume})
 * times. The runs go one after the other; the machine's load is in the environment line. How each column is
 * measured: {@code docs/architecture/checkpoints.md}.
 */
public final class CheckpointBenchmark {

    /** K. */
    public static final int WORKERS = 4;
    /** Batch per worker. */
    public static final int BATCH = 32;
    private static final Pattern LOGGED = Pattern.compile("checkpoint (\\S+) complete: (\\d+) parts, ([\\d,]+) bytes;"
            + " slowest part ([\\d.]+) ms \\((.+)\\), manifest ([\\d.]+) ms");

    private CheckpointBenchmark() {
    }

    /**
     * What to run.
     *
     * @param models      zoo names: small-cnn, small-resnet
     * @param methods     dense-ps, dense-ring, dgc-ps, lgc-ps, lgc-rar
     * @param steps       steps per run
     * @param every       training.checkpointEverySteps
     * @param full        stages.fullIterations (DGC and LGC)
     * @param aeTraining  stages.aeTrainingIterations (LGC)
     * @param data        Fashion-MNIST directory
     * @param work        scratch directory (run directories are deleted after measuring)
     */
    public record Settings(List<String> models, List<String> methods, int steps, int every, int full,
                           int aeTraining, Path data, Path work) {
        public Settings {
            if (every < 1 || steps < every) {
                throw new IllegalArgumentException("need 1 <= every <= steps, found every " + every + ", steps "
                        + steps);
            }
            for (String m : methods) {
                methodKeys(m, full, aeTraining);
            }
        }
    }

    /** One checkpoint of one run, measured. */
    record Measured(long step, String stage, long rank0Bytes, long rankBytes, long serverBytes, long manifestBytes,
                    long totalBytes, double slowestMs, String slowest, double manifestMs, double verifyMs,
                    double restoreMs, double toFirstStepMs) {
    }

    /** The checkpoints of one run and its mean step time. */
    record RunMeasured(String model, String method, List<Measured> checkpoints, double meanStepMs, double load) {
    }

    /** Runs every model × method and prints the tables. */
    public static void run(PrintStream out, Settings s) throws IOException {
        out.printf(Locale.ROOT, "Checkpoint cost, in process, K = %d, batch %d per worker, Fashion-MNIST: %d steps,"
                + " training.checkpointEverySteps %d (and at the end); DGC and LGC %d FULL steps, LGC then %d TOP_K"
                + " steps and COMPRESSED; evaluation only at the end (500 test images)%n%s%n%n", WORKERS, BATCH,
                s.steps(), s.every(), s.full(), s.aeTraining(), BenchEnvironment.describe(42));
        List<RunMeasured> all = new ArrayList<>();
        for (String model : s.models()) {
            for (String method : s.methods()) {
                System.err.printf(Locale.ROOT, "bench checkpoints: %s, %s%n", model, method);
                all.add(measure(s, model, method));
            }
        }
        out.println("Per run: median and max over its checkpoints. Bytes: rank 0's part (holds the metrics history,"
                + " so it grows by the step), another rank's part, the server's part, the manifest; total = all"
                + " files of the step directory. Times in ms.");
        out.println();
        out.println("| model | method | ckpts | total bytes | rank 0 | rank r>0 | server | manifest | slowest part"
                + " write med / max | manifest write med / max | verify med / max | restore med / max"
                + " | resume to first step med / max | step ms | worst case lost: completed steps (+ the step in"
                + " progress + restart) | load |");
        out.println("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|");
        for (RunMeasured r : all) {
            List<Measured> c = r.checkpoints();
            out.printf(Locale.ROOT, "| %s | %s | %d | %,d | %,d | %,d | %s | %,d | %s | %s | %s | %s | %s | %.0f | %d"
                            + " steps = %.1f s | %.1f |%n", r.model(), r.method(), c.size(),
                    (long) median(c, m -> m.totalBytes()), (long) median(c, m -> m.rank0Bytes()),
                    (long) median(c, m -> m.rankBytes()), c.get(0).serverBytes() == 0 ? "–"
                            : String.format(Locale.ROOT, "%,d", (long) median(c, m -> m.serverBytes())),
                    (long) median(c, m -> m.manifestBytes()), medMax(c, Measured::slowestMs),
                    medMax(c, Measured::manifestMs), medMax(c, Measured::verifyMs), medMax(c, Measured::restoreMs),
                    medMax(c, Measured::toFirstStepMs), r.meanStepMs(), lostSteps(s.every()),
                    lostSteps(s.every()) * r.meanStepMs() / 1000, r.load());
        }
        out.printf(Locale.ROOT, "%nload = the 1-minute load average when the configuration started; at the end: %.1f%n",
                loadAverage());
        out.println();
        out.println("Every checkpoint (step = the next step to run, its stage):");
        out.println();
        out.println("| model | method | step | stage | total bytes | rank 0 | rank 1 | server | manifest"
                + " | slowest part ms (which) | manifest ms | verify ms | restore ms | resume to first step ms |");
        out.println("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (RunMeasured r : all) {
            for (Measured m : r.checkpoints()) {
                out.printf(Locale.ROOT, "| %s | %s | %d | %s | %,d | %,d | %,d | %s | %,d | %.1f (%s) | %.1f | %.1f |"
                                + " %.0f | %.0f |%n", r.model(), r.method(), m.step(), m.stage(), m.totalBytes(),
                        m.rank0Bytes(), m.rankBytes(), m.serverBytes() == 0 ? "–"
                                : String.format(Locale.ROOT, "%,d", m.serverBytes()), m.manifestBytes(),
                        m.slowestMs(), m.slowest(), m.manifestMs(), m.verifyMs(), m.restoreMs(),
                        m.toFirstStepMs());
            }
        }
    }

    /**
     * Completed steps a kill can cost at most, besides the step in progress: the checkpoint after step s is complete
     * when step s ends, on a ring and on a parameter server alike (a service reports a step once it has served it), so
     * at most every − 1.
     */
    static int lostSteps(int every) {
        return every - 1;
    }

    private static String medMax(List<Measured> c, ToDoubleFunction<Measured> f) {
        double[] v = c.stream().mapToDouble(f).sorted().toArray();
        return String.format(Locale.ROOT, v[v.length - 1] >= 100 ? "%.0f / %.0f" : "%.1f / %.1f", median(v),
                v[v.length - 1]);
    }

    private static double median(List<Measured> c, ToDoubleFunction<Measured> f) {
        return median(c.stream().mapToDouble(f).sorted().toArray());
    }

    private static double median(double[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /** The config keys of a method, beyond those every run shares. */
    static String methodKeys(String method, int full, int aeTraining) {
        return switch (method) {
            case "dense-ps" -> "topology: {type: ps}\n";
            case "dense-ring" -> "topology: {type: ring}\n";
            case "dgc-ps" -> "topology: {type: ps}\ncompressor: {type: dgc, ratio: 0.001}\nstages: {fullIterations: "
                    + full + "}\n";
            case "lgc-ps", "lgc-rar" -> "topology: {type: " + (method.equals("lgc-ps") ? "ps" : "ring") + "}\n"
                    + "compressor: {type: lgc, ratio: 0.001}\nstages: {fullIterations: " + full
                    + ", aeTrainingIterations: " + aeTraining + "}\n";
            default -> throw new IllegalArgumentException("unknown method '" + method + "'; known: dense-ps,"
                    + " dense-ring, dgc-ps, lgc-ps, lgc-rar");
        };
    }

    /** The config of one run; {@code maxSteps} and {@code every} may differ between a run and its resume. */
    static String yaml(Settings s, String model, String method, Path out, int maxSteps, int every) {
        String updater = method.startsWith("dgc") ? "{type: sgd, learningRate: 0.05}"
                : "{type: nesterovs, learningRate: 0.05, momentum: 0.9}";
        // one global batch more than the run takes: a resume from the last checkpoint runs one step past it
        return """
                run: {name: ckpt-%s-%s, seed: 42, outputDir: %s}
                data: {path: %s, trainLimit: %d, testLimit: 500}
                model: {name: %s, updater: %s}
                training: {workers: %d, batchSizePerWorker: %d, epochs: 1, maxSteps: %d, evalEverySteps: 0, \
                checkpointEverySteps: %d}
                %s""".formatted(model, method, out, s.data(), (s.steps() + 2) * WORKERS * BATCH, model, updater,
                WORKERS, BATCH, maxSteps, every, methodKeys(method, s.full(), s.aeTraining()));
    }

    private static double loadAverage() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private static RunMeasured measure(Settings s, String model, String method) throws IOException {
        double load = loadAverage();
        Path out = Files.createDirectories(s.work()).resolve("ckpt-" + model + "-" + method);
        deleteTree(out);
        Map<Long, String[]> logged = new LinkedHashMap<>();
        Logger logger = Logger.getLogger("io.lgc4j.core.train.Checkpointing");
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                String msg = record.getMessage();
                Matcher m = msg == null ? null : LOGGED.matcher(msg);
                if (m != null && m.find()) {
                    String dir = Path.of(m.group(1)).getFileName().toString();
                    synchronized (logged) {
                        logged.put(Long.parseLong(dir.substring("step-".length())),
                                new String[] {m.group(4), m.group(5), m.group(6)});
                    }
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        logger.addHandler(handler);
        List<StepMetrics> steps = new ArrayList<>();
        Path runDir;
        try {
            String name = "ckpt-" + model + "-" + method + ".yaml";
            ExperimentConfig cfg = ConfigLoader.parse(yaml(s, model, method, out, s.steps(), s.every()), name);
            runDir = new ExperimentRunner().run(cfg, name, List.of(new TrainingListener() {
                @Override
                public void onStep(StepMetrics m) {
                    steps.add(m);
                }
            })).directory();
        } finally {
            logger.removeHandler(handler);
        }
        // the first step of a run carries the setup (JIT, first primitives): leave it out of the mean
        double meanStepMs = steps.stream().skip(1).mapToLong(StepMetrics::wallNanos).average().orElse(0) / 1e6;
        CheckpointDirectory dir = CheckpointDirectory.in(runDir);
        List<Measured> measured = new ArrayList<>();
        for (long step : dir.steps()) {
            Path stepDir = dir.stepDirectory(step);
            long rank0 = size(stepDir.resolve(CheckpointDirectory.rankFileName(0)));
            long rank1 = size(stepDir.resolve(CheckpointDirectory.rankFileName(1)));
            long server = size(stepDir.resolve(CheckpointDirectory.serverFileName(0)));
            long manifest = size(stepDir.resolve(CheckpointDirectory.MANIFEST_FILE));
            long total;
            try (Stream<Path> files = Files.list(stepDir)) {
                total = files.mapToLong(CheckpointBenchmark::size).sum();
            }
            String[] log = logged.get(step);
            if (log == null) {
                throw new IllegalStateException("no log line for checkpoint " + stepDir + "; logged: "
                        + logged.keySet());
            }
            Resumed r = resume(s, model, method, runDir, step);
            measured.add(new Measured(step, r.stage(), rank0, rank1, server, manifest, total,
                    Double.parseDouble(log[0]), log[1], Double.parseDouble(log[2]), r.verifyMs(), r.restoreMs(),
                    r.toFirstStepMs()));
        }
        deleteTree(out);
        return new RunMeasured(model, method, measured, meanStepMs, load);
    }

    private record Resumed(String stage, double verifyMs, double restoreMs, double toFirstStepMs) {
    }

    /** Resumes a scratch copy of {@code runDir} holding only checkpoint {@code step}, for one step. */
    private static Resumed resume(Settings s, String model, String method, Path runDir, long step)
            throws IOException {
        Path scratch = runDir.resolveSibling(runDir.getFileName() + "-resume-" + step);
        deleteTree(scratch);
        Files.createDirectories(scratch);
        Files.copy(runDir.resolve("config.yaml"), scratch.resolve("config.yaml"));
        Files.copy(runDir.resolve("metrics.csv"), scratch.resolve("metrics.csv"));
        CheckpointDirectory from = CheckpointDirectory.in(runDir);
        CheckpointDirectory to = CheckpointDirectory.in(scratch);
        Files.createDirectories(to.stepDirectory(step));
        try (Stream<Path> files = Files.list(from.stepDirectory(step))) {
            for (Path f : files.sorted().toList()) {
                Files.copy(f, to.stepDirectory(step).resolve(f.getFileName()));
            }
        }
        long t0 = System.nanoTime();
        Checkpoint latest = to.latest().orElseThrow();
        double verifyMs = (System.nanoTime() - t0) / 1e6;
        // one step past the checkpoint; maxSteps and checkpointEverySteps are keys a resume may change
        String name = "ckpt-resume.yaml";
        ExperimentConfig cfg = ConfigLoader.parse(yaml(s, model, method, scratch.getParent(), (int) step + 1, 0),
                name);
        long[] started = new long[1];
        long[] firstDone = new long[1];
        long[] firstWall = new long[1];
        long t1 = System.nanoTime();
        new ExperimentRunner().resume(scratch, cfg, name, List.of(new TrainingListener() {
            @Override
            public void onStart(TrainingPlan plan) {
                started[0] = System.nanoTime();
            }

            @Override
            public void onStep(StepMetrics m) {
                if (firstDone[0] == 0) {
                    firstDone[0] = System.nanoTime();
                    firstWall[0] = m.wallNanos();
                }
            }
        }), new PrintStream(OutputStream.nullOutputStream()));
        long firstStart = firstDone[0] - firstWall[0];
        deleteTree(scratch);
        return new Resumed(latest.manifest().stage().toString(), verifyMs, (firstStart - started[0]) / 1e6,
                (firstStart - t1) / 1e6);
    }

    private static long size(Path p) {
        try {
            return Files.exists(p) ? Files.size(p) : 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(p)) {
            for (Path q : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(q);
            }
        }
    }

    /** For the command's option parsing. */
    public static List<String> split(String csv) {
        return Arrays.stream(csv.split(",")).map(String::trim).filter(x -> !x.isEmpty()).toList();
    }
}

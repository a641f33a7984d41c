package io.lgc4j.bench;

import io.lgc4j.core.sparse.TopK;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Top-k by magnitude at 0.1 % ({@code k = n / 1000}) of n = 1M and 25M Gaussian floats: {@link TopK} against the
 * one-pass memory-bandwidth floor and against PyTorch's {@code torch.topk(v.abs(), k)} measured in the same run, as a
 * Markdown table.
 *
 * <p>Each {@link TopK} call is timed next to one floor pass ({@code max |v|}, vectorized), and checked exact before
 * it counts; the table gives mean, median and minimum, and the ratios of the minima and of the medians. PyTorch runs
 * as a child process ({@value #PYTHON}), {@value #TORCH_REPEATS} repeats per n; without python3 or torch its columns
 * say so and the rest stands. Protocol details: {@code docs/results/bench/README.md}.
 *
 * <pre>{@code
 * TopKBenchmark.run(System.out, 10);   // 10 timed repeats per n after a warm-up
 * }</pre>
 * or {@code java -Xmx8g -cp <classpath> io.lgc4j.bench.TopKBenchmark}.
 */
public final class TopKBenchmark {
    /** Share of the entries selected. */
    public static final double RATIO = 0.001;
    /** Seed of the Gaussian data. */
    public static final long SEED = 20_240_601L;
    /** The interpreter that has Debian's {@code python3-torch}. */
    static final String PYTHON = "/usr/bin/python3";
    static final int TORCH_REPEATS = 5;
    private static final int[] SIZES = {1_000_000, 25_000_000};
    private static final long TORCH_TIMEOUT_SECONDS = 900;
    private static final int WARM_UP_CALLS = 20;
    private static final long WARM_UP_NANOS = 1_000_000_000L;
    private static final long BATCH_NANOS = 20_000_000L;
    /** Exit status of the torch script when {@code import torch} fails. */
    private static final int NO_TORCH = 3;
    private static final String TORCH_SCRIPT = String.join("\n",
            "import sys, time",
            "try:",
            "    import torch",
            "except Exception as e:",
            "    print('error', type(e).__name__, e)",
            "    sys.exit(" + NO_TORCH + ")",
            "torch.manual_seed(0)",
            "print('torch', torch.__version__, 'threads', torch.get_num_threads())",
            "repeats = int(sys.argv[1])",
            "for n in map(int, sys.argv[2:]):",
            "    v = torch.randn(n)",
            "    k = n // 1000",
            "    torch.topk(v.abs(), k)",
            "    times = []",
            "    for _ in range(repeats):",
            "        start = time.perf_counter()",
            "        torch.topk(v.abs(), k)",
            "        times.append((time.perf_counter() - start) * 1e3)",
            "    times.sort()",
            "    print('topk', n, k, sum(times) / len(times), times[len(times) // 2], times[0])",
            "    sys.stdout.flush()",
            "");

    /** Floats per chunk of the floor pass; the levels of its fold follow the chunk in the scratch, as in TopK. */
    private static final int CHUNK = 4096;
    private static final int LEVEL_1 = CHUNK;
    private static final int LEVEL_2 = LEVEL_1 + (CHUNK >> 1);
    private static final int LEVEL_3 = LEVEL_2 + (CHUNK >> 2);
    private static final int LEVEL_4 = LEVEL_3 + (CHUNK >> 3);
    private static final int LEVEL_5 = LEVEL_4 + (CHUNK >> 4);
    private static final int LEVEL_6 = LEVEL_5 + (CHUNK >> 5);
    private static final int FOLD_SCRATCH = LEVEL_6 + (CHUNK >> 6);

    /** Keeps the JIT from dropping the floor pass. */
    private static volatile float sink;

    private TopKBenchmark() {
    }

    /** Runs {@link #run(PrintStream, int)} with 10 repeats on standard output. */
    public static void main(String[] args) {
        run(System.out, 10);
    }

    /**
     * Measures both sizes, then PyTorch, and prints the table with the targets of the issue.
     *
     * @param repeats timed repeats per size after the warm-up, {@code >= 1}
     */
    public static void run(PrintStream out, int repeats) {
        if (repeats < 1) {
            throw new IllegalArgumentException("repeats=" + repeats + " must be >= 1");
        }
        List<Row> rows = new ArrayList<>();
        TopK topK = new TopK();
        for (int n : SIZES) {
            rows.add(measure(topK, n, repeats));
        }
        Torch torch = torch(SIZES);

        out.printf(Locale.ROOT, "Top-k by magnitude, k = n/1000, Gaussian floats (seed %d), %d repeats after a "
                + "warm-up, one thread; %s%n%n", SEED, repeats, environment());
        out.println("| n | k | calls | top-k ms: mean / median / min | floor ms: mean / median / min | top-k / floor "
                + "| torch.topk ms: mean / median / min | top-k / torch |");
        out.println("|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (Row row : rows) {
            Stats ours = row.ours();
            Stats floor = row.floor();
            Stats theirs = torch.times().get(row.n());
            out.printf(Locale.ROOT, "| %,d | %,d | %d | %s | %s | %s | %s | %s |%n",
                    row.n(), row.k(), row.calls(), ours, floor, ratios(ours, floor),
                    theirs == null ? "–" : theirs.toString(), theirs == null ? "–" : ratios(ours, theirs));
        }
        out.println();
        out.println("Times: over every call of every repeat (calls = repeats x calls per repeat), each call timed "
                + "alone; the mean carries the preemptions of a shared machine. Ratios: of the minima (of the "
                + "medians).");
        out.println("Floor: one pass computing max |v| (chunk copy + vectorized fold), timed next to each TopK call "
                + "(taking turns at going first). Every selection was checked exact.");
        out.println("PyTorch: " + torch.note());
        out.println();
        out.println("Targets: top-k / torch <= 1 at 1M and <= 0.2 at 25M; top-k / floor <= 2 (on the minima).");
        for (Row row : rows) {
            double toFloor = row.ours().min() / row.floor().min();
            Stats theirs = torch.times().get(row.n());
            double torchTarget = row.n() >= 25_000_000 ? 0.2 : 1.0;
            out.printf(Locale.ROOT, "- n = %,d: floor %.2f (%s); torch %s%n", row.n(), toFloor,
                    toFloor <= 2.0 ? "met" : "missed",
                    theirs == null ? "not measured"
                            : String.format(Locale.ROOT, "%.3f (%s)", row.ours().min() / theirs.min(),
                                    row.ours().min() / theirs.min() <= torchTarget ? "met" : "missed"));
        }
    }

    private static String ratios(Stats ours, Stats reference) {
        return String.format(Locale.ROOT, "%.3f (%.3f)", ours.min() / reference.min(),
                ours.median() / reference.median());
    }

    private static Row measure(TopK topK, int n, int repeats) {
        float[] values = gaussian(n, SEED + n);
        int k = TopK.countFor(n, RATIO);
        int[] indices = new int[k];
        float[] scratch = new float[FOLD_SCRATCH];
        // Warm-up: long enough for C2 to compile both at this size (and the selection's scratch to grow).
        long warmUpEnd = System.nanoTime() + WARM_UP_NANOS;
        long fastest = Long.MAX_VALUE;
        for (int i = 0; i < WARM_UP_CALLS || System.nanoTime() < warmUpEnd; i++) {
            long start = System.nanoTime();
            topK.select(values, 0, n, k, indices);
            fastest = Math.min(fastest, System.nanoTime() - start);
            sink = maxAbs(values, scratch);
        }
        // A repeat is a batch of calls lasting about BATCH_NANOS (one call at 25M, dozens at 1M), each call timed
        // on its own next to one floor pass: on a shared machine the minimum of single calls is the cost of
        // the work, and a batch timed as a whole would mostly measure the scheduler.
        int calls = (int) Math.max(1, Math.min(1000, BATCH_NANOS / Math.max(1, fastest)));
        double[] ours = new double[repeats * calls];
        double[] floor = new double[repeats * calls];
        for (int i = 0; i < ours.length; i++) {
            // Alternate which goes first, so that neither always finds the data in cache after the other.
            if (i % 2 == 0) {
                ours[i] = timeSelect(topK, values, k, indices);
                floor[i] = timeFloor(values, scratch);
            } else {
                floor[i] = timeFloor(values, scratch);
                ours[i] = timeSelect(topK, values, k, indices);
            }
        }
        checkExact(values, indices, k);
        return new Row(n, k, ours.length, Stats.of(ours), Stats.of(floor));
    }

    private static double timeSelect(TopK topK, float[] values, int k, int[] indices) {
        long start = System.nanoTime();
        topK.select(values, 0, values.length, k, indices);
        return (System.nanoTime() - start) / 1e6;
    }

    private static double timeFloor(float[] values, float[] scratch) {
        long start = System.nanoTime();
        sink = maxAbs(values, scratch);
        return (System.nanoTime() - start) / 1e6;
    }

    private static float[] gaussian(int n, long seed) {
        Random random = new Random(seed);
        float[] values = new float[n];
        for (int i = 0; i < n; i++) {
            values[i] = (float) random.nextGaussian();
        }
        return values;
    }

    /** Throws unless {@code indices} are what a full sort by (|v| descending, index ascending) would pick. */
    static void checkExact(float[] values, int[] indices, int k) {
        boolean[] selected = new boolean[values.length];
        float smallestSelected = Float.POSITIVE_INFINITY;
        int lastSelectedAtSmallest = -1;
        for (int i = 0; i < k; i++) {
            int index = indices[i];
            if (i > 0 && index <= indices[i - 1]) {
                throw new IllegalStateException("indices not ascending at " + i);
            }
            selected[index] = true;
            float magnitude = Math.abs(values[index]);
            if (magnitude < smallestSelected) {
                smallestSelected = magnitude;
            }
        }
        for (int i = 0; i < k; i++) {
            if (Math.abs(values[indices[i]]) == smallestSelected) {
                lastSelectedAtSmallest = indices[i];
            }
        }
        for (int i = 0; i < values.length; i++) {
            float magnitude = Math.abs(values[i]);
            if (!selected[i] && (magnitude > smallestSelected
                    || magnitude == smallestSelected && i < lastSelectedAtSmallest)) {
                throw new IllegalStateException("entry " + i + " (|v| = " + magnitude + ") should have been selected");
            }
        }
    }

    /**
     * The floor: {@code max |v|} in one pass. A plain reduction loop is not vectorized by C2 in JDK 17 (about 1.2 ns
     * a float here); copying chunks into scratch and folding them in halves with constant offsets is.
     */
    static float maxAbs(float[] values, float[] c) {
        float max = 0f;
        int position = 0;
        for (; position + CHUNK <= values.length; position += CHUNK) {
            System.arraycopy(values, position, c, 0, CHUNK);
            for (int j = 0; j < CHUNK >> 1; j++) {
                c[LEVEL_1 + j] = Math.max(Math.abs(c[j]), Math.abs(c[(CHUNK >> 1) + j]));
            }
            for (int j = 0; j < CHUNK >> 2; j++) {
                c[LEVEL_2 + j] = Math.max(c[LEVEL_1 + j], c[LEVEL_1 + (CHUNK >> 2) + j]);
            }
            for (int j = 0; j < CHUNK >> 3; j++) {
                c[LEVEL_3 + j] = Math.max(c[LEVEL_2 + j], c[LEVEL_2 + (CHUNK >> 3) + j]);
            }
            for (int j = 0; j < CHUNK >> 4; j++) {
                c[LEVEL_4 + j] = Math.max(c[LEVEL_3 + j], c[LEVEL_3 + (CHUNK >> 4) + j]);
            }
            for (int j = 0; j < CHUNK >> 5; j++) {
                c[LEVEL_5 + j] = Math.max(c[LEVEL_4 + j], c[LEVEL_4 + (CHUNK >> 5) + j]);
            }
            for (int j = 0; j < CHUNK >> 6; j++) {
                c[LEVEL_6 + j] = Math.max(c[LEVEL_5 + j], c[LEVEL_5 + (CHUNK >> 6) + j]);
            }
            for (int j = 0; j < CHUNK >> 6; j++) {
                float m = c[LEVEL_6 + j];
                max = m > max ? m : max;
            }
        }
        for (; position < values.length; position++) {
            max = Math.max(max, Math.abs(values[position]));
        }
        return max;
    }

    /** Runs the torch script for the sizes; never throws for a missing python3 or torch. */
    private static Torch torch(int[] sizes) {
        if (!Files.isExecutable(Path.of(PYTHON))) {
            return new Torch(Map.of(), "skipped: " + PYTHON + " not found");
        }
        Path script = null;
        try {
            script = Files.createTempFile("lgc-topk-torch", ".py");
            Files.writeString(script, TORCH_SCRIPT, StandardCharsets.UTF_8);
            List<String> command = new ArrayList<>(List.of(PYTHON, script.toString(), Integer.toString(TORCH_REPEATS)));
            for (int n : sizes) {
                command.add(Integer.toString(n));
            }
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(TORCH_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return new Torch(Map.of(), "skipped: the torch script ran over " + TORCH_TIMEOUT_SECONDS + " s");
            }
            return parse(output, process.exitValue());
        } catch (IOException e) {
            return new Torch(Map.of(), "skipped: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Torch(Map.of(), "skipped: interrupted");
        } finally {
            if (script != null) {
                try {
                    Files.deleteIfExists(script);
                } catch (IOException ignored) {
                    // a temporary file left behind is harmless
                }
            }
        }
    }

    private static Torch parse(String output, int exitValue) {
        if (exitValue == NO_TORCH) {
            return new Torch(Map.of(), "skipped: torch is not importable (" + output.strip()
                    + "); apt-get install -y python3-torch");
        }
        Map<Integer, Stats> times = new HashMap<>();
        String version = "torch (version unknown)";
        for (String line : output.split("\n")) {
            String[] fields = line.strip().split(" ");
            if (fields[0].equals("torch") && fields.length >= 4) {
                version = "torch " + fields[1] + ", " + fields[3] + " thread(s)";
            } else if (fields[0].equals("topk") && fields.length == 6) {
                times.put(Integer.parseInt(fields[1]), new Stats(Double.parseDouble(fields[3]),
                        Double.parseDouble(fields[4]), Double.parseDouble(fields[5])));
            }
        }
        if (exitValue != 0 || times.isEmpty()) {
            return new Torch(times, "the torch script exited with " + exitValue + ": " + output.strip());
        }
        return new Torch(times, version + ", " + PYTHON + ", torch.topk(v.abs(), k) after one warm-up call, "
                + TORCH_REPEATS + " repeats, same run");
    }

    private static String environment() {
        double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        return String.format(Locale.ROOT, "Java %s, %s, %d CPUs, load average %.1f", Runtime.version(),
                System.getProperty("os.arch"), Runtime.getRuntime().availableProcessors(), load);
    }

    /** One size: {@code calls} timed calls in all, of {@link TopK} and of the floor. */
    private record Row(int n, int k, int calls, Stats ours, Stats floor) {
    }

    private record Stats(double mean, double median, double min) {
        static Stats of(double[] millis) {
            double[] sorted = millis.clone();
            Arrays.sort(sorted);
            return new Stats(Arrays.stream(sorted).average().orElseThrow(), sorted[sorted.length / 2], sorted[0]);
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%.3f / %.3f / %.3f", mean, median, min);
        }
    }

    private record Torch(Map<Integer, Stats> times, String note) {
    }
}

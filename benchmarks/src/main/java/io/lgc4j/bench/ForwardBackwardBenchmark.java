package io.lgc4j.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lgc4j.core.compute.ComputeReport;
import io.lgc4j.core.compute.ComputeSettings;
import io.lgc4j.core.compute.Nd4jBuild;
import io.lgc4j.core.train.ReplicaModel;
import io.lgc4j.runner.Nd4jEnvironment;
import io.lgc4j.zoo.ModelSpec;
import io.lgc4j.zoo.ModelZoo;
import org.deeplearning4j.nn.conf.CacheMode;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.DoubleStream;

/**
 * Forward + backward of every zoo model at batch 32, on every compute path ({@link ComputeSettings}: DL4J's own or
 * oneDNN helpers, cache mode NONE or HOST), at each OpenMP thread count, beside PyTorch's same models
 * ({@code scripts/torch_compute_peer.py}) measured in the same run. DL4J fixes its OpenMP threads and its native
 * build ({@link Nd4jBuild}) when its native library loads, so each thread count and build runs in a JVM of its own
 * ({@link #main}); within one JVM the paths and models take turns, round by round, so that a noisy moment hits all
 * of them.
 */
public final class ForwardBackwardBenchmark {
    /** Batch size of every measured step. */
    public static final int BATCH = 32;

    /** The compute paths measured, by the name the table gives them; the last is LGC4J's default. */
    static final Map<String, ComputeSettings> PATHS = paths();

    private static final String ROW = "fwdbwd-row";

    private ForwardBackwardBenchmark() {
    }

    private static Map<String, ComputeSettings> paths() {
        Map<String, ComputeSettings> p = new LinkedHashMap<>();
        p.put("built-in", ComputeSettings.BUILT_IN);
        p.put("built-in, HOST", new ComputeSettings(false, CacheMode.HOST));
        p.put("oneDNN", new ComputeSettings(true, CacheMode.NONE));
        p.put("oneDNN, HOST", ComputeSettings.DEFAULT);
        return p;
    }

    /**
     * One model on one path at one thread count.
     *
     * @param model   the zoo name
     * @param threads OpenMP threads (PyTorch: {@code set_num_threads})
     * @param path    a key of {@link #PATHS}, or "PyTorch"
     * @param ms      mean milliseconds per step of each round
     */
    record Row(String model, int threads, String path, double[] ms) {
        double median() {
            double[] s = ms.clone();
            Arrays.sort(s);
            return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
        }

        String cell() {
            double lo = Arrays.stream(ms).min().orElse(Double.NaN);
            double hi = Arrays.stream(ms).max().orElse(Double.NaN);
            return String.format(Locale.ROOT, "%.1f (%.1f–%.1f)", median(), lo, hi);
        }
    }

    /**
     * The child JVM: measures every model on every path at this JVM's thread count and prints one line per model
     * and path ({@value #ROW}, model, threads, path, the rounds' means).
     *
     * @param args rounds, steps per round, warm-up steps, threads (the value of OMP_NUM_THREADS it was started with),
     *             "tag" to name the build after each path, "default" to measure LGC4J's default path only
     */
    public static void main(String[] args) {
        int rounds = Integer.parseInt(args[0]);
        int steps = Integer.parseInt(args[1]);
        int warmup = Integer.parseInt(args[2]);
        int threads = Integer.parseInt(args[3]);
        boolean tag = args.length > 4 && args[4].equals("tag");
        boolean defaultOnly = args.length > 5 && args[5].equals("default");
        Nd4jEnvironment.configure();
        Nd4j.getRandom().setSeed(1);
        INDArray x = Nd4j.rand(DataType.FLOAT, BATCH, ModelZoo.SIDE * ModelZoo.SIDE);
        INDArray y = Nd4j.zeros(DataType.FLOAT, BATCH, ModelZoo.NUM_CLASSES);
        for (int i = 0; i < BATCH; i++) {
            y.putScalar(i, i % ModelZoo.NUM_CLASSES, 1f);
        }
        Map<String, ReplicaModel> replicas = new LinkedHashMap<>();
        for (ModelSpec spec : ModelSpec.values()) {
            ReplicaModel origin = ReplicaModel.wrap(spec.build(1, ModelZoo.defaultUpdater()));
            for (Map.Entry<String, ComputeSettings> p : PATHS.entrySet()) {
                if (defaultOnly && p.getValue() != ComputeSettings.DEFAULT) {
                    continue;
                }
                ReplicaModel r = origin.copy(p.getValue());
                List<ComputeReport.LayerCompute> missing = ComputeReport.of(r.model(), p.getValue()).missingHelpers();
                if (!missing.isEmpty()) {
                    throw new IllegalStateException(spec.modelName() + " on " + p.getKey() + ": layers without"
                            + " their helper " + missing);
                }
                replicas.put(spec.modelName() + "\t" + p.getKey() + (tag ? " @ " + Nd4jBuild.current().loaded()
                        .replace("linux-x86_64-", "") : ""), r);
            }
        }
        Map<String, double[]> ms = new LinkedHashMap<>();
        for (Map.Entry<String, ReplicaModel> e : replicas.entrySet()) {
            for (int i = 0; i < warmup; i++) {
                e.getValue().computeGradient(x, y);
            }
            ms.put(e.getKey(), new double[rounds]);
        }
        for (int round = 0; round < rounds; round++) {
            for (Map.Entry<String, ReplicaModel> e : replicas.entrySet()) {
                long start = System.nanoTime();
                for (int i = 0; i < steps; i++) {
                    e.getValue().computeGradient(x, y);
                }
                ms.get(e.getKey())[round] = (System.nanoTime() - start) / 1e6 / steps;
            }
        }
        for (Map.Entry<String, double[]> e : ms.entrySet()) {
            System.out.println(ROW + "\t" + e.getKey().replace("\t", "\t" + threads + "\t") + "\t"
                    + Arrays.stream(e.getValue()).mapToObj(v -> String.format(Locale.ROOT, "%.3f", v))
                    .collect(Collectors.joining(",")));
        }
    }

    /**
     * Measures DL4J in one child JVM per thread count and PyTorch through its peer script, then prints the table.
     *
     * @param out        where the table goes
     * @param threads    OpenMP / PyTorch thread counts
     * @param builds     ND4J builds ({@value Nd4jBuild#REQUEST_ENV}), each in JVMs of its own; "auto" for the one
     *                   each process chooses
     * @param defaultOnly measure LGC4J's default path only
     * @param repeats    how many times DL4J and PyTorch take turns (each time a new JVM and a new Python process)
     * @param rounds     rounds per path and repeat (the table gives the median and range of all of them)
     * @param steps      steps per round
     * @param warmup     steps before the first round
     * @param peerScript {@code scripts/torch_compute_peer.py}; PyTorch is skipped, and said so, when it or torch is
     *                   missing
     * @return the rows, DL4J's and PyTorch's
     */
    public static List<Row> run(PrintStream out, List<Integer> threads, List<String> builds, boolean defaultOnly,
                                int repeats, int rounds, int steps, int warmup, Path peerScript)
            throws IOException, InterruptedException {
        // DL4J and PyTorch take turns, repeat by repeat: a shared machine's speed drifts by tens of percent over
        // minutes, and a ratio of two figures measured minutes apart would measure the drift
        List<Row> rows = new ArrayList<>();
        for (int r = 0; r < repeats; r++) {
            for (int t : threads) {
                for (String build : builds) {
                    rows.addAll(child(t, build, builds.size() > 1, defaultOnly, rounds, steps, warmup));
                }
                rows.addAll(torch(r == 0 ? out : new PrintStream(OutputStream.nullOutputStream()), List.of(t), rounds,
                        steps, warmup, peerScript));
            }
        }
        List<Row> pooled = pool(rows);
        print(out, pooled, threads, repeats, rounds, steps);
        return pooled;
    }

    /** One row per model, thread count and path, with the rounds of every repeat. */
    private static List<Row> pool(List<Row> rows) {
        Map<String, Row> pooled = new LinkedHashMap<>();
        for (Row r : rows) {
            pooled.merge(r.model() + "\t" + r.threads() + "\t" + r.path(), r, (a, b) -> new Row(a.model(), a.threads(),
                    a.path(), DoubleStream.concat(Arrays.stream(a.ms()), Arrays.stream(b.ms()))
                    .toArray()));
        }
        return List.copyOf(pooled.values());
    }

    private static List<Row> child(int threads, String build, boolean tag, boolean defaultOnly, int rounds, int steps,
                                   int warmup) throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command().orElse("java");
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx2g", "-Dorg.bytedeco.javacpp.maxbytes=4G",
                "-cp", System.getProperty("java.class.path"), ForwardBackwardBenchmark.class.getName(),
                String.valueOf(rounds), String.valueOf(steps), String.valueOf(warmup), String.valueOf(threads),
                tag ? "tag" : "-", defaultOnly ? "default" : "all")
                .redirectErrorStream(true);
        pb.environment().put("OMP_NUM_THREADS", String.valueOf(threads));
        pb.environment().put(Nd4jBuild.REQUEST_ENV, build);
        Process p = pb.start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(3600, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("the forward+backward benchmark at " + threads + " threads (" + build + ") failed: "
                    + output.lines().reduce((a, b) -> b).orElse("(no output)"));
        }
        List<Row> rows = new ArrayList<>();
        for (String line : output.lines().filter(l -> l.startsWith(ROW + "\t")).toList()) {
            String[] f = line.split("\t");
            rows.add(new Row(f[1], Integer.parseInt(f[2]), f[3],
                    Arrays.stream(f[4].split(",")).mapToDouble(Double::parseDouble).toArray()));
        }
        return rows;
    }

    private static List<Row> torch(PrintStream out, List<Integer> threads, int rounds, int steps, int warmup,
                                   Path peerScript) throws IOException, InterruptedException {
        if (!Files.isRegularFile(peerScript)) {
            out.println("PyTorch skipped: " + peerScript + " not found");
            return List.of();
        }
        Process p = new ProcessBuilder("/usr/bin/python3", peerScript.toString(), "--threads",
                threads.stream().map(String::valueOf).collect(Collectors.joining(",")), "--rounds",
                String.valueOf(rounds), "--steps", String.valueOf(steps), "--warmup", String.valueOf(warmup))
                .redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(3600, TimeUnit.SECONDS) || p.exitValue() != 0) {
            out.println("PyTorch skipped (install: apt-get install -y python3-torch): "
                    + output.lines().reduce((a, b) -> b).orElse(""));
            return List.of();
        }
        ObjectMapper json = new ObjectMapper();
        List<Row> rows = new ArrayList<>();
        String version = "";
        for (String line : output.lines().filter(l -> l.startsWith("{")).toList()) {
            JsonNode n = json.readTree(line);
            version = n.get("torch").asText();
            double[] ms = new double[n.get("ms").size()];
            for (int i = 0; i < ms.length; i++) {
                ms[i] = n.get("ms").get(i).asDouble();
            }
            rows.add(new Row(n.get("model").asText(), n.get("threads").asInt(), "PyTorch " + version, ms));
        }
        return rows;
    }

    private static void print(PrintStream out, List<Row> rows, List<Integer> threads, int repeats, int rounds,
                              int steps) {
        out.printf(Locale.ROOT, "%nForward + backward, batch %d, ms per step: median of %d rounds of %d steps"
                + " (min–max of the rounds), %d repeats of DL4J then PyTorch; DL4J paths are model.compute (oneDnn,"
                + " cacheMode), the last LGC4J's default%n", BATCH, repeats * rounds, steps, repeats);
        List<String> dl4j = rows.stream().map(Row::path).filter(p -> !p.startsWith("PyTorch")).distinct().toList();
        List<String> defaults = dl4j.stream().filter(p -> p.startsWith("oneDNN, HOST")).toList();
        String builtIn = dl4j.stream().filter(p -> p.startsWith("built-in") && !p.contains("HOST")).findFirst()
                .orElse(null);
        String torchPath = rows.stream().map(Row::path).filter(p -> p.startsWith("PyTorch")).findFirst().orElse(null);
        StringBuilder header = new StringBuilder("| model | threads |");
        dl4j.forEach(p -> header.append(" DL4J ").append(p).append(" |"));
        if (torchPath != null) {
            header.append(' ').append(torchPath).append(" |");
            defaults.forEach(p -> header.append(' ').append(p.replace("oneDNN, HOST", "default")).append(" / PyTorch |"));
        }
        if (builtIn != null) {
            header.append(" built-in / default |");
        }
        out.println(header);
        out.println("|---".repeat((int) header.chars().filter(c -> c == '|').count() - 1) + "|");
        for (ModelSpec spec : ModelSpec.values()) {
            for (int t : threads) {
                Map<String, Row> byPath = new LinkedHashMap<>();
                rows.stream().filter(r -> r.model().equals(spec.modelName()) && r.threads() == t)
                        .forEach(r -> byPath.put(r.path(), r));
                if (byPath.isEmpty()) {
                    continue;
                }
                StringBuilder line = new StringBuilder("| " + spec.modelName() + " | " + t + " |");
                dl4j.forEach(p -> line.append(' ').append(byPath.containsKey(p) ? byPath.get(p).cell() : "–")
                        .append(" |"));
                if (torchPath != null) {
                    Row torch = byPath.get(torchPath);
                    line.append(' ').append(torch == null ? "–" : torch.cell()).append(" |");
                    for (String d : defaults) {
                        line.append(' ').append(torch == null || !byPath.containsKey(d) ? "–" : String.format(
                                Locale.ROOT, "%.2f", byPath.get(d).median() / torch.median())).append(" |");
                    }
                }
                if (builtIn != null) {
                    line.append(String.format(Locale.ROOT, " %.2f |", byPath.get(builtIn).median()
                            / byPath.get(defaults.get(0)).median()));
                }
                out.println(line);
            }
        }
    }
}

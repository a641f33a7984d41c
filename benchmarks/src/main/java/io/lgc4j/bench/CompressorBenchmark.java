package io.lgc4j.bench;

import io.lgc4j.lgc.autoencoder.AeTraining;
import io.lgc4j.lgc.autoencoder.AutoencoderSpec;
import io.lgc4j.core.codec.IndexCodec;
import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.compress.GatherCompressor;
import io.lgc4j.core.compress.LowRankCompressor;
import io.lgc4j.core.protocol.LowRankPlan;
import io.lgc4j.core.compress.PowerSgdCompressor;
import io.lgc4j.core.compress.SparseMean;
import io.lgc4j.core.protocol.SparseSet;
import io.lgc4j.core.compress.TopKCompressor;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.protocol.SparseFrames;
import io.lgc4j.core.sparse.TopK;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.comm.StepTag;
import io.lgc4j.zoo.ModelZoo;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/**
 * {@code lgc bench compressors}: the CPU time one rank spends per compressed step coding and decoding its gradient
 * (Sparse GD, PowerSGD r = 1, 2, 4, LGC's autoencoder, and PowerSGD's arithmetic in PyTorch when
 * {@code python3-torch} is there), on the small CNN's layout at K = 4 with Gaussian gradients from a fixed seed: a
 * training run's encode and decode columns without the network or the model. Each operation is timed alone, the
 * methods taking turns step by step; the table gives mean, median and minimum. What each row times:
 * {@code docs/results/bench/README.md}.
 */
public final class CompressorBenchmark {
    /** Seed of the gradients. */
    public static final long SEED = 20_261_123L;
    /** Ranks simulated (the decode of Sparse GD averages K sets). */
    public static final int K = 4;
    private static final int[] RANKS = {1, 2, 4};
    private static final long TORCH_TIMEOUT_SECONDS = 600;

    private CompressorBenchmark() {
    }

    /** One operation's name and its per-step times in milliseconds. */
    private record Timed(String method, String operation, double[] millis) {
        double mean() {
            return Arrays.stream(millis).average().orElse(Double.NaN);
        }

        double median() {
            double[] s = millis.clone();
            Arrays.sort(s);
            return s[s.length / 2];
        }

        double min() {
            return Arrays.stream(millis).min().orElse(Double.NaN);
        }
    }

    /** A method under test: its operations of one step, called in order. */
    private record Method(String name, List<String> operations, List<IntConsumer> calls) {
    }

    /**
     * Measures every method for {@code steps} steps after {@code warmup} and prints the table.
     *
     * @param python the interpreter with {@code python3-torch}; the PyTorch rows say so when it is missing
     */
    public static void run(PrintStream out, int warmup, int steps, String python) throws IOException {
        GradientLayout layout = GradientLayout.of(ModelZoo.smallCnn(1, ModelZoo.defaultUpdater()));
        List<ParamBlock> blocks = layout.compressibleBlocks();
        int flat = layout.blocks().get(layout.blocks().size() - 1).end();
        Random random = new Random(SEED);
        int pool = 8;
        float[][][] gradients = new float[pool][K][flat];
        for (float[][] step : gradients) {
            for (float[] rank : step) {
                for (int i = 0; i < flat; i++) {
                    rank[i] = (float) (1e-3 * random.nextGaussian());
                }
            }
        }
        List<Method> methods = new ArrayList<>();
        methods.add(sparseGd(blocks, gradients));
        for (int r : RANKS) {
            methods.add(powerSgd(blocks, r, gradients));
        }
        int mu = 0;
        for (ParamBlock b : blocks) {
            if (b.policy() == LayerPolicy.LEARNED) {
                mu += TopK.countFor(b.length(), 0.001);
            }
        }
        out.printf(Locale.ROOT, "Per-rank coding time of one compressed step, small CNN (LeNet-5) layout: %d"
                + " compressible floats (%s), K = %d, Gaussian gradients (seed %d); %d timed steps after %d warm-up,"
                + " the methods taking turns each step; one thread%n%s%n%n", Arrays.stream(blocks.toArray(
                        ParamBlock[]::new)).mapToInt(ParamBlock::length).sum(), describe(blocks), K, SEED, steps,
                warmup, BenchEnvironment.describe(SEED));
        List<Timed> timed = measure(methods, warmup, steps);
        AutoencoderBenchmark.Column ae = AutoencoderBenchmark.measure(AutoencoderSpec.PAPER, AeTraining.DEFAULT, mu,
                new AutoencoderBenchmark.Settings(List.of(mu), K, warmup, steps, 42));
        out.println("| method | operation | ms mean | ms median | ms min | bytes / rank / step (payload) |");
        out.println("|---|---|---:|---:|---:|---:|");
        String last = "";
        for (Timed t : timed) {
            String bytes = t.method().equals(last) ? "" : payload(t.method(), blocks);
            out.printf(Locale.ROOT, "| %s | %s | %.3f | %.3f | %.3f | %s |%n", t.method().equals(last) ? ""
                    : t.method(), t.operation(), t.mean(), t.median(), t.min(), bytes);
            last = t.method();
        }
        AutoencoderBenchmark.Operation[] aeOps = {AutoencoderBenchmark.Operation.RING_ENCODE,
            AutoencoderBenchmark.Operation.PS_ENCODE, AutoencoderBenchmark.Operation.RING_DECODE,
            AutoencoderBenchmark.Operation.PS_DECODE};
        for (int i = 0; i < aeOps.length; i++) {
            AutoencoderBenchmark.Timing t = ae.timings()[aeOps[i].ordinal()];
            out.printf(Locale.ROOT, "| %s | %s | %.3f | – | – | %s |%n", i == 0 ? "LGC autoencoder, μ = " + mu : "",
                    aeOps[i].label, t.mean(), i == 0 ? "latent " + 4 * ae.sizes().latentFloats() + " B" : "");
        }
        out.println();
        out.println("The autoencoder rows give the mean and leave median and minimum out (AutoencoderBenchmark keeps"
                + " the mean and the 95th percentile); its p95: " + Arrays.stream(aeOps).map(op -> String.format(
                        Locale.ROOT, "%.3f", ae.timings()[op.ordinal()].p95())).toList() + " ms.");
        if (Files.isExecutable(Path.of(python))) {
            torch(out, python, blocks, warmup, steps);
        } else {
            out.println("\nPyTorch rows skipped: " + python + " not found");
        }
    }

    private static String describe(List<ParamBlock> blocks) {
        List<String> out = new ArrayList<>();
        for (ParamBlock b : blocks) {
            out.add(b.qualifiedName() + " " + LowRankPlan.rows(b) + "×" + LowRankPlan.cols(b));
        }
        return String.join(", ", out);
    }

    private static String payload(String method, List<ParamBlock> blocks) {
        if (method.startsWith("PowerSGD")) {
            int r = Integer.parseInt(method.substring(method.indexOf("r = ") + 4));
            LowRankPlan plan = new PowerSgdCompressor(new PowerSgdCompressor.Settings(r), 1).plan(blocks);
            return String.format(Locale.ROOT, "%,d (P %,d + plain %,d + Q %,d floats)",
                    4 * (plan.firstLength() + plan.secondLength()), plan.pLength(), plan.plainLength(),
                    plan.qLength());
        }
        return "";
    }

    private static Method sparseGd(List<ParamBlock> blocks, float[][][] gradients) {
        TopKCompressor topk = new TopKCompressor(0.001);
        GatherCompressor.State[] ranks = new GatherCompressor.State[K];
        for (int r = 0; r < K; r++) {
            ranks[r] = topk.newRank(blocks);
        }
        IndexCodec codec = IndexCodecs.defaultCodec();
        SparseSet[] sets = new SparseSet[K];
        byte[][][] frames = new byte[K][][];
        SparseMean mean = new SparseMean(blocks);
        int[] max = blocks.stream().mapToInt(b -> topk.count(0, b)).toArray();
        int[] step = {0};
        return new Method("Sparse GD (top-k 0.1 %)", List.of("select (top-k, error feedback)",
                "encode (DEFLATE indices + values)", "decode K sets + mean"), List.of(
                        s -> {
                            step[0] = s;
                            sets[0] = ranks[0].compress(gradients[s % gradients.length][0], s);
                        },
                        s -> {
                            frames[0] = SparseFrames.encode(sets[0], blocks, codec, new StepTag(s, Stage.TOP_K));
                            for (int r = 1; r < K; r++) { // the other ranks' sets, made outside the timing
                                frames[r] = frames[0];
                            }
                        },
                        s -> {
                            mean.reset();
                            for (int r = 0; r < K; r++) {
                                int[][] idx = SparseFrames.decodeIndices(FrameCodec.decode(frames[r][0]), blocks,
                                        codec, max);
                                mean.add(SparseFrames.decode(idx, FrameCodec.decode(frames[r][1]), blocks));
                            }
                            sink(mean.mean(K).nnz());
                        }));
    }

    private static Method powerSgd(List<ParamBlock> blocks, int rank, float[][][] gradients) {
        LowRankCompressor psgd = new PowerSgdCompressor(new PowerSgdCompressor.Settings(rank), 7);
        LowRankCompressor.State state = psgd.newRank(blocks);
        float[][] payload = new float[1][];
        float[] out = new float[gradients[0][0].length];
        return new Method("PowerSGD r = " + rank, List.of("round 1: M = memory + g, P = M·Q",
                "round 2: Gram–Schmidt, Q = Mᵀ·P̂", "finish: P̂·Q̄ᵀ, memory"), List.of(
                        s -> payload[0] = state.project(gradients[s % gradients.length][0], s),
                        s -> payload[0] = state.back(payload[0], s), // its own P stands for the ranks' mean
                        s -> state.finish(payload[0], s, out)));
    }

    private static List<Timed> measure(List<Method> methods, int warmup, int steps) {
        List<double[]> millis = new ArrayList<>();
        for (Method m : methods) {
            for (int i = 0; i < m.calls().size(); i++) {
                millis.add(new double[steps]);
            }
        }
        for (int s = 0; s < warmup + steps; s++) {
            int at = 0;
            for (Method m : methods) {
                for (IntConsumer call : m.calls()) {
                    long start = System.nanoTime();
                    call.accept(s);
                    double ms = (System.nanoTime() - start) / 1e6;
                    if (s >= warmup) {
                        millis.get(at)[s - warmup] = ms;
                    }
                    at++;
                }
            }
        }
        List<Timed> out = new ArrayList<>();
        int at = 0;
        for (Method m : methods) {
            for (String op : m.operations()) {
                out.add(new Timed(m.name(), op, millis.get(at++)));
            }
        }
        return out;
    }

    /** PowerSGD's three rounds in PyTorch on the same shapes: torch.matmul and PyTorch's
     * {@code _orthogonalize} (Gram–Schmidt up to rank 2, QR above). */
    private static void torch(PrintStream out, String python, List<ParamBlock> blocks, int warmup, int steps)
            throws IOException {
        StringBuilder shapes = new StringBuilder();
        for (ParamBlock b : blocks) {
            shapes.append(' ').append(LowRankPlan.rows(b)).append('x').append(LowRankPlan.cols(b));
        }
        String script = String.join("\n",
                "import sys, time",
                "try:",
                "    import torch",
                "    from torch.distributed.algorithms.ddp_comm_hooks.powerSGD_hook import _orthogonalize",
                "except Exception as e:",
                "    print('error', type(e).__name__, e); sys.exit(3)",
                "torch.set_num_threads(1); torch.manual_seed(0)",
                "print('torch', torch.__version__)",
                "warmup, steps = int(sys.argv[1]), int(sys.argv[2])",
                "shapes = [tuple(map(int, s.split('x'))) for s in sys.argv[3:]]",
                "for r in (1, 2, 4):",
                "    ms = [m for m in shapes if m[0] > 1 and m[1] > 1 and (m[0] + m[1]) * min(r, *m) * 2 < m[0] * m[1]]",
                "    M = [torch.randn(*m) * 1e-3 for m in ms]",
                "    Q = [torch.randn(m[1], min(r, *m)) for m in ms]",
                "    t = [[], [], []]",
                "    for s in range(warmup + steps):",
                "        a = time.perf_counter(); P = [torch.matmul(m, q) for m, q in zip(M, Q)]",
                "        b = time.perf_counter()",
                "        for p in P: _orthogonalize(p.unsqueeze(0))",  // a batch of one, orthogonalized in place through the view
                "        Q = [torch.matmul(m.t(), p) for m, p in zip(M, P)]",
                "        c = time.perf_counter(); A = [torch.matmul(p, q.t()) for p, q in zip(P, Q)]",
                "        d = time.perf_counter()",
                "        if s >= warmup:",
                "            t[0].append((b - a) * 1e3); t[1].append((c - b) * 1e3); t[2].append((d - c) * 1e3)",
                "    for i, x in enumerate(t):",
                "        x.sort(); print('psgd', r, i, sum(x) / len(x), x[len(x) // 2], x[0])",
                "");
        Path file = Files.createTempFile("lgc-bench-psgd", ".py");
        try {
            Files.writeString(file, script);
            List<String> command = new ArrayList<>(List.of(python, file.toString(), String.valueOf(warmup),
                    String.valueOf(steps)));
            command.addAll(Arrays.asList(shapes.toString().trim().split(" ")));
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output;
            try {
                if (!p.waitFor(TORCH_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    out.println("\nPyTorch: timed out after " + TORCH_TIMEOUT_SECONDS + " s");
                    return;
                }
                output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.destroyForcibly();
                return;
            }
            if (p.exitValue() != 0) {
                out.println("\nPyTorch rows skipped: " + output.trim());
                return;
            }
            String[] names = {"round 1: P = M·Q", "round 2: Gram–Schmidt, Q = Mᵀ·P̂", "finish: P̂·Q̄ᵀ"};
            out.printf(Locale.ROOT, "%nThe same PowerSGD arithmetic in PyTorch (%s, 1 thread, %s; no error-feedback"
                    + " additions, so round 1 and finish do a little less than ours):%n%n",
                    output.lines().filter(l -> l.startsWith("torch")).findFirst().orElse("torch ?"), python);
            out.println("| method | operation | ms mean | ms median | ms min |");
            out.println("|---|---|---:|---:|---:|");
            for (String line : output.lines().filter(l -> l.startsWith("psgd")).toList()) {
                String[] f = line.split(" ");
                int i = Integer.parseInt(f[2]);
                out.printf(Locale.ROOT, "| %s | %s | %.3f | %.3f | %.3f |%n", i == 0 ? "PyTorch PowerSGD r = " + f[1]
                        : "", names[i], Double.parseDouble(f[3]), Double.parseDouble(f[4]),
                        Double.parseDouble(f[5]));
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static volatile long sinkHole;

    private static void sink(long v) {
        sinkHole += v;
    }
}

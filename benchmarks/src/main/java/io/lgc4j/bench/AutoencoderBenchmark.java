package io.lgc4j.bench;

import io.lgc4j.lgc.autoencoder.AeTraining;
import io.lgc4j.lgc.autoencoder.AutoencoderSpec;
import io.lgc4j.lgc.autoencoder.PsAutoencoder;
import io.lgc4j.lgc.autoencoder.RingAutoencoder;
import io.lgc4j.lgc.autoencoder.Scale;
import io.lgc4j.lgc.autoencoder.SyntheticGradients;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.IntConsumer;

/**
 * Latency of the gradient autoencoders ({@link AutoencoderSpec#PAPER}, {@link AeTraining#DEFAULT}) at the lengths
 * μ of real compact vectors, as a Markdown table beside the paper's GPU figures: six operations (ring and PS encode,
 * decode and train step), each what one party does in one step, on {@link SyntheticGradients}. Each run calls the
 * six in turn after warm-up runs; the first call of each is reported apart, then mean and 95th percentile. The
 * operations and the paper's figures: {@code docs/architecture/lgc.md}.
 *
 * <pre>{@code
 * AutoencoderBenchmark.run(System.out, new AutoencoderBenchmark.Settings(List.of(1000, 10_000, 25_000), 4, 5, 50, 42));
 * }</pre>
 */
public final class AutoencoderBenchmark {

    /** The paper's PS innovation share. */
    public static final double INNOVATION_SHARE = 0.1;
    /** Size of the per-rank part of the synthetic vectors. */
    public static final double SYNTHETIC_INNOVATION = 0.2;
    /** Distinct synthetic steps cycled through, so no operation sees the same input twice in a row. */
    private static final int DATA_STEPS = 4;

    private AutoencoderBenchmark() {
    }

    /**
     * What to measure.
     *
     * @param mu      compact-vector lengths μ
     * @param workers K
     * @param warmup  untimed runs first (at least 1: the first builds the graphs)
     * @param runs    timed runs
     * @param seed    seed of the weights and the data
     */
    public record Settings(List<Integer> mu, int workers, int warmup, int runs, long seed) {

        /** μ = 1K, 10K, 25K; K = 4; 5 warm-up runs; 50 timed runs; seed 42. */
        public static final Settings DEFAULT = new Settings(List.of(1_000, 10_000, 25_000), 4, 5, 50, 42);

        /** Rejects bad counts, naming the field and the value. */
        public Settings {
            mu = List.copyOf(mu);
            if (mu.isEmpty() || mu.stream().anyMatch(m -> m < 1)) {
                throw new IllegalArgumentException("mu must be a non-empty list of positive lengths, got " + mu);
            }
            if (workers < 1) {
                throw new IllegalArgumentException("workers must be >= 1, got " + workers);
            }
            if (warmup < 1) {
                throw new IllegalArgumentException("warmup must be >= 1 (the first run builds the graphs), got "
                        + warmup);
            }
            if (runs < 1) {
                throw new IllegalArgumentException("runs must be >= 1, got " + runs);
            }
        }
    }

    /** The operations, in the order a run calls them. */
    enum Operation {
        RING_ENCODE("encode, one rank (ring)", "0.007"),
        PS_ENCODE("encode + innovation top-10 %, leader (PS)", "0.01"),
        RING_DECODE("decode mean latent (ring, every rank)", "1"),
        PS_DECODE("decode one rank's D_k (PS server, one of K)", "1"),
        RING_TRAIN("train step, K vectors (ring)", "–"),
        PS_TRAIN("train step, K vectors (PS)", "–");

        final String label;
        final String paper;

        Operation(String label, String paper) {
            this.label = label;
            this.paper = paper;
        }
    }

    /**
     * Times of one operation at one μ, in milliseconds.
     *
     * @param first the first call (builds the SameDiff graph)
     * @param mean  mean of the timed runs
     * @param p95   95th percentile of the timed runs
     */
    record Timing(double first, double mean, double p95) {
        static Timing of(double first, double[] millis) {
            double[] sorted = millis.clone();
            Arrays.sort(sorted);
            int p95 = Math.max(0, (int) Math.ceil(0.95 * sorted.length) - 1);
            return new Timing(first, Arrays.stream(sorted).average().orElseThrow(), sorted[p95]);
        }
    }

    /**
     * Sizes at one μ.
     *
     * @param paddedLength      L, μ padded to a multiple of 16
     * @param latentFloats      floats in one latent
     * @param encoderBytes      the encoder's {@link io.lgc4j.lgc.autoencoder.WeightCodec} form
     * @param ringDecoderBytes  the ring decoder's
     * @param psDecoderBytes    one PS decoder's (the server holds K)
     */
    record Sizes(int paddedLength, int latentFloats, int encoderBytes, int ringDecoderBytes, int psDecoderBytes) {
    }

    /** One μ's measurements. */
    record Column(int mu, Sizes sizes, Timing[] timings) {
    }

    /** Measures every μ and prints the tables. */
    public static void run(PrintStream out, Settings settings) {
        AutoencoderSpec spec = AutoencoderSpec.PAPER;
        AeTraining training = AeTraining.DEFAULT;
        out.printf(Locale.ROOT, "Gradient autoencoder latency: AutoencoderSpec.PAPER (encoder 64-128-256-64 stride 2,"
                + " latent 4 channels), %s, K = %d, PS innovation %.0f %%; synthetic correlated vectors (innovation"
                + " %.1f, seed %d); %d timed runs after %d warm-up runs, the six operations called in turn each run;"
                + " one JVM, CPU%n%s%n%n", training.updater().getClass().getSimpleName() + " "
                + training.updater().getLearningRate(0, 0), settings.workers(), 100 * INNOVATION_SHARE,
                SYNTHETIC_INNOVATION, settings.seed(), settings.runs(), settings.warmup(),
                BenchEnvironment.describe(settings.seed()));
        List<Column> columns = new ArrayList<>();
        for (int mu : settings.mu()) {
            columns.add(measure(spec, training, mu, settings));
        }
        print(out, settings, columns);
    }

    static Column measure(AutoencoderSpec spec, AeTraining training, int mu, Settings settings) {
        int ranks = settings.workers();
        RingAutoencoder ring = new RingAutoencoder(spec, mu, ranks, training, settings.seed());
        PsAutoencoder ps = new PsAutoencoder(spec, mu, ranks, INNOVATION_SHARE, training, settings.seed());
        SyntheticGradients source = new SyntheticGradients(mu, ranks, SYNTHETIC_INNOVATION, settings.seed());
        float[][][] data = new float[DATA_STEPS][][];
        float[][] latents = new float[DATA_STEPS][];
        float[][] innovations = new float[DATA_STEPS][];
        float[] scales = new float[DATA_STEPS];
        for (int s = 0; s < DATA_STEPS; s++) {
            data[s] = source.next();
            scales[s] = Scale.rms(data[s][0]);
            innovations[s] = ps.innovation(data[s][ranks - 1]);
        }
        // The decoders read a real latent: the mean of the K ranks' latents (ring) or the leader's (PS, same encoder
        // architecture; its values do not change the cost).
        for (int s = 0; s < DATA_STEPS; s++) {
            float[] mean = new float[ring.latentSize()];
            for (float[] compact : data[s]) {
                float[] z = ring.encode(compact, scales[s]);
                for (int i = 0; i < mean.length; i++) {
                    mean[i] += z[i] / ranks;
                }
            }
            latents[s] = mean;
        }
        List<IntConsumer> operations = List.of(
                s -> {
                    float[] v = data[s][s % ranks];
                    sink(ring.encode(v, Scale.rms(v)));
                },
                s -> {
                    float[] v = data[s][0];
                    sink(ps.encode(v, Scale.rms(v)));
                    sink(ps.innovation(v));
                },
                s -> sink(ring.decode(latents[s], scales[s])),
                s -> sink(ps.decode(ranks - 1, latents[s], innovations[s], scales[s])),
                s -> ring.trainStep(data[s], s % ranks),
                s -> ps.trainStep(data[s], s % ranks));
        int n = operations.size();
        double[] first = new double[n];
        double[][] millis = new double[n][settings.runs()];
        for (int run = 0; run < settings.warmup() + settings.runs(); run++) {
            int s = run % DATA_STEPS;
            for (int op = 0; op < n; op++) {
                long start = System.nanoTime();
                operations.get(op).accept(s);
                double ms = (System.nanoTime() - start) / 1e6;
                if (run == 0) {
                    first[op] = ms;
                } else if (run >= settings.warmup()) {
                    millis[op][run - settings.warmup()] = ms;
                }
            }
        }
        Timing[] timings = new Timing[n];
        for (int op = 0; op < n; op++) {
            timings[op] = Timing.of(first[op], millis[op]);
        }
        Sizes sizes = new Sizes(spec.paddedLength(mu), ring.latentSize(), ring.encoderBytes().length,
                ring.decoderBytes().length, ps.decoderBytes(0).length);
        return new Column(mu, sizes, timings);
    }

    private static void print(PrintStream out, Settings settings, List<Column> columns) {
        StringBuilder header = new StringBuilder("| operation, ms: mean / p95 |");
        StringBuilder rule = new StringBuilder("|---|");
        for (Column c : columns) {
            header.append(String.format(Locale.ROOT, " μ = %,d |", c.mu()));
            rule.append("---:|");
        }
        out.println(header + " paper, GPU (seeds/003) |");
        out.println(rule + "---:|");
        Operation[] ops = Operation.values();
        for (int op = 0; op < ops.length; op++) {
            StringBuilder row = new StringBuilder("| " + ops[op].label + " |");
            for (Column c : columns) {
                row.append(String.format(Locale.ROOT, " %s / %s |", ms(c.timings()[op].mean()),
                        ms(c.timings()[op].p95())));
            }
            out.println(row + " " + ops[op].paper + " |");
        }
        out.println();
        out.println("Paper: ResNet-50 on ImageNet, RTX 2080 Ti, PyTorch; μ not stated (0.1 % of ResNet-50's middle "
                + "layers is about 23K). Train-step times are not given there.");
        out.println();
        header = new StringBuilder("| size |");
        rule = new StringBuilder("|---|");
        for (Column c : columns) {
            header.append(String.format(Locale.ROOT, " μ = %,d |", c.mu()));
            rule.append("---:|");
        }
        out.println(header);
        out.println(rule);
        row(out, "padded length L (floats)", columns, c -> String.format(Locale.ROOT, "%,d", c.sizes().paddedLength()));
        row(out, "latent (floats)", columns, c -> String.format(Locale.ROOT, "%,d", c.sizes().latentFloats()));
        row(out, "μ / latent", columns, c -> String.format(Locale.ROOT, "%.2f",
                (double) c.mu() / c.sizes().latentFloats()));
        row(out, "encoder weights (bytes, WeightCodec)", columns,
                c -> String.format(Locale.ROOT, "%,d", c.sizes().encoderBytes()));
        row(out, "ring decoder weights (bytes)", columns,
                c -> String.format(Locale.ROOT, "%,d", c.sizes().ringDecoderBytes()));
        row(out, "PS decoder weights, one D_k (bytes)", columns,
                c -> String.format(Locale.ROOT, "%,d", c.sizes().psDecoderBytes()));
        row(out, "PS decoders, all K (bytes)", columns,
                c -> String.format(Locale.ROOT, "%,d", (long) settings.workers() * c.sizes().psDecoderBytes()));
        out.println();
        out.println("First call of each operation (builds its SameDiff graph), ms:");
        out.println();
        header = new StringBuilder("| operation |");
        rule = new StringBuilder("|---|");
        for (Column c : columns) {
            header.append(String.format(Locale.ROOT, " μ = %,d |", c.mu()));
            rule.append("---:|");
        }
        out.println(header);
        out.println(rule);
        for (int op = 0; op < ops.length; op++) {
            int o = op;
            row(out, ops[op].label, columns, c -> ms(c.timings()[o].first()));
        }
    }

    private static void row(PrintStream out, String label, List<Column> columns, Function<Column, String> cell) {
        StringBuilder row = new StringBuilder("| " + label + " |");
        for (Column c : columns) {
            row.append(' ').append(cell.apply(c)).append(" |");
        }
        out.println(row);
    }

    private static String ms(double millis) {
        if (millis >= 100) {
            return String.format(Locale.ROOT, "%.0f", millis);
        }
        if (millis >= 10) {
            return String.format(Locale.ROOT, "%.1f", millis);
        }
        return String.format(Locale.ROOT, "%.2f", millis);
    }

    /** Keeps the JIT from dropping a result. */
    private static volatile float sunk;

    private static void sink(float[] v) {
        sunk = v[v.length - 1];
    }
}

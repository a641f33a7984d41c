package io.lgc4j.cli;

import io.lgc4j.bench.BenchEnvironment;
import io.lgc4j.bench.CodecBenchmark;
import io.lgc4j.bench.CompressorBenchmark;
import io.lgc4j.bench.ForwardBackwardBenchmark;
import io.lgc4j.bench.TopKBenchmark;
import io.lgc4j.bench.TopKRecorder;
import io.lgc4j.core.compute.Nd4jBuild;
import io.lgc4j.core.metrics.Phase;
import io.lgc4j.core.metrics.StepMetrics;
import io.lgc4j.core.train.DistributedTrainer;
import io.lgc4j.core.train.Topology;
import io.lgc4j.core.train.TrainingListener;
import io.lgc4j.data.FashionMnist;
import io.lgc4j.data.LabeledImages;
import io.lgc4j.data.PixelPreprocessing;
import io.lgc4j.runner.Nd4jEnvironment;
import io.lgc4j.zoo.ModelZoo;
import io.lgc4j.ps.topology.ParameterServerTopology;
import io.lgc4j.ring.topology.RingTopology;
import org.nd4j.linalg.dataset.DataSet;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code lgc bench}: the benchmarks, each a subcommand with its own options and {@code --help}.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Benchmarks; each subcommand has its own --help.",
        subcommands = {BenchCommand.Dense.class, BenchCommand.TopK.class, BenchCommand.Compressors.class,
            BenchCommand.Codec.class, AutoencoderBenchCommand.class, AeConvergenceCommand.class,
            RateDistortionCommand.class, TransportBenchCommand.class, CheckpointBenchCommand.class})
final class BenchCommand implements Callable<Integer> {

    @Override
    public Integer call() {
        System.err.println("lgc: bench needs WHAT: dense, topk, compressors, codec, autoencoder, ae-convergence,"
                + " rate-distortion, transport or checkpoints (lgc bench WHAT --help)");
        return 2;
    }

    /**
     * {@code lgc bench dense}: per-step time of dense data-parallel training of the small CNN, split into compute,
     * encode, communicate, decode and apply, for each K and topology; then every zoo model's forward+backward at
     * batch 32 on each compute path and thread count beside PyTorch's, measured in the same run
     * ({@link ForwardBackwardBenchmark}).
     */
    @Command(name = "dense", mixinStandardHelpOptions = true,
            description = "Where a dense step's time goes (compute, encode, communicate, decode, apply) for each K and"
                    + " topology; then every zoo model's forward+backward at batch 32 on each compute path (oneDNN or"
                    + " DL4J's own, cache mode) and thread count beside PyTorch's, measured in the same run.")
    static final class Dense implements Callable<Integer> {

        @Option(names = "--workers", split = ",", defaultValue = "1,2,4", description = "values of K (default 1,2,4)")
        private List<Integer> workers;

        @Option(names = "--topologies", split = ",", defaultValue = "ring,ps", description = "ring, ps or both")
        private List<String> topologies;

        @Option(names = "--steps", defaultValue = "30", description = "measured steps per configuration")
        private int steps;

        @Option(names = "--warmup", defaultValue = "5", description = "steps run before measuring")
        private int warmup;

        @Option(names = "--data", defaultValue = "/usr/share/datasets/fashion-mnist", description = "Fashion-MNIST dir")
        private Path data;

        @Option(names = "--compute-peer", defaultValue = "scripts/torch_compute_peer.py",
                description = "PyTorch's forward+backward of the zoo models; skipped when absent or when torch is"
                        + " not installed")
        private Path computePeer;

        @Option(names = "--threads", split = ",", defaultValue = "1,2",
                description = "OpenMP (and PyTorch) thread counts of the forward+backward table (default 1,2)")
        private List<Integer> threads;

        @Option(names = "--rounds", defaultValue = "3",
                description = "rounds per model, compute path and repeat in the forward+backward table (default 3)")
        private int rounds;

        @Option(names = "--repeats", defaultValue = "3",
                description = "times DL4J and PyTorch take turns in the forward+backward table (default 3)")
        private int repeats;

        @Option(names = "--builds", split = ",", defaultValue = "auto",
                description = "ND4J builds of the forward+backward table, each in JVMs of its own (LGC_ND4J_BUILD:"
                        + " auto, onednn-avx2, onednn-avx512, ...; default auto, the one each process chooses)")
        private List<String> builds;

        @Option(names = "--default-path-only",
                description = "the forward+backward table measures LGC4J's default path only (oneDNN, HOST)")
        private boolean defaultPathOnly;

        @Override
        public Integer call() throws Exception {
            Nd4jEnvironment.configure();
            int maxK = workers.stream().mapToInt(Integer::intValue).max().orElse(1);
            int batch = 32;
            LabeledImages train = FashionMnist.load(data, FashionMnist.Split.TRAIN, maxK * batch * (steps + warmup),
                    PixelPreprocessing.STANDARDIZE);
            DataSet all = train.toDataSet();
            System.out.println(BenchEnvironment.describe(42));
            System.out.printf(Locale.ROOT, "dense step of the small CNN (%,d params), batch %d per worker, mean of %d"
                    + " steps after %d warm-up; ND4J %s, %d cores%n", ModelZoo.SMALL_CNN_PARAMS, batch, steps, warmup,
                    Nd4jBuild.current().loaded(), Runtime.getRuntime().availableProcessors());
            System.out.println("| topology | K | compute ms | encode ms | communicate ms | decode ms | apply ms | step ms"
                    + " | comm machinery / compute |");
            System.out.println("|---|---|---|---|---|---|---|---|---|");
            for (String name : topologies) {
                for (int k : workers) {
                    Topology topology = switch (name) {
                        case "ring" -> new RingTopology();
                        case "ps" -> new ParameterServerTopology();
                        default -> throw new IllegalArgumentException("unknown topology '" + name + "'; known: ring, ps");
                    };
                    List<StepMetrics> measured = new ArrayList<>();
                    TrainingListener keep = m -> {
                        if (m.step() >= warmup) {
                            measured.add(m);
                        }
                    };
                    DistributedTrainer.builder().model(ModelZoo.smallCnn(42, ModelZoo.defaultUpdater())).data(all)
                            .workers(k).batchSizePerWorker(batch).topology(topology).maxSteps(steps + warmup)
                            .listener(keep).build().fit(1);
                    double compute = mean(measured, Phase.COMPUTE);
                    double encode = mean(measured, Phase.ENCODE);
                    double comm = mean(measured, Phase.COMMUNICATE);
                    double decode = mean(measured, Phase.DECODE);
                    double apply = mean(measured, Phase.APPLY);
                    double wall = measured.stream().mapToLong(StepMetrics::wallNanos).average().orElse(0) / 1e6;
                    System.out.printf(Locale.ROOT, "| %s | %d | %.1f | %.2f | %.2f | %.2f | %.1f | %.1f | %.1f%% |%n",
                            name, k, compute, encode, comm, decode, apply, wall,
                            100 * (encode + comm + decode) / compute);
                }
            }
            ForwardBackwardBenchmark.run(System.out, threads, builds, defaultPathOnly, repeats,
                    rounds, steps, warmup, computePeer);
            return 0;
    
        }

        private static double mean(List<StepMetrics> steps, Phase phase) {
            return steps.stream().mapToLong(m -> m.nanos(phase)).average().orElse(0) / 1e6;
        }
    }

    @Command(name = "topk", mixinStandardHelpOptions = true,
            description = "Exact top-k against one pass over the data (the floor) and torch.topk, n = 1M and 25M.")
    static final class TopK implements Callable<Integer> {

        @Option(names = "--steps", defaultValue = "10", description = "timed repetitions per size, at most 10"
                + " (default ${DEFAULT-VALUE})")
        private int steps;

        @Override
        public Integer call() {
            TopKBenchmark.run(System.out, steps > 0 ? Math.min(steps, 10) : 10);
            return 0;
        }
    }

    @Command(name = "compressors", mixinStandardHelpOptions = true,
            description = "Per-rank coding time of Sparse GD, PowerSGD and the autoencoder on the small CNN, and"
                    + " PyTorch's PowerSGD.")
    static final class Compressors implements Callable<Integer> {

        @Option(names = "--steps", defaultValue = "30", description = "measured steps (default ${DEFAULT-VALUE})")
        private int steps;

        @Option(names = "--warmup", defaultValue = "5", description = "steps run before measuring"
                + " (default ${DEFAULT-VALUE})")
        private int warmup;

        @Override
        public Integer call() throws Exception {
            Nd4jEnvironment.configure();
            CompressorBenchmark.run(System.out, warmup, steps, "/usr/bin/python3");
            return 0;
        }
    }

    @Command(name = "codec", mixinStandardHelpOptions = true,
            description = "Bits per index of every index codec against the entropy bound log2 C(n,k)/k, on synthetic"
                    + " index sets and on real top-k sets of the small CNN.")
    static final class Codec implements Callable<Integer> {

        @Option(names = "--real-steps", defaultValue = "100",
                description = "also train this many steps and code the real top-k sets (0: skip; default"
                        + " ${DEFAULT-VALUE})")
        private int realSteps;

        @Option(names = "--data", defaultValue = "/usr/share/datasets/fashion-mnist", description = "Fashion-MNIST dir")
        private Path data;

        @Override
        public Integer call() throws Exception {
            CodecBenchmark.run(System.out);
            if (realSteps > 0) {
                Nd4jEnvironment.configure();
                LabeledImages train = FashionMnist.load(data, FashionMnist.Split.TRAIN, realSteps * 128,
                        PixelPreprocessing.STANDARDIZE);
                TopKRecorder.Recording r = TopKRecorder.record(train, realSteps, 128, 0.001, 42);
                System.out.printf(Locale.ROOT, "%nReal top-k sets: block %s of the small CNN, Sparse GD's"
                        + " selection over %d steps of Fashion-MNIST training at batch 128%n", r.block(), realSteps);
                CodecBenchmark.run(System.out, r.indexSets(), r.length());
            }
            return 0;
        }
    }
}

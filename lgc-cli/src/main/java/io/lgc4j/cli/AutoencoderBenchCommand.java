package io.lgc4j.cli;

import io.lgc4j.bench.AutoencoderBenchmark;
import io.lgc4j.runner.Nd4jEnvironment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code lgc bench autoencoder}: encode, decode and train-step latency of both autoencoders, latent size and weight
 * bytes; see {@link AutoencoderBenchmark}.
 */
@Command(name = "autoencoder", mixinStandardHelpOptions = true,
        description = "Latency of the gradient autoencoders (encode, ring and PS decode, ring and PS train step) for"
                + " several μ, beside the paper's GPU figures; latent size and weight bytes.")
final class AutoencoderBenchCommand implements Callable<Integer> {

    @Option(names = "--mu", split = ",", defaultValue = "1000,10000,25000",
            description = "compact-vector lengths μ (default ${DEFAULT-VALUE})")
    private List<Integer> mus;

    @Option(names = "--workers", defaultValue = "4", description = "K, ranks (default ${DEFAULT-VALUE})")
    private int workers;

    @Option(names = "--runs", defaultValue = "50", description = "timed runs per μ (default ${DEFAULT-VALUE})")
    private int runs;

    @Option(names = "--warmup", defaultValue = "5", description = "untimed runs first (default ${DEFAULT-VALUE})")
    private int warmup;

    @Option(names = "--seed", defaultValue = "42", description = "weights and data (default ${DEFAULT-VALUE})")
    private long seed;

    @Option(names = "--onednn", defaultValue = "true", arity = "1",
            description = "whether ND4J's native ops (SameDiff's conv2d and deconv2d among them) may use oneDNN;"
                    + " false measures them without it (default ${DEFAULT-VALUE})")
    private boolean oneDnn;

    @Override
    public Integer call() throws IOException {
        AutoencoderBenchmark.Settings settings;
        try {
            settings = new AutoencoderBenchmark.Settings(mus, workers, warmup, runs, seed);
        } catch (IllegalArgumentException e) {
            System.err.println("lgc: bad option: " + e.getMessage());
            return 2;
        }
        Nd4jEnvironment.configure();
        Nd4jEnvironment.nativeOneDnn(oneDnn);
        System.out.println("ND4J native oneDNN: " + (oneDnn ? "on" : "off"));
        return TablesOnStdout.run(tables -> {
            AutoencoderBenchmark.run(tables, settings);
            return 0;
        });
    }
}

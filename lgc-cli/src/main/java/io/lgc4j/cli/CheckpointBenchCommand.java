package io.lgc4j.cli;

import io.lgc4j.bench.CheckpointBenchmark;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code lgc bench checkpoints}: bytes per part, write times, verify and restore times of the checkpoints a run
 * takes, for the small CNN and the small ResNet with dense PS and ring, DGC, LGC-PS and LGC-RAR; see
 * {@link CheckpointBenchmark}. Tables go to standard output, progress to standard error.
 */
@Command(name = "checkpoints", mixinStandardHelpOptions = true,
        description = "Checkpoint cost in process at K = 4: bytes per part (rank, server, manifest), the slowest"
                + " part's and the manifest's write time, verify and restore time of a resume from every checkpoint,"
                + " for each model and method.")
final class CheckpointBenchCommand implements Callable<Integer> {

    @Option(names = "--models", defaultValue = "small-cnn,small-resnet", description = "default ${DEFAULT-VALUE}")
    private String models;

    @Option(names = "--methods", defaultValue = "dense-ps,dense-ring,dgc-ps,lgc-ps,lgc-rar",
            description = "default ${DEFAULT-VALUE}")
    private String methods;

    @Option(names = "--steps", defaultValue = "24", description = "steps per run (default ${DEFAULT-VALUE})")
    private int steps;

    @Option(names = "--every", defaultValue = "4",
            description = "training.checkpointEverySteps (default ${DEFAULT-VALUE})")
    private int every;

    @Option(names = "--full", defaultValue = "6", description = "FULL steps of DGC and LGC (default ${DEFAULT-VALUE})")
    private int full;

    @Option(names = "--ae-training", defaultValue = "6",
            description = "TOP_K steps of LGC, training the autoencoder (default ${DEFAULT-VALUE})")
    private int aeTraining;

    @Option(names = "--data", defaultValue = "/usr/share/datasets/fashion-mnist", description = "Fashion-MNIST dir")
    private Path data;

    @Option(names = "--work", defaultValue = "${java.io.tmpdir}/lgc-bench-checkpoints",
            description = "scratch directory for the runs (default ${DEFAULT-VALUE})")
    private Path work;

    @Override
    public Integer call() throws Exception {
        CheckpointBenchmark.Settings settings;
        try {
            settings = new CheckpointBenchmark.Settings(CheckpointBenchmark.split(models),
                    CheckpointBenchmark.split(methods), steps, every, full, aeTraining, data, work);
        } catch (IllegalArgumentException e) {
            System.err.println("lgc: bad option: " + e.getMessage());
            return 2;
        }
        CheckpointBenchmark.run(System.out, settings);
        return 0;
    }
}

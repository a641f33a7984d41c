package io.lgc4j.cli;

import io.lgc4j.bench.AeConvergence;
import io.lgc4j.bench.CompactVectorFormatException;
import io.lgc4j.runner.Nd4jEnvironment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code lgc bench ae-convergence}: reconstruction loss of the PS and ring autoencoders over online training, with
 * and without the similarity loss, on synthetic and recorded compact vectors; see {@link AeConvergence}.
 */
@Command(name = "ae-convergence", mixinStandardHelpOptions = true,
        description = "Reconstruction loss over online autoencoder training for λ2 = 0 and 0.5, PS and ring, on"
                + " synthetic correlated vectors and optionally a recording (lgc record compact-vectors):"
                + " the analog of the paper's Fig. 14.")
final class AeConvergenceCommand implements Callable<Integer> {

    @Option(names = "--steps", defaultValue = "300", description = "training steps (default ${DEFAULT-VALUE})")
    private int steps;

    @Option(names = "--mu", defaultValue = "1000",
            description = "length of the synthetic vectors (default ${DEFAULT-VALUE})")
    private int mu;

    @Option(names = "--workers", defaultValue = "4",
            description = "K of the synthetic vectors (default ${DEFAULT-VALUE})")
    private int workers;

    @Option(names = "--innovation", defaultValue = "0.2",
            description = "per-rank part of the synthetic vectors (default ${DEFAULT-VALUE})")
    private double innovation;

    @Option(names = "--recording", description = "also train on this recording (lgc record compact-vectors)")
    private Path recording;

    @Option(names = "--optimizer", defaultValue = "adam",
            description = "sgd (the paper's) or adam (the default); valid: ${COMPLETION-CANDIDATES}",
            converter = OptimizerConverter.class, completionCandidates = OptimizerConverter.Names.class)
    private AeConvergence.Optimizer optimizer;

    @Option(names = "--lr", defaultValue = "0.001", description = "learning rate (default ${DEFAULT-VALUE})")
    private double lr;

    @Option(names = "--seed", defaultValue = "42", description = "autoencoders, data, draws (default ${DEFAULT-VALUE})")
    private long seed;

    @Option(names = "--every", defaultValue = "25", description = "steps between table rows (default ${DEFAULT-VALUE})")
    private int every;

    @Option(names = "--window", defaultValue = "5",
            description = "a row is the mean over ± this many steps (default ${DEFAULT-VALUE})")
    private int window;

    @Option(names = "--csv", description = "write every step's losses here")
    private Path csv;

    @Override
    public Integer call() {
        AeConvergence.Settings settings;
        try {
            settings = new AeConvergence.Settings(mu, workers, innovation, steps, optimizer, lr, seed, every, window);
        } catch (IllegalArgumentException e) {
            System.err.println("lgc: bad option: " + e.getMessage());
            return 2;
        }
        if (recording != null && CompactVectorsCommand.reportIfMissing(recording)) {
            return 2;
        }
        Nd4jEnvironment.configure();
        try {
            return TablesOnStdout.run(tables -> {
                AeConvergence.run(tables, settings, recording, csv);
                return 0;
            });
        } catch (CompactVectorFormatException | NoSuchFileException e) {
            System.err.println("lgc: " + e.getMessage());
            return 2;
        } catch (IOException e) {
            System.err.println("lgc: " + e);
            return 1;
        }
    }

    /** Reads {@code sgd} or {@code adam}, in any case; anything else is a usage error naming both. */
    static final class OptimizerConverter implements picocli.CommandLine.ITypeConverter<AeConvergence.Optimizer> {
        @Override
        public AeConvergence.Optimizer convert(String value) {
            for (AeConvergence.Optimizer o : AeConvergence.Optimizer.values()) {
                if (o.name().equalsIgnoreCase(value)) {
                    return o;
                }
            }
            throw new picocli.CommandLine.TypeConversionException("expected sgd or adam, found '" + value + "'");
        }

        /** The accepted names. */
        static final class Names implements Iterable<String> {
            @Override
            public Iterator<String> iterator() {
                return List.of("sgd", "adam").iterator();
            }
        }
    }
}

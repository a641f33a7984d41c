package io.lgc4j.cli;

import io.lgc4j.bench.AeConvergence;
import io.lgc4j.bench.CompactVectorFormatException;
import io.lgc4j.bench.RateDistortion;
import io.lgc4j.lgc.autoencoder.AeTraining;
import io.lgc4j.runner.BuildInfo;
import io.lgc4j.runner.Nd4jEnvironment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code lgc bench rate-distortion}: the learned codes against codes with nothing learned at the same floats per
 * rank, on a recording of compact vectors; see {@link RateDistortion}.
 */
@Command(name = "rate-distortion", mixinStandardHelpOptions = true,
        description = "How far the mean each code delivers is from the ranks' true mean, for the floats it sends:"
                + " the LGC autoencoders (float32 and 8-bit latents) against PCA, top-f on the leader's support and"
                + " random-f, fitted on the first steps of a recording (lgc record compact-vectors) and scored on"
                + " the rest.")
final class RateDistortionCommand implements Callable<Integer> {

    @Option(names = "--recording", required = true, split = ",",
            description = "one or more recordings (lgc record compact-vectors), e.g. of several seeds")
    private List<Path> recordings;

    @Option(names = "--train-steps", defaultValue = "100",
            description = "recorded steps the codes are fitted on, as the TOP_K stage (default ${DEFAULT-VALUE})")
    private int trainSteps;

    @Option(names = "--channels", split = ",", defaultValue = "1,2,4,8",
            description = "latent channels of the autoencoders (the paper: 4; default ${DEFAULT-VALUE})")
    private List<Integer> channels;

    @Option(names = "--seed", defaultValue = "1", description = "autoencoders, draws (default ${DEFAULT-VALUE})")
    private long seed;

    @Option(names = "--output-dir", description = "also write table.md and table.csv here")
    private Path outputDir;

    @Override
    public Integer call() {
        RateDistortion.Settings settings;
        try {
            settings = new RateDistortion.Settings(trainSteps, channels, AeTraining.DEFAULT, seed);
        } catch (IllegalArgumentException e) {
            System.err.println("lgc: bad option: " + e.getMessage());
            return 2;
        }
        for (Path recording : recordings) {
            if (CompactVectorsCommand.reportIfMissing(recording)) {
                return 2;
            }
        }
        Nd4jEnvironment.configure();
        try {
            return TablesOnStdout.run(tables -> {
                long start = System.nanoTime();
                List<List<RateDistortion.Row>> rows = new ArrayList<>();
                List<String> descriptions = new ArrayList<>();
                for (Path recording : recordings) {
                    AeConvergence.Source source = AeConvergence.recorded(recording, Integer.MAX_VALUE);
                    descriptions.add(source.description());
                    try {
                        rows.add(RateDistortion.run(source, settings, System.err));
                    } catch (IllegalArgumentException e) {
                        System.err.println("lgc: " + recording + ": " + e.getMessage());
                        return 2;
                    }
                }
                ByteArrayOutputStream md = new ByteArrayOutputStream();
                PrintStream page = new PrintStream(md, true, StandardCharsets.UTF_8);
                page.printf(Locale.ROOT, "Made by `lgc bench rate-distortion --recording %s --train-steps %d "
                        + "--channels %s --seed %d` (lgc %s, %s, %.0f s). Each recording's first %d steps fit the "
                        + "codes, the rest are scored. Sources: %s.%n%n",
                        String.join(",", recordings.stream().map(p -> p.getFileName().toString()).toList()),
                        trainSteps, String.join(",", channels.stream().map(String::valueOf).toList()), seed,
                        BuildInfo.version(), Instant.now(), (System.nanoTime() - start) / 1e9, trainSteps,
                        String.join("; ", descriptions));
                try {
                    RateDistortion.print(page, rows);
                } catch (IllegalArgumentException e) {
                    System.err.println("lgc: " + e.getMessage());
                    return 2;
                }
                tables.print(md.toString(StandardCharsets.UTF_8));
                if (outputDir != null) {
                    Files.createDirectories(outputDir);
                    Files.writeString(outputDir.resolve("table.md"), md.toString(StandardCharsets.UTF_8));
                    Files.writeString(outputDir.resolve("table.csv"), RateDistortion.csv(
                            recordings.stream().map(p -> p.getFileName().toString()).toList(), rows));
                }
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
}

package io.lgc4j.experiments.cli;

import io.lgc4j.runner.config.ExperimentConfig;
import picocli.CommandLine.Option;

import java.util.ArrayList;
import java.util.List;

/**
 * The flags of every command that trains ({@code lgc run}, {@code lgc launch}, {@code lgc worker}), declared once so
 * that they read and behave the same on each: a picocli mixin.
 */
final class TrainingOptions {

    @Option(names = "--max-steps", paramLabel = "N", description = "stop after N steps (overrides training.maxSteps)")
    Integer maxSteps;

    @Option(names = "--output-dir", paramLabel = "DIR",
            description = "where result directories go (overrides run.outputDir); on several processes, where rank 0"
                    + " writes them")
    String outputDir;

    @Option(names = "--no-progress",
            description = "plain progress lines instead of a live bar (output to a pipe or a file, and a launched"
                    + " worker's, always gets plain lines)")
    boolean noProgress;

    /** {@code cfg} with these flags' overrides. */
    ExperimentConfig apply(ExperimentConfig cfg) {
        ExperimentConfig out = cfg;
        if (maxSteps != null) {
            out = out.withTraining(out.training().withMaxSteps(maxSteps));
        }
        if (outputDir != null) {
            out = out.withRun(out.run().withOutputDir(outputDir));
        }
        return out;
    }

    /** Rank 0's progress: a live bar on a terminal unless {@code --no-progress}, plain lines otherwise. */
    ProgressListener progress() {
        return new ProgressListener(System.out, !noProgress && System.console() != null);
    }

    /** The same flags for a process this one starts ({@code lgc launch} → {@code lgc worker}). */
    List<String> forward() {
        List<String> args = new ArrayList<>();
        if (maxSteps != null) {
            args.addAll(List.of("--max-steps", String.valueOf(maxSteps)));
        }
        if (outputDir != null) {
            args.addAll(List.of("--output-dir", outputDir));
        }
        if (noProgress) {
            args.add("--no-progress");
        }
        return args;
    }
}

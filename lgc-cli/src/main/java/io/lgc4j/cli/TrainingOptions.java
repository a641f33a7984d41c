package io.lgc4j.cli;

import io.lgc4j.core.metrics.StepRange;
import io.lgc4j.runner.config.ConfigException;
import io.lgc4j.runner.config.ExperimentConfig;
import io.lgc4j.runner.config.TraceSection;
import picocli.CommandLine.Option;

import java.nio.file.Path;
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

    @Option(names = "--trace", paramLabel = "FILE",
            description = "write a Chrome/Perfetto trace of the run to FILE (overrides training.trace.file; each"
                    + " endpoint's own events go to trace/ beside FILE); changes no result")
    String trace;

    @Option(names = "--trace-steps", paramLabel = "a..b",
            description = "record only steps a..b (or a.., or one step) in the trace (overrides training.trace.steps)")
    String traceSteps;

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
        if (trace != null || traceSteps != null) {
            TraceSection given = out.training().trace();
            if (trace == null && !given.on()) {
                throw ConfigException.forKey("training.trace.file", "is not set, so --trace-steps " + traceSteps
                        + " has no trace to bound: add --trace FILE");
            }
            String steps = given.steps();
            if (traceSteps != null) {
                try {
                    steps = StepRange.parse(traceSteps, "").toString();
                } catch (IllegalArgumentException e) {
                    throw ConfigException.forSource("--trace-steps", e.getMessage().strip(), e);
                }
            }
            // absolute, so that every process of a job writes beside the same file
            String file = trace != null ? Path.of(trace).toAbsolutePath().toString() : given.file();
            out = out.withTraining(out.training().withTrace(new TraceSection(file, steps)));
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
        if (trace != null) {
            args.addAll(List.of("--trace", Path.of(trace).toAbsolutePath().toString()));
        }
        if (traceSteps != null) {
            args.addAll(List.of("--trace-steps", traceSteps));
        }
        if (noProgress) {
            args.add("--no-progress");
        }
        return args;
    }
}

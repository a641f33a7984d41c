package io.lgc4j.core.metrics;

import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/**
 * Where a run's trace goes: every endpoint streams {@code directory/e<endpoint>.json} ({@link TraceWriter}), and the
 * merged trace of every endpoint is {@code file} ({@link TraceMerge}), to open in Perfetto or
 * {@code chrome://tracing}. Tracing changes no bit of a run: it only reads clocks, and on a cluster adds control-plane
 * reports (the clock probes), which no training byte count includes.
 *
 * <pre>{@code
 * new TraceSettings(runDir.resolve("trace.json"), runDir.resolve("trace"), StepRange.parse("0..49", "steps"))
 * }</pre>
 *
 * @param file      the merged trace
 * @param directory the endpoints' own files and {@code clock.json}
 * @param steps     the steps recorded
 */
public record TraceSettings(Path file, Path directory, StepRange steps) {
    /** The name of rank 0's clock offsets in {@link #directory}. */
    public static final String CLOCK_FILE = "clock.json";
    /** Where a launcher tells a program the merged trace's file ({@code lgc launch --trace FILE -- …}). */
    public static final String ENV_FILE = "LGC_TRACE_FILE";
    /** Where a launcher tells a program the steps to record ({@code --trace-steps a..b}). */
    public static final String ENV_STEPS = "LGC_TRACE_STEPS";

    public TraceSettings {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(directory, "directory");
        Objects.requireNonNull(steps, "steps");
    }

    /** Every step, the endpoints' files in {@code trace/} beside {@code file}. */
    public static TraceSettings of(Path file) {
        Path abs = file.toAbsolutePath();
        return new TraceSettings(file, abs.resolveSibling("trace"), StepRange.ALL);
    }

    /**
     * The trace a launcher asked for in {@code variables} ({@link #ENV_FILE}, {@link #ENV_STEPS}), or null when it
     * asked for none.
     *
     * @throws IllegalArgumentException naming {@link #ENV_STEPS} when its steps are not a range
     */
    public static TraceSettings fromEnvironment(Map<String, String> variables) {
        String file = variables.get(ENV_FILE);
        if (file == null || file.isBlank()) {
            return null;
        }
        String steps = variables.get(ENV_STEPS);
        Path abs = Path.of(file).toAbsolutePath();
        return new TraceSettings(abs, abs.resolveSibling("trace"), steps == null || steps.isBlank() ? StepRange.ALL
                : StepRange.parse(steps, ENV_STEPS));
    }

    /** Endpoint {@code endpoint}'s own file. */
    public Path endpointFile(int endpoint) {
        return directory.resolve("e" + endpoint + ".json");
    }
}

package io.lgc4j.runner.config;

import io.lgc4j.core.metrics.StepRange;
import io.lgc4j.core.settings.SettingsException;

/**
 * The {@code training.trace} section: a Chrome/Perfetto trace of the run ({@code DistributedTrainer.Builder#trace}),
 * the same as {@code lgc run --trace FILE --trace-steps a..b}. It changes no bit of the run, and a resume ignores it.
 *
 * <pre>{@code
 * training:
 *   trace:
 *     file: trace.json   # relative to the run's directory; "" = no trace
 *     steps: "100..119"  # first..last, first.. or one step
 * }</pre>
 *
 * @param file  the merged trace, relative to the run's directory unless absolute; empty for none
 * @param steps the steps recorded, as {@link StepRange#parse} reads them
 */
public record TraceSection(String file, String steps) {
    /** No trace. */
    public static final TraceSection OFF = new TraceSection("", StepRange.ALL.toString());

    /** @throws SettingsException naming {@code steps} when it is not a step range */
    public TraceSection {
        if (file == null) {
            throw new SettingsException("file", "must be a path or \"\" (no trace), found null");
        }
        if (steps == null) {
            throw new SettingsException("steps", "must be a step range such as 0..99, found null");
        }
        try {
            StepRange.parse(steps, "");
        } catch (IllegalArgumentException e) {
            // the message without its leading name: "'5..2': the last step 2 is before the first 5; expected ..."
            throw new SettingsException("steps", e.getMessage().strip());
        }
    }

    /** Whether a trace is asked for. */
    public boolean on() {
        return !file.isBlank();
    }

    /** The steps recorded. */
    public StepRange range() {
        return StepRange.parse(steps, "training.trace.steps");
    }
}

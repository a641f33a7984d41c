package io.lgc4j.runner;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Training failed after the run started (a non-finite gradient, a rank's exception). The run's directory is kept
 * with its {@code config.yaml}, {@code provenance.json} and the {@code metrics.csv} of the steps made, useful to see
 * where it went wrong; it has no {@code summary.json}, so the table commands treat it as unfinished and rerun it.
 * The cause is the trainer's exception.
 */
public final class RunFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient Path directory;

    /**
     * @param directory the run's directory, kept
     * @param cause     why training failed
     */
    public RunFailedException(Path directory, RuntimeException cause) {
        super(cause.getMessage() + "; the partial results (config.yaml, provenance.json, metrics.csv) are in "
                + Objects.requireNonNull(directory, "directory"), cause);
        this.directory = directory;
    }

    /** @return the run's directory, kept with the files written before the failure */
    public Path directory() {
        return directory;
    }
}

package io.lgc4j.runner;

import java.io.IOException;

/**
 * A run's inputs failed a check made before anything was written: the output directory cannot be created (a file is
 * in the way, or it is not writable), or the trainer refused the settings (a data set smaller than one global
 * batch). The message names what is wrong and what was expected; the command line reports it with exit status 2.
 * No result directory was created.
 */
public final class RunInputException extends IOException {
    private static final long serialVersionUID = 1L;

    /** @param message what is wrong and what was expected */
    public RunInputException(String message) {
        super(message);
    }

    /**
     * @param message what is wrong and what was expected
     * @param cause   the check that failed
     */
    public RunInputException(String message, Throwable cause) {
        super(message, cause);
    }
}

package io.lgc4j.experiments.tables;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;

/** Placeholder until the analysis lands (not committed). */
public final class MutualInformationFigure {
    private MutualInformationFigure() {
    }

    public static void write(Suite suite, Suite.Profile profile, String commandLine, Path out, PrintStream log)
            throws IOException {
        throw new UnsupportedOperationException("not yet");
    }
}

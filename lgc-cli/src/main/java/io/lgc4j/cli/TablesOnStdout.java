package io.lgc4j.cli;

import java.io.IOException;
import java.io.PrintStream;

/**
 * Keeps standard output for a command's tables. SameDiff (ND4J 1.0.0-M2) prints one line per differentiated op on
 * {@code System.out} whenever it builds a gradient graph, which would split a table; while the work runs,
 * {@code System.out} points at standard error and the tables go to the real standard output.
 */
final class TablesOnStdout {

    /** A command's work, printing its tables to {@code tables}. */
    @FunctionalInterface
    interface Work {
        int run(PrintStream tables) throws IOException;
    }

    private TablesOnStdout() {
    }

    /** Runs {@code work} with {@code System.out} diverted to standard error; returns its exit status. */
    static int run(Work work) throws IOException {
        PrintStream tables = System.out;
        System.setOut(System.err);
        try {
            return work.run(tables);
        } finally {
            tables.flush();
            System.setOut(tables);
        }
    }
}

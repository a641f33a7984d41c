package io.lgc4j.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code lgc record ...}: recordings of training data for benchmarks and tables ({@code compact-vectors}). */
@Command(name = "record", mixinStandardHelpOptions = true,
        description = "Record data from real training for benchmarks and tables.",
        subcommands = {CompactVectorsCommand.class})
final class RecordCommand implements Runnable {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}

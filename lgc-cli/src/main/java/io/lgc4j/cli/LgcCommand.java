package io.lgc4j.cli;

import io.lgc4j.runner.BuildInfo;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code lgc} command line: {@code lgc run <config.yaml>} trains an experiment, {@code lgc table compression}
 * and {@code lgc figure ...} reproduce the paper's tables and figures, {@code lgc bench dense}
 * measures where a dense step's time goes, {@code lgc record compact-vectors} records what the autoencoder trains on.
 */
@Command(name = "lgc", mixinStandardHelpOptions = true, versionProvider = LgcCommand.Version.class,
        description = "Data-parallel training of DL4J models with learned gradient compression.",
        subcommands = {RunCommand.class, LaunchCommand.class, WorkerCommand.class, ConfigCommand.class,
            KeysCommand.class, TableCommand.class, FigureCommand.class, BenchCommand.class, RecordCommand.class,
            TraceCommand.class, EvidenceCommand.class, AdviseCommand.class, DataCommand.class,
            CommandLine.HelpCommand.class})
public final class LgcCommand implements Runnable {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    /** Entry point; exits with the command's status (0 ok, 1 failed, 2 bad usage or bad config). */
    public static void main(String[] args) {
        System.exit(execute(args));
    }

    /** Runs the command line and returns its exit status (for tests). */
    public static int execute(String... args) {
        return new CommandLine(new LgcCommand()).execute(args);
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** Reports the build's versions. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"lgc " + BuildInfo.version() + " (DL4J "
                    + BuildInfo.dl4jVersion() + ", ND4J "
                    + BuildInfo.nd4jClassifiers() + ")"};
        }
    }
}

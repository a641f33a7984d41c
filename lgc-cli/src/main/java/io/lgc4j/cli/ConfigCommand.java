package io.lgc4j.cli;

import io.lgc4j.runner.config.ConfigException;
import io.lgc4j.runner.config.ConfigLoader;
import io.lgc4j.runner.config.ConfigSchema;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code lgc config keys}: every key a config may hold, with its default and its allowed values, read from the
 * definitions the loader binds and from the registry (a third-party compressor's keys appear too);
 * {@code lgc config resolve FILE}: the file with every default written out, as the run's {@code config.yaml} will
 * record it.
 */
@Command(name = "config", mixinStandardHelpOptions = true,
        description = "The configuration's keys, or a config file resolved (every default written out).",
        subcommands = {ConfigCommand.Keys.class, ConfigCommand.Resolve.class})
final class ConfigCommand implements Runnable {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** {@code lgc config keys}. */
    @Command(name = "keys", mixinStandardHelpOptions = true,
            description = {"Every key a config may hold: `path = default   one of [...]`; a key only some",
                "compressor types read says which. Keys under `compressor` read by one type only follow the rest."})
    static final class Keys implements Callable<Integer> {

        @Option(names = "--compressor", paramLabel = "TYPE",
                description = "list only the shared keys and those compressor type TYPE reads")
        private String compressor;

        @Override
        public Integer call() {
            for (ConfigSchema.Key key : ConfigSchema.installed().keys()) {
                // the warm-up compressor's keys (warmup.rank, ...) do not depend on compressor.type: always listed
                if (compressor == null || key.appliesTo().isEmpty() || !key.path().startsWith("compressor.")
                        || key.appliesTo().contains(compressor)) {
                    System.out.println(key);
                }
            }
            return 0;
        }
    }

    /** {@code lgc config resolve FILE}. */
    @Command(name = "resolve", mixinStandardHelpOptions = true,
            description = "Check FILE and print it with every default written out: what the run's config.yaml"
                    + " records.")
    static final class Resolve implements Callable<Integer> {

        @Parameters(index = "0", paramLabel = "FILE", description = "a config file, e.g. configs/quickstart.yaml")
        private Path file;

        @Override
        public Integer call() {
            try {
                System.out.print(ConfigLoader.load(file).toYaml());
                return 0;
            } catch (ConfigException e) {
                System.err.println("lgc: " + e.getMessage());
                return 2;
            }
        }
    }
}

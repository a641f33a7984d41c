package io.lgc4j.cli;

import io.lgc4j.advise.StepPenalties;
import io.lgc4j.advise.StepPenalty;
import io.lgc4j.advise.config.StepEvidence;
import io.lgc4j.cli.tables.StepPenaltyEvidence;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code lgc evidence step-penalties [ROOT...]}: steps to a target relative to dense, per model setting and method,
 * from the committed run directories; the file {@code compressor: auto} and {@code lgc advise} read
 * ({@value StepEvidence#RESOURCE} in lgc-runner), regenerated whenever results are committed.
 */
@Command(name = "evidence", mixinStandardHelpOptions = true,
        description = "Derive evidence from committed results.",
        subcommands = {EvidenceCommand.Penalties.class})
final class EvidenceCommand implements Runnable {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** {@code lgc evidence step-penalties}. */
    @Command(name = "step-penalties", mixinStandardHelpOptions = true,
            description = "Steps to the target accuracy relative to dense on paired seeds, per model setting and"
                    + " method, from every run directory under ROOT that trained its whole schedule and evaluated every"
                    + " few steps. Writes the CSV lgc-runner ships (" + StepEvidence.RESOURCE + ").")
    static final class Penalties implements Callable<Integer> {
        @Parameters(paramLabel = "ROOT", arity = "0..*", description = "results roots (default: docs/results)")
        private List<Path> roots = List.of(Path.of("docs/results"));

        @Option(names = "--target", paramLabel = "ACC", defaultValue = "0.80",
                description = "test accuracy to reach, a fraction (default 0.80)")
        private double target;

        @Option(names = "--output", paramLabel = "FILE", description = "where the CSV goes (default: standard output)")
        private Path output;

        @Option(names = "--show-skipped", description = "list every run directory that does not count, and why")
        private boolean showSkipped;

        @Override
        public Integer call() {
            if (!(target > 0 && target <= 1)) {
                System.err.println("lgc evidence step-penalties: --target must be a fraction in (0, 1], found "
                        + target);
                return 2;
            }
            List<StepPenaltyEvidence.Run> runs = new ArrayList<>();
            List<String> skipped = new ArrayList<>();
            try {
                for (Path root : roots) {
                    if (!Files.isDirectory(root)) {
                        System.err.println("lgc evidence step-penalties: " + root + " is not a directory; expected"
                                + " a results root such as docs/results");
                        return 2;
                    }
                    runs.addAll(StepPenaltyEvidence.scan(root, target, skipped));
                }
                StepPenalties penalties = StepPenaltyEvidence.build(runs, target);
                if (output == null) {
                    System.out.print(penalties.write());
                } else {
                    penalties.write(output);
                }
                long methods = penalties.rows().stream().filter(r -> !r.method().isDense()).count();
                long proven = penalties.rows().stream().filter(r -> !r.method().isDense())
                        .filter(StepPenalty::reachedEverySeed).count();
                System.err.printf("lgc evidence step-penalties: %d runs counted, %d skipped; %d settings with dense"
                                + " runs, %d method rows (%d reached the target on every seed)%s%n", runs.size(),
                        skipped.size(), penalties.rows().size() - methods, methods, proven,
                        output == null ? "" : "; wrote " + output);
                if (showSkipped) {
                    skipped.forEach(s -> System.err.println("  skipped " + s));
                }
                return 0;
            } catch (IllegalArgumentException e) {
                System.err.println("lgc evidence step-penalties: " + e.getMessage());
                return 2;
            } catch (IOException e) {
                System.err.println("lgc evidence step-penalties: " + e.getMessage());
                return 1;
            }
        }
    }
}

package io.lgc4j.cli;

import io.lgc4j.cli.tables.AeConvergenceFigure;
import io.lgc4j.cli.tables.MutualInformationFigure;
import io.lgc4j.cli.tables.SparsificationFigure;
import io.lgc4j.cli.tables.Suite;
import io.lgc4j.cli.tables.SuiteKind;
import io.lgc4j.core.train.TrainingListener;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;

/** {@code lgc figure ...}: the paper's figures, one command each, from the suites in {@code configs/tables/}. */
@Command(name = "figure", mixinStandardHelpOptions = true,
        description = "Reproduce one of the paper's figures at this machine's scale (PNG, the CSV behind it,"
                + " table.md, provenance.json).",
        subcommands = {FigureCommand.MutualInformation.class, FigureCommand.Sparsification.class,
            FigureCommand.AeConvergence.class})
final class FigureCommand implements Runnable {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** {@code lgc figure mutual-information}: Figs. 3–4; analyses gradients instead of training methods. */
    @Command(name = "mutual-information", mixinStandardHelpOptions = true,
            description = "Figs. 3-4 analog: per layer, the histogram entropy of one rank's gradient and the mutual"
                    + " information between two ranks' gradients, over iterations and averaged per layer.")
    static final class MutualInformation extends SuiteCommand {
        MutualInformation() {
            super(SuiteKind.MUTUAL_INFORMATION, null);
        }

        @Override
        void produce(Suite suite, Suite.Profile profile, Path out, String commandLine, PrintStream log,
                     Supplier<List<TrainingListener>> progress) throws IOException {
            MutualInformationFigure.write(suite, profile, commandLine, out, log);
        }
    }

    /** {@code lgc figure sparsification}: Fig. 13. */
    @Command(name = "sparsification", mixinStandardHelpOptions = true,
            description = "Fig. 13 analog: training loss under fixed, exponential (DGC) and warm-up sparsification.")
    static final class Sparsification extends SuiteCommand {
        Sparsification() {
            super(SuiteKind.SPARSIFICATION, SparsificationFigure::write);
        }
    }

    /** {@code lgc figure ae-convergence}: Fig. 14. */
    @Command(name = "ae-convergence", mixinStandardHelpOptions = true,
            description = "Fig. 14 analog: the autoencoders' reconstruction loss over their online training with"
                    + " lambda2 = 0 and 0.5, for LGC-PS and LGC-RAR.")
    static final class AeConvergence extends SuiteCommand {
        AeConvergence() {
            super(SuiteKind.AE_CONVERGENCE, AeConvergenceFigure::write);
        }
    }
}

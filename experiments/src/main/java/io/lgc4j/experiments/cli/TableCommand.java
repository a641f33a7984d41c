package io.lgc4j.experiments.cli;

import io.lgc4j.core.train.TrainingListener;
import io.lgc4j.experiments.tables.CompressionTable;
import io.lgc4j.experiments.tables.PhasesTable;
import io.lgc4j.experiments.tables.Suite;
import io.lgc4j.experiments.tables.SuiteKind;
import io.lgc4j.experiments.tables.SuiteRuns;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;

/** {@code lgc table ...}: the paper's tables, one command each, from the suites in {@code configs/tables/}. */
@Command(name = "table", mixinStandardHelpOptions = true,
        description = "Reproduce one of the paper's tables at this machine's scale (table.md, table.csv, PNG,"
                + " provenance.json).",
        subcommands = {TableCommand.Compression.class, TableCommand.Phases.class})
final class TableCommand implements Runnable {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** {@code lgc table compression}: Table VI's analog. */
    @Command(name = "compression", mixinStandardHelpOptions = true,
            description = "Table VI analog: accuracy, bytes per node per step, compression ratio and run totals of"
                    + " Baseline, Sparse GD, DGC, ScaleCom, S2, LGC-RAR and LGC-PS (leader / other ranks).")
    static final class Compression extends SuiteCommand {
        @Override
        SuiteKind kind() {
            return SuiteKind.COMPRESSION;
        }

        @Override
        boolean isTable() {
            return true;
        }

        @Override
        void produce(Suite suite, Suite.Profile profile, Path out, String commandLine, PrintStream log,
                     Supplier<List<TrainingListener>> progress) throws IOException {
            List<SuiteRuns.Finished> runs = SuiteRuns.execute(suite.plan(profile), out, log, progress);
            CompressionTable.write(suite, profile, commandLine, runs, out);
        }
    }

    /** {@code lgc table phases}: Table V's analog. */
    @Command(name = "phases", mixinStandardHelpOptions = true,
            description = "Table V analog: time per iteration in the FULL, TOP_K and COMPRESSED stages of LGC-PS and"
                    + " LGC-RAR, split by phase.")
    static final class Phases extends SuiteCommand {
        @Override
        SuiteKind kind() {
            return SuiteKind.PHASES;
        }

        @Override
        boolean isTable() {
            return true;
        }

        @Override
        void produce(Suite suite, Suite.Profile profile, Path out, String commandLine, PrintStream log,
                     Supplier<List<TrainingListener>> progress) throws IOException {
            List<SuiteRuns.Finished> runs = SuiteRuns.execute(suite.plan(profile), out, log, progress);
            PhasesTable.write(suite, profile, commandLine, runs, out);
        }
    }
}

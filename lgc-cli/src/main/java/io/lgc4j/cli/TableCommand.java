package io.lgc4j.cli;

import io.lgc4j.cli.tables.CompressionTable;
import io.lgc4j.cli.tables.PhasesTable;
import io.lgc4j.cli.tables.SuiteKind;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code lgc table ...}: the paper's tables, one command each, from the suites in {@code configs/tables/}. */
@Command(name = "table", mixinStandardHelpOptions = true,
        description = "Reproduce one of the paper's tables at this machine's scale (table.md, table.csv, PNG,"
                + " provenance.json).",
        subcommands = {TableCommand.Compression.class, TableCommand.Phases.class, TimeToAccuracyCommand.class})
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
        Compression() {
            super(SuiteKind.COMPRESSION, CompressionTable::write);
        }
    }

    /** {@code lgc table phases}: Table V's analog. */
    @Command(name = "phases", mixinStandardHelpOptions = true,
            description = "Table V analog: time per iteration in the FULL, TOP_K and COMPRESSED stages of LGC-PS and"
                    + " LGC-RAR, split by phase.")
    static final class Phases extends SuiteCommand {
        Phases() {
            super(SuiteKind.PHASES, PhasesTable::write);
        }
    }
}

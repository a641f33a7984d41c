package io.lgc4j.cli;

import io.lgc4j.cli.trace.TraceSummary;
import io.lgc4j.core.metrics.TraceMerge;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code lgc trace summary TRACE [--rate-mbit R]}: where each worker's step went, per stage, and
 * {@code timeline.csv} beside the trace; {@code lgc trace merge DIR... -o FILE}: the endpoints' own trace files
 * (each host's {@code trace/} directory) merged into one trace with the probed clock offsets.
 */
@Command(name = "trace", mixinStandardHelpOptions = true,
        description = "Summarise a run's trace (lgc run --trace FILE), or merge endpoints' trace files.",
        subcommands = {TraceCommand.Summary.class, TraceCommand.Merge.class})
final class TraceCommand implements Runnable {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** {@code lgc trace summary}. */
    @Command(name = "summary", mixinStandardHelpOptions = true,
            description = {"Per stage, the mean per worker and step of compute, wire, the wait split into straggler,",
                "server, chained and latency, and throttling; timeline.csv (per step and worker) beside TRACE."})
    static final class Summary implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "TRACE", description = "a merged trace (lgc run --trace FILE)")
        private Path trace;

        @Option(names = "--rate-mbit", paramLabel = "R",
                description = "the link rate in Mbit/s: wire = own bytes sent ÷ R (default: no wire column)")
        private Double rateMbit;

        @Option(names = "--csv", paramLabel = "FILE", description = "where timeline.csv goes (default: beside TRACE)")
        private Path csv;

        @Override
        public Integer call() {
            if (rateMbit != null && !(rateMbit > 0)) {
                System.err.println("lgc trace summary: --rate-mbit must be > 0 Mbit/s, found " + rateMbit);
                return 2;
            }
            TraceSummary summary;
            try {
                summary = TraceSummary.read(trace, rateMbit == null ? Double.NaN : rateMbit);
            } catch (IOException e) {
                System.err.println("lgc trace summary: " + e.getMessage());
                return 2;
            }
            if (summary.rows().isEmpty()) {
                System.err.println("lgc trace summary: " + trace + " holds no worker's step span; expected a trace of"
                        + " a training run");
                return 2;
            }
            Path out = csv != null ? csv : trace.toAbsolutePath().resolveSibling("timeline.csv");
            try {
                summary.writeCsv(out);
            } catch (IOException e) {
                System.err.println("lgc trace summary: " + e.getMessage());
                return 1;
            }
            System.out.print(summary.stageTable());
            System.out.println("per step and worker: " + out);
            return 0;
        }
    }

    /** {@code lgc trace merge}. */
    @Command(name = "merge", mixinStandardHelpOptions = true,
            description = {"Merge the endpoints' trace files (e<endpoint>.json; clock.json from rank 0's host) of",
                "one run, from each host's trace/ directory, into one trace."})
    static final class Merge implements Callable<Integer> {
        @Parameters(arity = "1..*", paramLabel = "DIR", description = "directories holding e<endpoint>.json files")
        private List<Path> directories;

        @Option(names = {"-o", "--output"}, required = true, paramLabel = "FILE", description = "the merged trace")
        private Path output;

        @Override
        public Integer call() {
            try {
                long events = TraceMerge.merge(directories, output, Map.of("runtime", "merged"));
                System.out.println("lgc trace merge: " + events + " events in " + output);
                return 0;
            } catch (IOException e) {
                System.err.println("lgc trace merge: " + e.getMessage());
                return 2;
            }
        }
    }
}

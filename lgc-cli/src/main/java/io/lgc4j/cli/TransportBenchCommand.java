package io.lgc4j.cli;

import io.lgc4j.bench.TransportBenchmark;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * {@code lgc bench transport}: the data plane in one run — raw Netty stream, lgc-net point to point, dense ring
 * allreduce and dense PS step over lgc-net (TLS on and off) and in process; see {@link TransportBenchmark}.
 * Tables go to standard output, progress to standard error, the rows to {@code --csv}.
 */
@Command(name = "transport", mixinStandardHelpOptions = true,
        description = "Data-plane throughput, latency, CPU s/GB and allocation: raw Netty stream (the ceiling),"
                + " lgc-net point to point, dense ring allreduce and PS step over lgc-net (TLS on/off) and in"
                + " process. Run with -Xmx4g for 64 MB at K=4.")
final class TransportBenchCommand implements Callable<Integer> {

    @Option(names = "--sizes", split = ",", defaultValue = "1K,16K,256K,4M,64M",
            description = "message and gradient sizes, K = 1024 bytes, M = 2^20 (default ${DEFAULT-VALUE};"
                    + " --quick: up to 4M)")
    private List<String> sizes;

    @Option(names = "--workers", split = ",", defaultValue = "2,4",
            description = "K for the ring and the parameter server (default ${DEFAULT-VALUE})")
    private List<Integer> workers;

    @Option(names = "--tls", defaultValue = "both", description = "lgc-net rows: on, off or both (default"
            + " ${DEFAULT-VALUE})")
    private String tls;

    @Option(names = "--parts", split = ",", defaultValue = "raw,stream,ping-pong,ring,ps",
            description = "what to run (default ${DEFAULT-VALUE})")
    private List<String> parts;

    @Option(names = "--seconds", defaultValue = "1.0", description = "measured time per configuration (default"
            + " ${DEFAULT-VALUE})")
    private double seconds;

    @Option(names = "--warmup-seconds", defaultValue = "0.5",
            description = "warm-up time per configuration (default ${DEFAULT-VALUE})")
    private double warmupSeconds;

    @Option(names = "--min-steps", defaultValue = "5", description = "fewest measured steps per configuration"
            + " (default ${DEFAULT-VALUE})")
    private int minSteps;

    @Option(names = "--quick", description = "0.1 s warm-up, 0.25 s and 2 steps measured, sizes up to 4 MB unless"
            + " --sizes is given")
    private boolean quick;

    @Option(names = "--csv", description = "also write the rows to this CSV file")
    private Path csv;

    @picocli.CommandLine.Spec
    private picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        TransportBenchmark.Settings settings;
        try {
            List<Integer> bytes = new ArrayList<>();
            for (String s : sizes) {
                bytes.add(parseSize(s));
            }
            boolean sizesGiven = spec.commandLine().getParseResult().hasMatchedOption("--sizes");
            if (quick && !sizesGiven) {
                bytes.removeIf(b -> b > 4 * TransportBenchmark.MB);
            }
            Set<TransportBenchmark.Part> chosen = EnumSet.noneOf(TransportBenchmark.Part.class);
            for (String p : parts) {
                chosen.add(TransportBenchmark.Part.parse(p));
            }
            settings = new TransportBenchmark.Settings(bytes, workers, TransportBenchmark.TlsMode.parse(tls), chosen,
                    warmupSeconds, seconds, minSteps, TransportBenchmark.Settings.DEFAULT.maxSteps());
            if (quick) {
                settings = settings.withTiming(0.1, 0.25, 2);
            }
        } catch (IllegalArgumentException e) {
            System.err.println("lgc: bad option: " + e.getMessage());
            return 2;
        }
        TransportBenchmark.Settings chosen = settings;
        return TablesOnStdout.run(tables -> {
            List<TransportBenchmark.Row> rows = TransportBenchmark.run(tables, chosen);
            if (csv != null) {
                TransportBenchmark.writeCsv(csv, rows);
            }
            return 0;
        });
    }

    /** "64M", "256K", "1KB", "4096": bytes (binary units). */
    static int parseSize(String text) {
        String s = text.trim().toUpperCase(Locale.ROOT);
        if (s.endsWith("B")) {
            s = s.substring(0, s.length() - 1);
        }
        long unit = 1;
        if (s.endsWith("K")) {
            unit = TransportBenchmark.KB;
        } else if (s.endsWith("M")) {
            unit = TransportBenchmark.MB;
        }
        if (unit != 1) {
            s = s.substring(0, s.length() - 1);
        }
        long value;
        try {
            value = Long.parseLong(s.trim()) * unit;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("sizes: expected a size like 1K, 256K, 64M or 4096, found '" + text
                    + "'");
        }
        if (value > Integer.MAX_VALUE / 2) {
            throw new IllegalArgumentException("sizes: at most 1G per message, found '" + text + "'");
        }
        return (int) value;
    }
}

package io.lgc4j.cli;

import io.lgc4j.net.JobCertificates;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code lgc keys DIR}: a certificate authority of the job's own and a certificate per host, for mutual TLS
 * between the processes of a job ({@code lgc worker --tls-cert DIR/HOST.crt --tls-key DIR/HOST.key --tls-ca
 * DIR/ca.crt}, or {@code lgc launch --tls-dir DIR}) by users without a PKI. Run it once, then copy {@code ca.crt} and
 * each host's two files to that host; {@code ca.key} stays with whoever adds hosts later (the same command again).
 */
@Command(name = "keys", mixinStandardHelpOptions = true,
        description = {"Create a job CA (DIR/ca.crt, DIR/ca.key) and per-host certificates (DIR/HOST.crt, DIR/HOST.key)",
            "for mutual TLS between the processes of a job. An existing CA in DIR is kept and signs the new hosts."})
final class KeysCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "DIR", description = "where the files go (created if absent)")
    private Path dir;

    @Option(names = "--hosts", split = ",", defaultValue = "localhost,127.0.0.1",
            description = "host names or addresses to issue certificates for (default: localhost,127.0.0.1)")
    private List<String> hosts;

    @Option(names = "--days", defaultValue = "365", description = "validity in days (default 365)")
    private int days;

    @Override
    public Integer call() {
        if (days < 1) {
            System.err.println("lgc keys: --days must be >= 1, found " + days);
            return 2;
        }
        try {
            for (Path p : JobCertificates.create(dir, hosts, Duration.ofDays(days))) {
                System.out.println("wrote " + p);
            }
            return 0;
        } catch (IllegalArgumentException e) {
            System.err.println("lgc keys: " + e.getMessage());
            return 2;
        } catch (UncheckedIOException | IllegalStateException e) {
            System.err.println("lgc keys: " + e.getMessage());
            return 1;
        }
    }
}

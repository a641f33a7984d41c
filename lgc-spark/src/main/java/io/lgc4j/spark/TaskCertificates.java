package io.lgc4j.spark;

import io.lgc4j.net.JobCertificates;
import io.lgc4j.net.NetSettings;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * One barrier task's mutual-TLS material, made in the task and never sent: its own CA and a certificate for its
 * host signed by it, in a task-local temporary directory. Only the CA's certificate leaves the task (in {@link
 * TaskRendezvous#gatherCertificates}); with every task's CA certificate the task writes its trust bundle, so a peer
 * is trusted exactly when it is one of the stage's tasks. The CA's private key is deleted as soon as the host's
 * certificate is signed; {@link #close} deletes the rest.
 */
final class TaskCertificates implements AutoCloseable {
    /** Validity of a task's certificates: longer than any stage runs, short enough not to matter if leaked. */
    static final Duration VALIDITY = Duration.ofDays(1);
    private static final String PEM_BEGIN = "-----BEGIN CERTIFICATE-----";

    private final Path dir;
    private final String name;

    private TaskCertificates(Path dir, String name) {
        this.dir = dir;
        this.name = name;
    }

    /** Makes a CA and a certificate for {@code host} in a new temporary directory. */
    static TaskCertificates create(String host) {
        // a certificate names a file: an IPv6 zone ("%eth0") or other odd characters become '_' (names are not checked)
        String name = host.replaceAll("[^A-Za-z0-9.:_-]", "_");
        Path dir;
        try {
            dir = Files.createTempDirectory("lgc-spark-tls-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary directory for the task's certificates: "
                    + e.getMessage(), e);
        }
        TaskCertificates certificates = new TaskCertificates(dir, name);
        try {
            JobCertificates.create(dir, List.of(name), VALIDITY);
            Files.delete(dir.resolve("ca.key"));
            return certificates;
        } catch (IOException e) {
            certificates.close();
            throw new UncheckedIOException("cannot delete the task CA's key in " + dir + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            certificates.close();
            throw e;
        }
    }

    /** The directory holding the task's files (tests check it is gone after the task). */
    Path directory() {
        return dir;
    }

    /** This task's CA certificate as one token: base64 of its PEM, no spaces or line breaks. */
    String caToken() {
        try {
            return Base64.getEncoder().encodeToString(Files.readAllBytes(dir.resolve("ca.crt")));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the task's CA certificate in " + dir, e);
        }
    }

    /**
     * Writes the trust bundle of every task's CA certificate ({@link #caToken}s, this task's among them) and returns
     * the TLS settings of this task's endpoints: its host certificate and key, trusting the bundle.
     *
     * @throws IllegalStateException naming the task whose token is not a base64 PEM certificate
     */
    NetSettings.Tls trust(List<String> caTokens) {
        StringBuilder bundle = new StringBuilder();
        for (int task = 0; task < caTokens.size(); task++) {
            String pem;
            try {
                pem = new String(Base64.getDecoder().decode(caTokens.get(task)), StandardCharsets.US_ASCII);
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException("task " + task + " sent a CA certificate that is not base64: "
                        + e.getMessage(), e);
            }
            if (!pem.startsWith(PEM_BEGIN)) {
                throw new IllegalStateException("task " + task + " sent a CA certificate that is not a PEM"
                        + " certificate, expected base64 of '" + PEM_BEGIN + "…'");
            }
            bundle.append(pem.endsWith("\n") ? pem : pem + "\n");
        }
        Path file = dir.resolve("stage-cas.crt");
        try {
            Files.writeString(file, bundle, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the stage's trust bundle " + file, e);
        }
        return new NetSettings.Tls(dir.resolve(name + ".crt"), dir.resolve(name + ".key"), file);
    }

    /** Deletes the directory and everything in it; never throws (a task ending in failure calls it too). */
    @Override
    public void close() {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(f);
            }
        } catch (IOException | UncheckedIOException e) {
            System.err.println("lgc-spark: cannot delete the task's certificates in " + dir + ": " + e.getMessage());
        }
    }
}

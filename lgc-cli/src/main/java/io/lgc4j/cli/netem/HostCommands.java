package io.lgc4j.cli.netem;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs the host's {@code ip} and {@code tc} (any short command) and returns its standard output; a command that
 * fails, or does not end within {@link #TIMEOUT_SECONDS}, throws {@link FabricException} naming the command, its
 * exit status and its standard error. Tests substitute a runner that fails on purpose.
 *
 * <pre>{@code
 * String namespaces = HostCommands.SYSTEM.run(List.of("ip", "netns", "list"));
 * }</pre>
 */
@FunctionalInterface
public interface HostCommands {

    /** Seconds a command may take. */
    long TIMEOUT_SECONDS = 30;

    /** Runs commands with {@link ProcessBuilder}. */
    HostCommands SYSTEM = HostCommands::exec;

    /**
     * Runs {@code command}.
     *
     * @return its standard output
     * @throws FabricException when it cannot start, fails or times out
     */
    String run(List<String> command);

    /** Whether this process runs as root (effective uid 0, from {@code /proc/self/status}). */
    static boolean isRoot() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.US_ASCII)) {
                if (line.startsWith("Uid:")) {
                    return line.split("\\s+")[2].equals("0");
                }
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }

    /**
     * Throws when this process is not root, naming {@code what} needs it.
     *
     * @throws FabricException when not root
     */
    static void requireRoot(String what) {
        if (!isRoot()) {
            throw new FabricException(what + " needs root (network namespaces, tc qdiscs and cgroups); run it as"
                    + " root, e.g. with sudo. Nothing was set up and nothing trained.");
        }
    }

    private static String exec(List<String> command) {
        String shown = String.join(" ", command);
        Process p;
        try {
            p = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        } catch (IOException e) {
            throw new FabricException("`" + shown + "` could not start: " + e.getMessage(), e);
        }
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(p.getInputStream()));
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()));
        try {
            if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new FabricException("`" + shown + "` did not end within " + TIMEOUT_SECONDS + " s");
            }
            int status = p.exitValue();
            if (status != 0) {
                throw new FabricException("`" + shown + "` failed with exit status " + status + ": "
                        + err.join().strip());
            }
            return out.join();
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new FabricException("interrupted while `" + shown + "` ran", e);
        }
    }

    private static String read(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }
}

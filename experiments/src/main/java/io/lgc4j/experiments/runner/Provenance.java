package io.lgc4j.experiments.runner;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What made a result (ARCHITECTURE §5): git commit and whether the tree was dirty, JDK, OS, cores, ND4J backend
 * and variant, LGC4J version, seed, the config's source, and the time.
 */
public final class Provenance {
    private Provenance() {
    }

    /** A JSON-ready map of everything above. */
    public static Map<String, Object> collect(String configSource, long seed) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("lgc4jVersion", BuildInfo.version());
        p.put("gitCommit", git("rev-parse", "HEAD"));
        String status = git("status", "--porcelain", "--untracked-files=no");
        p.put("gitDirty", status.equals("unknown") ? "unknown" : String.valueOf(!status.isEmpty()));
        p.put("config", configSource);
        p.put("seed", seed);
        p.put("jdk", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        p.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
        p.put("availableProcessors", Runtime.getRuntime().availableProcessors());
        p.put("maxHeapBytes", Runtime.getRuntime().maxMemory());
        p.put("nd4j", Nd4jEnvironment.describe());
        p.put("startedAt", Instant.now().toString());
        return p;
    }

    private static String git(String... args) {
        String[] command = new String[args.length + 1];
        command[0] = "git";
        System.arraycopy(args, 0, command, 1, args.length);
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!process.waitFor(10, TimeUnit.SECONDS) || process.exitValue() != 0) {
                return "unknown";
            }
            return out;
        } catch (IOException e) {
            return "unknown";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }
}

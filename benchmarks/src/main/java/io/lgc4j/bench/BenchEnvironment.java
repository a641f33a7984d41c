package io.lgc4j.bench;

import io.lgc4j.core.compute.Nd4jBuild;
import io.lgc4j.runner.Provenance;

import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.Map;

/**
 * One line saying where and when a benchmark ran, printed above its tables so that a saved output carries its own
 * provenance: git commit (and whether the tree was dirty), time, JDK, CPUs, load average, ND4J variant and threads.
 */
public final class BenchEnvironment {

    private BenchEnvironment() {
    }

    /** The line, e.g. {@code git 0813f2f…, 2026-11-22T04:00:00Z, Java 17.0.15, amd64, 2 CPUs, load 3.1, ND4J …}. */
    public static String describe(long seed) {
        Map<String, Object> p = Provenance.collect("", seed);
        String commit = String.valueOf(p.get("gitCommit"));
        Object nd4j = p.get("nd4j");
        String threads = nd4j instanceof Map<?, ?> m && m.get("omp.threads") != null
                ? ", " + m.get("omp.threads") + " OpenMP threads" : "";
        return String.format(Locale.ROOT, "git %s%s, %s, Java %s, %s, %s, %d CPUs, load average %.1f, ND4J %s%s",
                commit.length() > 12 ? commit.substring(0, 12) : commit,
                "true".equals(p.get("gitDirty")) ? " (dirty tree)" : "", p.get("startedAt"), Runtime.version(),
                System.getProperty("os.arch"), p.get("cpu"), Runtime.getRuntime().availableProcessors(),
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                Nd4jBuild.current().loaded(),
                threads);
    }
}

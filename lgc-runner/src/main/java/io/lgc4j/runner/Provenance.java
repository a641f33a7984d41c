package io.lgc4j.runner;

import io.lgc4j.core.compute.ComputeReport;
import io.lgc4j.core.compute.CpuInfo;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What made a result (ARCHITECTURE §5): git commit and whether the tree was dirty, JDK, OS, CPU model, cores, ND4J
 * backend and variant, LGC4J version, seed, the config's source, the time, and which layer runs on which helper.
 */
public final class Provenance {
    private Provenance() {
    }

    /** A JSON-ready map of everything above. */
    public static Map<String, Object> collect(String configSource, long seed) {
        return collect(configSource, seed, null);
    }

    /**
     * A JSON-ready map of everything above and, under {@code compute}, which helper each layer of the replicas runs
     * on ({@link ComputeReport#toMap}).
     *
     * @param compute the trainer's report, or null for a result that trained no model
     */
    public static Map<String, Object> collect(String configSource, long seed, ComputeReport compute) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("lgc4jVersion", BuildInfo.version());
        // the commit of the code that runs: asked where the jar (or classes directory) lives, so a run started from
        // any working directory still names it
        p.put("gitCommit", gitCommit());
        p.put("gitDirty", gitDirty());
        p.put("config", configSource);
        p.put("seed", seed);
        p.put("jdk", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        p.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
        // the same seed gives the same bits on the same kind of CPU only: OpenBLAS and oneDNN pick their kernels by
        // instruction set (AVX2, AVX-512), and a different summation order grows into a different run
        p.put("cpu", cpu());
        p.put("availableProcessors", Runtime.getRuntime().availableProcessors());
        p.put("jit", jit());
        p.put("maxHeapBytes", Runtime.getRuntime().maxMemory());
        p.put("nd4j", Nd4jEnvironment.describe());
        if (compute != null) {
            p.put("compute", compute.toMap());
        }
        p.put("startedAt", Instant.now().toString());
        return p;
    }

    /**
     * The CPU as /proc/cpuinfo names it, with its family, model and widest vector extension, e.g. "Intel(R) Xeon(R)
     * Processor (family 6, model 207, avx512f)"; "unknown" where there is no /proc/cpuinfo.
     */
    static String cpu() {
        return CpuInfo.ofThisMachine().toString();
    }

    /**
     * This JVM's JIT: "C1 only" ({@code -XX:TieredStopAtLevel} below 4, as {@code lgc launch --jit} runs a process with
     * less than a core), "C2 only" (tiering off) or "tiered", with {@code CompileThresholdScaling} when it is not 1;
     * "unknown" on a JVM without HotSpot's options.
     */
    static String jit() {
        try {
            var hotspot = java.lang.management.ManagementFactory.getPlatformMXBean(
                    com.sun.management.HotSpotDiagnosticMXBean.class);
            return jit(Boolean.parseBoolean(hotspot.getVMOption("TieredCompilation").getValue()),
                    Integer.parseInt(hotspot.getVMOption("TieredStopAtLevel").getValue()),
                    hotspot.getVMOption("CompileThresholdScaling").getValue());
        } catch (RuntimeException e) {
            return "unknown";
        }
    }

    /** The words of {@link #jit()} for these HotSpot options. */
    static String jit(boolean tiered, int stopAtLevel, String thresholdScaling) {
        String scaled = Double.parseDouble(thresholdScaling) == 1.0 ? ""
                : "CompileThresholdScaling=" + thresholdScaling;
        if (!tiered) {
            return "C2 only" + (scaled.isEmpty() ? "" : " (" + scaled + ")");
        }
        if (stopAtLevel < 4) {
            return "C1 only (TieredStopAtLevel=" + stopAtLevel + (scaled.isEmpty() ? "" : ", " + scaled) + ")";
        }
        return "tiered" + (scaled.isEmpty() ? "" : " (" + scaled + ")");
    }

    /** The git commit of the running code (asked where its jar lives), or "unknown"; touches nothing else. */
    public static String gitCommit() {
        return git(codeLocation(), "rev-parse", "HEAD");
    }

    /** Whether the running code's work tree has uncommitted changes to tracked files: "true", "false" or "unknown". */
    public static String gitDirty() {
        String status = git(codeLocation(), "status", "--porcelain", "--untracked-files=no");
        return status.equals("unknown") ? "unknown" : String.valueOf(!status.isEmpty());
    }

    /** The directory holding this class's jar or classes, or null (then git runs in the working directory). */
    private static File codeLocation() {
        try {
            File f = new File(Provenance.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return f.isDirectory() ? f : f.getParentFile();
        } catch (URISyntaxException | RuntimeException e) {
            return null;
        }
    }

    private static String git(File directory, String... args) {
        String[] command = new String[args.length + 1];
        command[0] = "git";
        System.arraycopy(args, 0, command, 1, args.length);
        try {
            Process process = new ProcessBuilder(command).directory(directory).redirectErrorStream(true).start();
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

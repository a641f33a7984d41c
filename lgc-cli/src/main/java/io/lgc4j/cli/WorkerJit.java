package io.lgc4j.cli;

import io.lgc4j.core.compute.CpuLimits;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The JIT of every JVM {@code lgc launch} starts: {@code auto}, {@code c1} or {@code tiered}.
 *
 * <p>{@code auto} runs C1 alone ({@code -XX:TieredStopAtLevel=1}) when a process has less than a core (a
 * {@code --cpu-share} below 1, or more processes than CPUs), where C2's compiler threads would spend the rank's share,
 * and the tiered JIT otherwise. C1 alone also compiles early ({@link #EARLY_FLAG}); the tiered JIT keeps HotSpot's
 * thresholds. No choice changes a bit of the results. The measurements behind this are in
 * {@code docs/architecture/compute.md}.
 *
 * <pre>{@code
 * WorkerJit jit = WorkerJit.resolve("auto", CpuLimits.ofThisProcess(), 4);   // 4 processes on 2 CPUs: C1
 * command.addAll(jit.appliedTo(javaOptions));
 * }</pre>
 *
 * @param requested what was asked: auto, c1 or tiered
 * @param c1Only    whether every process runs C1 alone
 * @param reason    why, in words
 */
record WorkerJit(String requested, boolean c1Only, String reason) {
    /** The environment variable {@code --jit} defaults to. */
    static final String ENV = "LGC_WORKER_JIT";
    static final String AUTO = "auto";
    static final String C1 = "c1";
    static final String TIERED = "tiered";
    /** The HotSpot flag that stops compilation at C1. */
    static final String C1_FLAG = "-XX:TieredStopAtLevel=1";
    /** With C1 alone: compile a method after a couple of calls, not ~200 (HotSpot's thresholds times 0.01). */
    static final String EARLY_FLAG = "-XX:CompileThresholdScaling=0.01";

    /** What is wrong with {@code requested}, or null when it is auto, c1, tiered or unset. */
    static String problem(String requested) {
        if (requested == null || requested.isBlank()
                || List.of(AUTO, C1, TIERED).contains(requested.strip().toLowerCase(Locale.ROOT))) {
            return null;
        }
        return "expects auto, c1 or tiered, found '" + requested + "'";
    }

    /**
     * The JIT for {@code processes} processes started on this machine.
     *
     * @param requested auto, c1 or tiered; null or blank: auto
     * @param each      the CPU limits each process has: its quota, or the machine's CPUs it shares with the others
     */
    static WorkerJit resolve(String requested, CpuLimits each, int processes) {
        String problem = problem(requested);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        String r = requested == null || requested.isBlank() ? AUTO : requested.strip().toLowerCase(Locale.ROOT);
        if (!r.equals(AUTO)) {
            return new WorkerJit(r, r.equals(C1), "asked for " + r);
        }
        double cores = each.hasQuota() ? each.cores() : each.cores() / Math.max(1, processes);
        String per = String.format(Locale.ROOT, "%.2f cores per process (%s)", cores, each.hasQuota()
                ? "its quota" : processes + " processes on " + each.describe());
        return cores < 1 - 1e-9
                ? new WorkerJit(AUTO, true, "auto: " + per + ": C2's compiler threads would take CPU the ranks need")
                : new WorkerJit(AUTO, false, "auto: " + per);
    }

    /**
     * The JVM options with this JIT's flags added ({@link #flags()}), unless they already choose a JIT themselves
     * ({@code -XX:TieredStopAtLevel}, {@code -XX:±TieredCompilation}, {@code -XX:CompileThresholdScaling}): a user's
     * own options win.
     */
    List<String> appliedTo(List<String> javaOptions) {
        List<String> out = new ArrayList<>(javaOptions);
        boolean own = javaOptions.stream().anyMatch(o -> o.startsWith("-XX:TieredStopAtLevel")
                || o.endsWith("TieredCompilation") || o.startsWith("-XX:CompileThresholdScaling"));
        if (!own) {
            out.addAll(flags());
        }
        return out;
    }

    /** The HotSpot flags of this JIT: C1 alone, compiling early; none for the tiered JIT. */
    List<String> flags() {
        return c1Only ? List.of(C1_FLAG, EARLY_FLAG) : List.of();
    }
}

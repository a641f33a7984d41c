package io.lgc4j.core.compute;

import java.util.Locale;

/**
 * How many OpenMP threads ND4J runs in each process of a run ({@code model.compute.threads}): a count, or
 * {@code auto}, which gives each process the cores it really has: ⌊{@link CpuLimits#cores()} ÷ the processes (or
 * in-process ranks) that compute at once on its machine⌋, at least 1 — under a CFS quota the quota is already the
 * process's own share. ND4J sizes its thread pool once, when its backend loads, from {@code OMP_NUM_THREADS}: a
 * launcher resolves the count before it starts a process and puts it there ({@code lgc launch}), a run checks that
 * the pool has room for it ({@link #check}), and every thread of the run computes with it ({@link Nd4jThreads}).
 * More than one thread changes bits (oneDNN sums in another order), so the count is part of a run's identity.
 *
 * <pre>{@code
 * ComputeThreads t = ComputeThreads.resolve("auto", CpuLimits.ofThisProcess(), 4);
 * env.put("OMP_NUM_THREADS", String.valueOf(t.threads()));   // 8 cores, 4 processes: 2 threads each
 * }</pre>
 *
 * @param requested what was asked: {@code auto} or a count
 * @param threads   the threads every process computes with
 * @param reason    why: "asked for 2", or the limits and the processes sharing them
 */
public record ComputeThreads(String requested, int threads, String reason) {

    /** The request that sizes threads from the process's cores. */
    public static final String AUTO = "auto";
    /** Where a launcher tells a process the count it resolved for it (beside {@code OMP_NUM_THREADS}). */
    public static final String ENV_THREADS = "LGC_COMPUTE_THREADS";
    /** Where a launcher tells a process why ({@link #reason()}). */
    public static final String ENV_REASON = "LGC_COMPUTE_THREADS_REASON";

    /** Checks the components. */
    public ComputeThreads {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, found " + threads);
        }
    }

    /**
     * Checks a request: {@code auto} or a count of at least 1.
     *
     * @param key where it was given, for the message ("model.compute.threads", "--threads")
     * @return the request, normalised ("auto", or the count in decimal)
     * @throws IllegalArgumentException naming {@code key}, what was found and what is allowed
     */
    public static String parse(String key, String requested) {
        String problem = problem(requested);
        if (problem != null) {
            throw new IllegalArgumentException(key + " " + problem);
        }
        String r = requested.strip().toLowerCase(Locale.ROOT);
        return r.equals(AUTO) ? AUTO : String.valueOf(Integer.parseInt(r));
    }

    /** What is wrong with a request ("must be 'auto' or …, found 'x'"), or null when nothing is. */
    public static String problem(String requested) {
        String r = requested == null ? "" : requested.strip().toLowerCase(Locale.ROOT);
        if (r.equals(AUTO)) {
            return null;
        }
        try {
            if (Integer.parseInt(r) >= 1) {
                return null;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        return "must be 'auto' or a number of threads of at least 1, found '" + requested + "'";
    }

    /**
     * Resolves a request for a process among {@code sharing} that compute at once within the same limits.
     *
     * @param requested {@code auto} or a count ({@link #parse}d)
     * @param limits    the process's limits
     * @param sharing   the processes (or in-process ranks) that share them, at least 1; under a CFS quota each
     *                  process has its own (the launcher's cgroups), so it divides only a machine without one
     */
    public static ComputeThreads resolve(String requested, CpuLimits limits, int sharing) {
        String r = parse("threads", requested);
        if (!r.equals(AUTO)) {
            return new ComputeThreads(r, Integer.parseInt(r), "asked for " + r);
        }
        int share = Math.max(1, sharing);
        double cores = limits.hasQuota() ? limits.cores() : limits.cores() / share;
        int n = Math.max(1, (int) Math.floor(cores + 1e-9));
        String per = limits.hasQuota() ? "its quota" : share == 1 ? "this process alone"
                : share + " processes computing at once";
        return new ComputeThreads(AUTO, n, String.format(Locale.ROOT, "auto: %.2f cores for %s (%s)",
                cores, per, limits.describe()));
    }

    /**
     * Checks that ND4J's thread pool has room for {@link #threads()}: the pool is sized once, when ND4J's library
     * loads ({@code OMP_NUM_THREADS}, else the machine's cores); a run's threads then compute with the run's count
     * whatever the variable said ({@link Nd4jThreads}), but never with more threads than the pool has.
     *
     * @param nd4jPool the threads of ND4J's pool ({@link Nd4jThreads#pool()}), or null when unknown (nothing checked)
     * @throws IllegalStateException naming both counts and how to start the process with the right one
     */
    public void check(String key, String nd4jPool) {
        if (nd4jPool == null || nd4jPool.isBlank()) {
            return;
        }
        int actual;
        try {
            actual = Integer.parseInt(nd4jPool.strip());
        } catch (NumberFormatException e) {
            return;
        }
        if (actual < threads) {
            String env = System.getenv("OMP_NUM_THREADS");
            throw new IllegalStateException(key + " is " + requested + (requested.equals(AUTO) ? " (" + threads
                    + " threads, " + reason + ")" : "") + ", but ND4J's thread pool has " + actual + " thread"
                    + (actual == 1 ? "" : "s") + " (" + (env == null ? "OMP_NUM_THREADS unset"
                    : "OMP_NUM_THREADS=" + env) + " when this JVM started; ND4J sizes it once): start it with"
                    + " OMP_NUM_THREADS=" + threads + " (bin/lgc passes the caller's on; lgc launch sets it from " + key
                    + "), or set " + key + ": " + actual);
        }
    }
}

package io.lgc4j.core.compute;

/**
 * Cumulative CPU counters at one moment ({@link CpuStat#sample()}); -1 for a counter this machine does not give.
 *
 * @param throttledNanos time the process's cgroup was held back by its CPU quota (cgroup {@code cpu.stat})
 * @param nrThrottled    quota periods in which it was held back
 * @param runNanos       time the sampling thread ran on a CPU ({@code /proc/thread-self/schedstat})
 * @param runqueueNanos  time the sampling thread was runnable but waited for a CPU
 */
public record CpuSample(long throttledNanos, long nrThrottled, long runNanos, long runqueueNanos) {
    /** Nothing available. */
    public static final CpuSample NONE = new CpuSample(-1, -1, -1, -1);
}

package io.lgc4j.bench;

import java.lang.management.ManagementFactory;
import java.util.HashMap;

/**
 * What the whole JVM has spent at one instant: process CPU time (every thread, GC and JIT included) and heap bytes
 * allocated by every live thread (the bench's own, the transports' event loops {@code lgc-net-*}, the rest). Two
 * snapshots taken while the measured threads are alive give the cost of what ran in between.
 *
 * <pre>{@code
 * ResourceUsage before = ResourceUsage.now();
 * ... measured steps ...
 * ResourceUsage.Delta spent = ResourceUsage.now().since(before);
 * }</pre>
 *
 * <p>A thread's allocation counter disappears with the thread, so a thread that ends between the snapshots loses its
 * bytes: the benchmark keeps its threads alive until the second snapshot.
 */
final class ResourceUsage {
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    static {
        if (THREADS.isThreadAllocatedMemorySupported() && !THREADS.isThreadAllocatedMemoryEnabled()) {
            THREADS.setThreadAllocatedMemoryEnabled(true);
        }
    }

    private final long cpuNanos;
    private final long gcMillis;
    private final long[] threadIds;
    private final long[] allocated;

    private ResourceUsage(long cpuNanos, long gcMillis, long[] threadIds, long[] allocated) {
        this.cpuNanos = cpuNanos;
        this.gcMillis = gcMillis;
        this.threadIds = threadIds;
        this.allocated = allocated;
    }

    /** Process CPU time, the collectors' accumulated time and each live thread's allocated bytes, now. */
    static ResourceUsage now() {
        long[] ids = THREADS.getAllThreadIds();
        long[] bytes = THREADS.getThreadAllocatedBytes(ids);
        long gc = 0;
        for (java.lang.management.GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
            gc += Math.max(0, collector.getCollectionTime());
        }
        return new ResourceUsage(OS.getProcessCpuTime(), gc, ids, bytes);
    }

    /**
     * What was spent since {@code earlier}: CPU nanoseconds, and bytes allocated by the threads alive now (a thread
     * born in between counts from zero).
     */
    Delta since(ResourceUsage earlier) {
        HashMap<Long, Long> before = new HashMap<>(earlier.threadIds.length * 2);
        for (int i = 0; i < earlier.threadIds.length; i++) {
            before.put(earlier.threadIds[i], earlier.allocated[i]);
        }
        long bytes = 0;
        for (int i = 0; i < threadIds.length; i++) {
            if (allocated[i] < 0) {
                continue; // ended since the snapshot's ids were read
            }
            Long then = before.get(threadIds[i]);
            bytes += allocated[i] - (then == null || then < 0 ? 0 : then);
        }
        return new Delta(cpuNanos - earlier.cpuNanos, gcMillis - earlier.gcMillis, bytes);
    }

    /**
     * Resources spent between two snapshots.
     *
     * @param cpuNanos       process CPU time
     * @param gcMillis       time the garbage collectors report (G1: young and mixed pauses, concurrent cycles)
     * @param allocatedBytes heap bytes allocated by all threads
     */
    record Delta(long cpuNanos, long gcMillis, long allocatedBytes) {
    }
}

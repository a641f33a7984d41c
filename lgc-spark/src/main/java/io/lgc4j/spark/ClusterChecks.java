package io.lgc4j.spark;

import org.apache.spark.SparkContext;

import java.time.Duration;
import java.util.function.IntSupplier;

/**
 * What a cluster must offer before lgc-spark submits a barrier stage, checked on the driver: no dynamic allocation,
 * and as many task slots at once as the stage has tasks. Shared by {@link LgcSpark} and {@link LgcEstimator}.
 */
final class ClusterChecks {
    private static final long SLOT_POLL_MS = 200;

    private ClusterChecks() {
    }

    /** Refuses an application with dynamic allocation on: Spark would run no barrier stage under it. */
    static void refuseDynamicAllocation(SparkContext sc) {
        if (sc.getConf().getBoolean("spark.dynamicAllocation.enabled", false)) {
            throw new LgcSparkException("spark.dynamicAllocation.enabled is true: a barrier stage needs all its tasks"
                    + " at once, and Spark runs none under dynamic allocation (SPARK-24942); set"
                    + " spark.dynamicAllocation.enabled=false for this application");
        }
    }

    /**
     * Waits until the cluster offers {@code tasks} task slots at once, at most {@code wait}; Spark itself would retry
     * a barrier stage with too few slots for minutes before it gives up.
     *
     * @param what  the stage's tasks, for the message ("4 barrier tasks (4 ranks; ...)")
     * @param lower the setting to lower, for the message ("training.workers")
     */
    static void awaitSlots(SparkContext sc, int tasks, String what, Duration wait, String lower) {
        int slots = slotsWithin(() -> slots(sc), tasks, wait);
        if (slots < tasks) {
            throw tooFew(sc, slots, what, wait, lower);
        }
    }

    /**
     * Waits at most {@code wait} until {@code slots} offers {@code tasks} task slots at once, and returns what it
     * offers then (fewer when the wait ran out).
     */
    static int slotsWithin(IntSupplier slots, int tasks, Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        int offered = slots.getAsInt();
        while (offered < tasks && System.nanoTime() - deadline < 0) {
            try {
                Thread.sleep(SLOT_POLL_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LgcSparkException("interrupted while waiting for task slots");
            }
            offered = slots.getAsInt();
        }
        return offered;
    }

    /** The refusal of a job the cluster's {@code slots} cannot run: what it offers, what the job needs, what to do. */
    static LgcSparkException tooFew(SparkContext sc, int slots, String what, Duration wait, String lower) {
        int executors = sc.statusTracker().getExecutorInfos().length - (sc.isLocal() ? 0 : 1);
        return new LgcSparkException("the cluster offers " + slots + " task slot" + (slots == 1 ? "" : "s")
                + " (" + sc.master() + ", " + executors + " executor" + (executors == 1 ? "" : "s")
                + " registered after " + wait.toSeconds() + " s), the job needs " + what + " at once: add"
                + " executors or cores, or lower " + lower);
    }

    /** Task slots the cluster offers now: what Spark's own barrier check counts (its default resource profile). */
    static int slots(SparkContext sc) {
        return sc.maxNumConcurrentTasks(sc.resourceProfileManager().defaultResourceProfile());
    }
}

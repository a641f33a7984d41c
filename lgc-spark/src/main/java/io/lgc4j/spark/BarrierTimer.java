package io.lgc4j.spark;

import java.lang.reflect.Field;
import java.util.Timer;

/**
 * Keeps Spark 3.5's barrier task timer from holding a JVM alive. {@code BarrierTaskContext}'s companion object
 * starts a non-daemon {@code java.util.Timer} ("Barrier task timer for barrier() calls.") the first time a barrier
 * task runs in a JVM and never stops it (SPARK-46895 made it a daemon in Spark 4.0 only). In local mode the tasks run
 * in the driver's JVM, so a program that trained returns from {@code main} and hangs. Executor JVMs of a cluster
 * are ended by their worker and do not matter.
 *
 * <p>{@link #replaceInThisJvm()} puts a daemon timer of the same name in its place and cancels Spark's own, once per
 * JVM, before the first barrier stage is submitted: no barrier task of ours holds the old timer then. Spark
 * schedules only a progress log every minute on it (while a barrier call waits), so nothing else changes.
 */
final class BarrierTimer {
    static final String THREAD_NAME = "Barrier task timer for barrier() calls.";
    private static final String MODULE = "org.apache.spark.BarrierTaskContext$";
    private static final String FIELD = "org$apache$spark$BarrierTaskContext$$timer";
    private static boolean replaced;

    private BarrierTimer() {
    }

    /**
     * Replaces Spark's non-daemon barrier timer of this JVM with a daemon one (once; later calls do nothing).
     *
     * @return null when done, else why not (another Spark's layout): the caller says so, the run goes on
     */
    static synchronized String replaceInThisJvm() {
        if (replaced) {
            return null;
        }
        try {
            Class<?> module = Class.forName(MODULE);
            Object instance = module.getField("MODULE$").get(null);
            Field field = module.getDeclaredField(FIELD);
            field.setAccessible(true);
            Timer old = (Timer) field.get(instance);
            field.set(instance, new Timer(THREAD_NAME, true));
            old.cancel();
            replaced = true;
            return null;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return "cannot replace Spark's non-daemon '" + THREAD_NAME + "' thread (" + e + "): this JVM will not"
                    + " exit by itself after a barrier stage in local mode; stop it with System.exit";
        }
    }
}

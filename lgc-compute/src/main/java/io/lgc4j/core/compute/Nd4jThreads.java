package io.lgc4j.core.compute;

import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.nativeblas.NativeOpsHolder;

/**
 * The OpenMP threads ND4J's operations run with on the threads of a run, the same in every runtime whatever
 * {@code OMP_NUM_THREADS} the process started with. {@link #use} (when the trainer is built) checks the run's count
 * ({@link ComputeSettings#threads()}) and sets it on the calling thread and for OpenBLAS; every thread of the run that
 * computes calls {@link #adopt()} when it starts.
 *
 * <pre>{@code
 * Nd4jThreads.use(1);      // the trainer, when it is built: checks the count, applies it on the calling thread
 * Nd4jThreads.adopt();     // every thread of the run, when it starts
 * }</pre>
 *
 * <p>The count is process-wide: two trainers built in one JVM with different counts share the later one's.
 */
public final class Nd4jThreads {
    /** The count {@link #adopt()} applies; 0 until a trainer has been built in this process. */
    private static volatile int runThreads;

    private Nd4jThreads() {
    }

    /**
     * Makes {@code threads} the count of every thread that {@link #adopt}s it, and of the calling thread.
     *
     * @param threads the run's count, at least 1
     * @throws IllegalStateException when ND4J's thread pool, sized when its library loaded, has fewer threads:
     *                               naming both, where the pool's size came from, and how to start the JVM
     */
    public static void use(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("compute threads must be at least 1, found " + threads);
        }
        int pool = pool();
        if (threads > pool) {
            String env = System.getenv("OMP_NUM_THREADS");
            throw new IllegalStateException("the run computes with " + threads + " threads per rank, but ND4J's"
                    + " thread pool has " + pool + " (" + (env == null ? "OMP_NUM_THREADS unset: this machine's cores"
                    : "OMP_NUM_THREADS=" + env) + " when this JVM started; ND4J sizes it once): start the JVM with"
                    + " OMP_NUM_THREADS=" + threads + " or compute with at most " + pool);
        }
        runThreads = threads;
        // libnd4j's own parallel loops (samediff::Threads) take this many of the pool's threads, whichever thread asks
        Nd4j.getEnvironment().setMaxMasterThreads(threads);
        // OpenBLAS's count is the process's, not the thread's
        Nd4j.factory().blas().setMaxThreads(threads);
        adopt();
    }

    /** Sets this thread's OpenMP count to the run's; does nothing before a trainer was built. */
    public static void adopt() {
        int n = runThreads;
        if (n > 0) {
            onThisThread(n);
        }
    }

    /**
     * Sets this thread's OpenMP count to {@code threads}, leaving the run's alone: for work that measures a pass as a
     * run would compute it (the advisor's compute probe).
     */
    public static void onThisThread(int threads) {
        NativeOpsHolder.getInstance().getDeviceNativeOps().setOmpNumThreads(threads);
    }

    /** @return the count threads of a run compute with, or 0 before a trainer was built in this process */
    public static int current() {
        return runThreads;
    }

    /** @return the threads OpenBLAS computes a product with, in the whole process */
    public static int blas() {
        return Nd4j.factory().blas().getMaxThreads();
    }

    /** @return the threads of ND4J's own pool, fixed when its native library loaded */
    public static int pool() {
        return Nd4j.getEnvironment().maxThreads();
    }
}

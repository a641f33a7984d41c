package io.lgc4j.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

/**
 * Runs the endpoints of one barrier task: its rank on the task's own thread and, when the task also hosts a
 * co-located parameter-server shard, the shard on a daemon thread of its own ({@code lgc-spark-shard-E}). Both must
 * run at once: each waits for the other in the task's one allGather and then in every step.
 */
final class TaskEndpoints {

    /** One endpoint's training, given its index in the task's endpoints and its endpoint number. */
    @FunctionalInterface
    interface EndpointRun<T> {
        /** Trains endpoint {@code endpoint}, the task's {@code index}-th. */
        T run(int index, int endpoint) throws IOException;
    }

    private TaskEndpoints() {
    }

    /**
     * Runs {@code endpoints} (one or two: a rank, then its co-located shard) and returns the first one's result once
     * both have ended.
     *
     * @throws IllegalStateException naming the shard when the shard failed
     */
    static <T> T run(int[] endpoints, EndpointRun<T> run) {
        FutureTask<T> shard = null;
        if (endpoints.length == 2) {
            shard = new FutureTask<>(() -> run.run(1, endpoints[1]));
            Thread thread = new Thread(shard, "lgc-spark-shard-" + endpoints[1]);
            thread.setDaemon(true);
            thread.start();
        }
        try {
            T result = run.run(0, endpoints[0]);
            if (shard != null) {
                shard.get();
            }
            return result;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the co-located shard finished", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("parameter-server shard " + endpoints[1] + " failed: "
                    + e.getCause().getMessage(), e.getCause());
        }
    }
}

package io.lgc4j.lgc.autoencoder;

import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.compute.Nd4jThreads;

import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The one thread on which an endpoint uses its autoencoder, so that training leaves the critical path: the owner
 * {@link #submit submits} a training step and goes on; every other use ({@link #call}: encode, decode, the encoder's
 * bytes, a save) runs on the same thread after everything submitted before it, so a run computes the same bits as
 * in place. A task that throws fails the lane: the next {@link #submit}, {@link #call} or {@link #drain} rethrows
 * its error, naming what failed. The thread is a daemon that ends when idle and is made again on use: no closing.
 *
 * <pre>{@code
 * AutoencoderLane lane = new AutoencoderLane("lgc-ae-server-4");
 * Ticket trained = lane.submit("training step " + s, () -> trainer.step(compacts)); // returns at once
 * byte[] encoder = lane.call("the encoder's bytes", autoencoder::encoderBytes); // after that training step
 * }</pre>
 */
public final class AutoencoderLane {
    /** The lane's thread, or null for a lane that runs every use in place ({@link #inPlace()}). */
    private final ThreadPoolExecutor thread;
    private volatile Failure failure;
    /** The steps' tasks no one has waited for yet ({@link #submitStep}), by step; the owner's thread only. */
    private final NavigableMap<Integer, Ticket> steps = new TreeMap<>();

    private record Failure(String what, Throwable error) {
    }

    /** A lane whose thread is named {@code name}. */
    public AutoencoderLane(String name) {
        this.thread = new ThreadPoolExecutor(1, 1, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(() -> {
                Nd4jThreads.adopt(); // the autoencoder's ops: the run's count, as its ranks'
                r.run();
            }, name);
            t.setDaemon(true);
            return t;
        });
        thread.allowCoreThreadTimeOut(true);
    }

    private AutoencoderLane() {
        this.thread = null;
    }

    /**
     * A lane that runs every use in place, on the caller's thread, when it is made: for an owner that never trains
     * its autoencoder (a ring rank that only encodes and decodes with shipped weights), so its code reads the same.
     */
    public static AutoencoderLane inPlace() {
        return new AutoencoderLane();
    }

    /**
     * Runs {@code task} after everything submitted before, without waiting for it.
     *
     * @param what what the task does, for the error if it fails
     * @return the task's ticket, to wait for it (and for everything submitted before it)
     * @throws IllegalStateException when an earlier task failed
     */
    public Ticket submit(String what, Runnable task) {
        requireHealthy();
        Runnable guarded = () -> {
            if (failure != null) {
                return;
            }
            try {
                task.run();
            } catch (RuntimeException | Error e) {
                failure = new Failure(what, e);
            }
        };
        if (thread == null) {
            guarded.run();
            return new Ticket(what, CompletableFuture.completedFuture(null));
        }
        return new Ticket(what, thread.submit(guarded));
    }

    /**
     * As {@link #submit}, for the work of step {@code step} (its training step, which notes the step's losses), so
     * that {@link #awaitStep} can wait for it.
     */
    public void submitStep(int step, String what, Runnable task) {
        steps.put(step, submit(what, task));
    }

    /**
     * Waits until the work {@link #submitStep submitted} for every step up to {@code step} has run (the lane runs in
     * order: the last such task suffices), not for later steps' work.
     *
     * @throws IllegalStateException when a task failed
     */
    public void awaitStep(int step) {
        Map.Entry<Integer, Ticket> last = steps.floorEntry(step);
        if (last != null) {
            last.getValue().await();
            steps.headMap(step, true).clear();
        }
    }

    /** Work that restores state from a checkpoint. */
    @FunctionalInterface
    public interface Restore {
        /** Restores; throws what a restore throws. */
        void run() throws CheckpointException;
    }

    /**
     * Runs {@code restore} as {@link #call(String, Runnable)} does, passing its {@link CheckpointException} on.
     *
     * @throws CheckpointException as {@code restore} throws it
     */
    public void restore(Restore restore) throws CheckpointException {
        CheckpointException refused = call("restoring the autoencoder", () -> {
            try {
                restore.run();
                return null;
            } catch (CheckpointException e) {
                return e;
            }
        });
        if (refused != null) {
            throw refused;
        }
    }

    /** A task submitted to the lane. */
    public final class Ticket {
        private final String what;
        private final Future<?> done;

        private Ticket(String what, Future<?> done) {
            this.what = what;
            this.done = done;
        }

        /**
         * Waits until this task and everything submitted before it have run.
         *
         * @throws IllegalStateException when one of them failed
         */
        public void await() {
            try {
                done.get();
            } catch (ExecutionException e) {
                throw new IllegalStateException("the autoencoder failed in " + what + ": " + e.getCause(),
                        e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the autoencoder (" + what + ")", e);
            }
            requireHealthy();
        }
    }

    /**
     * Runs {@code use} after everything submitted before and returns its result.
     *
     * @param what what the use does, for the error if it fails
     * @throws IllegalStateException when it or an earlier task failed
     */
    public <T> T call(String what, Supplier<T> use) {
        requireHealthy();
        if (thread == null) {
            return use.get();
        }
        Future<T> result = thread.submit(() -> {
            requireHealthy(); // nothing runs after a failed task
            return use.get();
        });
        try {
            return result.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException("the autoencoder failed in " + what + ": " + cause, cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the autoencoder (" + what + ")", e);
        } finally {
            requireHealthy();
        }
    }

    /** Runs {@code use} as {@link #call(String, Supplier)} does. */
    public void call(String what, Runnable use) {
        call(what, () -> {
            use.run();
            return null;
        });
    }

    /**
     * Waits until everything submitted so far has run.
     *
     * @throws IllegalStateException when a task failed
     */
    public void drain() {
        call("waiting for the autoencoder", () -> {
        });
    }

    private void requireHealthy() {
        Failure f = failure;
        if (f != null) {
            throw new IllegalStateException("the autoencoder failed in " + f.what() + ": " + f.error(), f.error());
        }
    }
}

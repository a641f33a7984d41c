package io.lgc4j.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs the parties of one configuration (the ranks of a ring, a sender and a receiver, ...) each on its own thread,
 * through three phases separated by barriers: one probe step, warm-up steps (as many as fill the warm-up time at
 * the probe's pace), then measured steps (as many as fill the measuring time at the warm-up's pace, at least the
 * minimum; a measurement that falls short of 90 % of the time is taken again at its own pace, up to three times). Between phases every party waits, so the process's CPU time and every thread's allocated bytes are read
 * while nothing runs, and the measured threads are still alive when they are read.
 *
 * <p>Steps run back to back within a phase, as in training; the time of one operation is the interval between
 * consecutive step completions on the recording party (its first step counts from the phase's start).
 *
 * <pre>{@code
 * Lockstep.Result r = Lockstep.run("ring K=2", List.of(rank0, rank1), 0, budget, fabric::close);
 * }</pre>
 */
final class Lockstep {

    /** One party: runs steps {@code first .. first+count-1}, noting each completion time in {@code ends} if given. */
    @FunctionalInterface
    interface Party {
        void steps(int first, int count, long[] ends) throws Exception;
    }

    /**
     * How long to run.
     *
     * @param warmupSeconds  warm-up time per configuration (at least one step)
     * @param measureSeconds measured time per configuration
     * @param minSteps       fewest measured steps, whatever the time
     * @param maxSteps       most measured (and warm-up) steps
     */
    record Budget(double warmupSeconds, double measureSeconds, int minSteps, int maxSteps) {
        Budget {
            if (!(warmupSeconds >= 0) || !(measureSeconds > 0)) {
                throw new IllegalArgumentException("warmupSeconds must be >= 0 and measureSeconds > 0, found "
                        + warmupSeconds + " and " + measureSeconds);
            }
            if (minSteps < 1 || maxSteps < minSteps) {
                throw new IllegalArgumentException("minSteps must be >= 1 and <= maxSteps, found " + minSteps
                        + " and " + maxSteps);
            }
        }

        /** Steps that fill {@code seconds} at {@code nanosPerStep}, within [lowest, maxSteps]. */
        int steps(double seconds, double nanosPerStep, int lowest) {
            double wanted = Math.ceil(seconds * 1e9 / Math.max(1, nanosPerStep));
            return (int) Math.max(lowest, Math.min(maxSteps, wanted));
        }
    }

    /**
     * The measured phase.
     *
     * @param steps     measured steps
     * @param wallNanos from the release of the measured phase to the last party's arrival after it
     * @param stepNanos each step's time on the recording party, in order
     * @param spent     process CPU and heap bytes allocated by all threads over the measured phase
     */
    record Result(int steps, long wallNanos, long[] stepNanos, ResourceUsage.Delta spent) {
    }

    /** A measurement shorter than this share of the measuring time is repeated, planned at its own pace ... */
    private static final double SHORT_FRACTION = 0.9;
    /** ... at most this many times in all. */
    private static final int MAX_ATTEMPTS = 3;
    /** Longest a phase may take before the configuration is declared stuck. */
    private static final long PHASE_TIMEOUT_SECONDS = 600;

    private Lockstep() {
    }

    /**
     * Runs {@code parties} through probe, warm-up and measurement.
     *
     * @param name      the configuration, for thread names and messages
     * @param recorder  index of the party whose step completions give the per-step times
     * @param onFailure called when a party fails or a phase times out, to wake parties blocked on the others
     *                  (closing the transports); the failure is then thrown
     */
    static Result run(String name, List<Party> parties, int recorder, Budget budget, Runnable onFailure) {
        Phases phases = new Phases(parties.size(), budget.maxSteps());
        List<Thread> threads = new ArrayList<>(parties.size());
        for (int p = 0; p < parties.size(); p++) {
            Party party = parties.get(p);
            boolean records = p == recorder;
            Thread t = new Thread(() -> phases.take(party, records), "bench-" + name + "-" + p);
            t.setDaemon(true);
            threads.add(t);
        }
        threads.forEach(Thread::start);
        try {
            return phases.drive(budget, threads);
        } catch (BrokenBarrierException | TimeoutException | InterruptedException e) {
            boolean partyFailed = phases.failure.get() != null;
            // A party's failure interrupts this thread: that interrupt is consumed here; any other is kept.
            boolean interrupted = Thread.interrupted() || e instanceof InterruptedException;
            onFailure.run();
            join(threads);
            if (interrupted && !partyFailed) {
                Thread.currentThread().interrupt();
            }
            Throwable cause = partyFailed ? phases.failure.get() : e;
            throw new IllegalStateException(name + " failed: " + cause, cause);
        }
    }

    /**
     * The phases of one run as the parties and the driver (the thread of {@link #run}) share them: the barrier
     * between phases, the plan the driver writes between barriers (warm-up steps, then measured steps: 0 when the
     * last measurement was long enough), the recording party's step completions, and the first failure.
     */
    private static final class Phases {
        private final CyclicBarrier barrier;
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        /** Warm-up steps, measured steps: written by the driver between barriers. */
        private final int[] plan = new int[2];
        private final long[] measuredEnds;
        private final long[] measuredStart = new long[1];
        private final Thread driver = Thread.currentThread();

        Phases(int parties, int maxSteps) {
            barrier = new CyclicBarrier(parties + 1);
            measuredEnds = new long[maxSteps];
        }

        /** A party's side: the probe step, the warm-up, then measurements until the plan says 0. */
        void take(Party party, boolean records) {
            try {
                barrier.await();
                party.steps(0, 1, null);
                barrier.await();
                barrier.await();
                int warm = plan[0];
                party.steps(1, warm, null);
                barrier.await();
                int next = 1 + warm;
                while (true) {
                    barrier.await();
                    int measured = plan[1];
                    if (measured == 0) {
                        break; // the last measurement was long enough
                    }
                    if (records) {
                        measuredStart[0] = System.nanoTime();
                    }
                    party.steps(next, measured, records ? measuredEnds : null);
                    next += measured;
                    barrier.await();
                    barrier.await(); // alive until the resources are read
                }
            } catch (BrokenBarrierException e) {
                // another party failed: its failure is the one reported
            } catch (Throwable e) {
                // The first failure wins; interrupting the driver wakes it wherever it waits.
                if (failure.compareAndSet(null, e)) {
                    driver.interrupt();
                }
                barrier.reset();
            }
        }

        /**
         * The driver's side: times the probe step to plan the warm-up, the warm-up to plan the measurement, measures
         * ({@link #measure}), then lets the parties end and joins them.
         */
        Result drive(Budget budget, List<Thread> threads)
                throws BrokenBarrierException, TimeoutException, InterruptedException {
            await(barrier);
            long probeStart = System.nanoTime();
            await(barrier);
            long probe = System.nanoTime() - probeStart;
            plan[0] = budget.steps(budget.warmupSeconds(), probe, 1);
            await(barrier);
            long warmStart = System.nanoTime();
            await(barrier);
            double perStep = (double) (System.nanoTime() - warmStart) / plan[0];
            Measured measured = measure(budget, perStep);
            plan[1] = 0;
            await(barrier);
            long[] stepNanos = new long[measured.steps()];
            long previous = measuredStart[0];
            for (int i = 0; i < stepNanos.length; i++) {
                stepNanos[i] = measuredEnds[i] - previous;
                previous = measuredEnds[i];
            }
            join(threads);
            return new Result(measured.steps(), measured.wallNanos(), stepNanos, measured.spent());
        }

        /**
         * The measured phase, planned at {@code perStep} nanoseconds a step; taken again at its own pace when it fell
         * short of the time, up to {@value Lockstep#MAX_ATTEMPTS} times in all.
         */
        private Measured measure(Budget budget, double perStep)
                throws BrokenBarrierException, TimeoutException, InterruptedException {
            long wall;
            ResourceUsage.Delta spent;
            int steps;
            int attempt = 0;
            while (true) {
                steps = budget.steps(budget.measureSeconds(), perStep, budget.minSteps());
                plan[1] = steps;
                ResourceUsage before = ResourceUsage.now();
                await(barrier);
                long start = System.nanoTime();
                await(barrier);
                wall = System.nanoTime() - start;
                spent = ResourceUsage.now().since(before);
                await(barrier);
                attempt++;
                // Warm-up may run slower than the steady state (JIT): a measurement that fell short of the time
                // counts as more warm-up, and the next one is planned at its pace.
                if (wall >= SHORT_FRACTION * budget.measureSeconds() * 1e9 || steps >= budget.maxSteps()
                        || attempt >= MAX_ATTEMPTS) {
                    return new Measured(steps, wall, spent);
                }
                perStep = (double) wall / steps;
            }
        }
    }

    /** The last measurement of the measured phase: its steps, its wall time and what it spent. */
    private record Measured(int steps, long wallNanos, ResourceUsage.Delta spent) {
    }

    private static void await(CyclicBarrier barrier)
            throws BrokenBarrierException, TimeoutException, InterruptedException {
        barrier.await(PHASE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    private static void join(List<Thread> threads) {
        for (Thread t : threads) {
            try {
                t.join(TimeUnit.SECONDS.toMillis(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}

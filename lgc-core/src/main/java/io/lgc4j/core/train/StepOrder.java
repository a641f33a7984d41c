package io.lgc4j.core.train;

import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.comm.StepTag;
import io.lgc4j.core.comm.TransportClosedException;
import io.lgc4j.core.compute.Nd4jThreads;
import io.lgc4j.core.metrics.Phase;
import io.lgc4j.core.metrics.PhaseClock;
import io.lgc4j.core.stage.Stage;

import org.nd4j.linalg.api.ndarray.INDArray;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * When a rank's step computes its gradient, exchanges it and applies the mean: one order per {@link Overlap} mode.
 * The rank loop asks for the step's gradient ({@link #gradient}), exchanges it unless it came exchanged, then hands
 * the mean back ({@link #update}); what runs beside what, and what a checkpoint must carry for it, is the order's.
 *
 * <ul>
 *   <li>{@link Immediate} ({@link Overlap#NONE}): pass, exchange, apply, in turn.</li>
 *   <li>{@link ExchangeBeside} ({@link Overlap#BACKWARD}): the exchange runs beside the backward pass.</li>
 *   <li>{@link ComputeAhead} ({@link Overlap#DELAYED}, {@link Overlap#PREDICTED}): the next step's pass runs while
 *       this step's mean is exchanged; the mean is applied one step late.</li>
 * </ul>
 */
abstract sealed class StepOrder implements AutoCloseable permits StepOrder.Immediate, ComputeAhead {

    /** Rank step {@code s}: its tag and what it does besides training. */
    record Step(int s, Stage stage, StepTag tag, boolean epochEnd, boolean last, boolean evaluates, boolean saves,
                boolean traced) {
    }

    /**
     * The order for the run's overlap mode. The diagnostic mode measures each rank's offer before the exchange, so
     * it exchanges after the pass even when {@link Overlap#BACKWARD} is asked for.
     */
    static StepOrder of(RankLoop.Run run, boolean diagnosed, RankCompute compute, GradientExchange exchange,
                        ControlPlane link) {
        if (run.spec().aggregation().overlap().delaysApplication()) {
            return new ComputeAhead(compute, run.spec().aggregation().overlap() == Overlap.PREDICTED);
        }
        if (run.spec().aggregation().overlap() == Overlap.BACKWARD && !diagnosed) {
            return new ExchangeBeside(run, compute, exchange, link);
        }
        return new Immediate(compute, exchange, link);
    }

    /** Step {@code step}'s gradient; {@link RankCompute.Computed#exchanged()} when it is already the mean. */
    abstract RankCompute.Computed gradient(Step step, PhaseClock clock);

    /**
     * After the step's exchange: the mean applied (or kept to be applied later), and this rank's share of the
     * evaluation when the step evaluates (null otherwise).
     */
    abstract RunReport.Evaluated update(Step step, float[] mean, PhaseClock clock);

    /** After the step has been reported (and its checkpoint part written). */
    void afterReport(Step step) {
    }

    /** Rank 0, into its checkpoint part: what this order holds across steps beside the replica. */
    void save(CheckpointPart.Builder part) {
    }

    /** Every rank, from rank 0's checkpoint part: what {@link #save} wrote. */
    void restore(CheckpointPart rank0) throws CheckpointException {
    }

    /** Stops any thread the order runs; a computation or exchange still running (a failed step's) is waited for. */
    @Override
    public void close() {
    }

    /**
     * The one daemon thread an order runs beside the rank's, named {@code name}: it runs {@code first} (e.g. the trace
     * track it records on), then computes with the run's ND4J threads ({@link Nd4jThreads#adopt}).
     */
    static ExecutorService besideTheRank(String name, Runnable first) {
        return Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(() -> {
                first.run();
                Nd4jThreads.adopt();
                r.run();
            }, name);
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * What {@code work} (rank {@code rank}'s step {@code s}'s {@code what}, run on a thread of the rank's) came to:
     * its result, or what it threw, thrown here as it was.
     */
    static <T> T outcome(Future<T> work, int rank, int s, String what) {
        try {
            return work.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TransportClosedException("rank " + rank + " was interrupted waiting for step " + s + "'s "
                    + what);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException("rank " + rank + " step " + s + ": " + e.getCause(), e.getCause());
        }
    }

    /** Pass, exchange, apply, in turn; the one order local SGD's averaging runs in. */
    static sealed class Immediate extends StepOrder permits ExchangeBeside {
        final RankCompute compute;
        final GradientExchange exchange;
        private final ControlPlane link;
        /** The gradient array of the step before, reused. */
        float[] gradient;

        Immediate(RankCompute compute, GradientExchange exchange, ControlPlane link) {
            this.compute = compute;
            this.exchange = exchange;
            this.link = link;
        }

        @Override
        RankCompute.Computed gradient(Step step, PhaseClock clock) {
            RankCompute.Computed computed = compute.pass(step.s(), clock, gradient, null, null);
            gradient = computed.gradient();
            return computed;
        }

        @Override
        RunReport.Evaluated update(Step step, float[] mean, PhaseClock clock) {
            compute.apply(mean, clock);
            if (exchange.averagesParameters(step.tag())) {
                averageParameters(step.tag(), clock);
            }
            if (step.epochEnd()) {
                compute.replica().endEpoch();
            }
            return step.evaluates() ? compute.evaluate(clock) : null;
        }

        /**
         * Local SGD: this rank's parameters, after the step's update, replaced by their mean over the ranks
         * ({@link GradientExchange#averageParameters}), so that every replica holds the same bits again. The copies
         * out and back count as communicate; the averaging times its own phases.
         */
        private void averageParameters(StepTag tag, PhaseClock clock) {
            clock.enter(Phase.COMMUNICATE);
            INDArray own = compute.replica().params();
            float[] params = new float[Math.toIntExact(own.length())];
            HostCopy.toHeap(own, params);
            exchange.averageParameters(tag, params, clock);
            clock.enter(Phase.COMMUNICATE);
            HostCopy.fromHeap(params, own);
            link.releaseReceived(); // every frame of the averaging is decoded
        }
    }
}

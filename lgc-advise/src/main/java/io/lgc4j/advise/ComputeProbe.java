package io.lgc4j.advise;

import io.lgc4j.core.compute.ComputeSettings;
import io.lgc4j.core.compute.Nd4jThreads;
import io.lgc4j.core.data.DataSource;
import io.lgc4j.core.data.Shard;
import io.lgc4j.core.train.ReplicaModel;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.Objects;

/**
 * The compute of a step of the user's model on this process, and a gradient per rank to dry-run the methods on
 * ({@code docs/design/advise.md} §2.3). It runs on a throwaway copy of the model (passes on the training replica would
 * move batch-norm statistics and iteration counts), on rank r's first batch of epoch 0 for rank r's gradient, exactly
 * as a run's first step reads it; a few passes first warm the JIT and ND4J's workspaces, then every rank's batch is
 * timed in turn, twice, back to back, so the process's CPU quota is spent as in a run. Last, one forward pass alone
 * and a few applications of the updater are timed.
 *
 * <pre>{@code
 * ComputeProbe.Result probe = ComputeProbe.measure(model, source, 4, 32, 42, ComputeSettings.DEFAULT);
 * probe.busyMs();        // forward + backward of one batch, the mean after the first
 * probe.gradients()[2];  // rank 2's gradient of its first batch
 * }</pre>
 */
public final class ComputeProbe {

    /** Passes before any is timed: the JIT and ND4J's workspaces settle (fewer leave the first timed 2-3× slow). */
    static final int WARMUP_PASSES = 6;
    /** ... and at least this long, up to {@link #MAX_WARMUP_PASSES} passes. */
    static final long WARMUP_NANOS = 2_000_000_000L;
    static final int MAX_WARMUP_PASSES = 60;
    /** Timed rounds over the ranks' batches. */
    static final int ROUNDS = 2;
    /** Updates timed (on the throwaway copy). */
    static final int APPLIES = 8;

    private ComputeProbe() {
    }

    /**
     * What the probe measured.
     *
     * @param freshMs   the first timed pass (after the warm-up passes), ms
     * @param busyMs    the mean of the other timed passes, ms
     * @param forwardMs a forward pass alone on rank 0's batch, ms: the backward pass is about
     *                  {@code busyMs − forwardMs}
     * @param applyMs   the model's updater applying one mean gradient, ms
     * @param passCpuMs the CPU time of one pass (the mean of the timed ones), ms: what the pass costs at one
     *                  core whatever the process's quota; a quota of q cores stretches it to at least
     *                  {@code passCpuMs / q} of wall time when nothing else lets the quota refill
     * @param applyCpuMs the CPU time of the update, ms
     * @param warmupCpuMs what the warm-up passes cost beyond as many steady ones, ms of CPU: the JIT compiling the
     *                  pass, which a run pays in its first steps (where the quota binds, as a one-off)
     * @param gradients per rank, the flattened gradient of its first batch (a sum over the batch, as DL4J gives it)
     */
    public record Result(double freshMs, double busyMs, double forwardMs, double applyMs, double passCpuMs,
                         double applyCpuMs, double warmupCpuMs, float[][] gradients) {
        /** Checks the times. */
        public Result {
            Objects.requireNonNull(gradients, "gradients");
            if (!(freshMs >= 0 && busyMs >= 0 && forwardMs >= 0 && applyMs >= 0 && passCpuMs >= 0
                    && applyCpuMs >= 0 && warmupCpuMs >= 0)) {
                throw new IllegalArgumentException("times are >= 0 ms, found " + freshMs + ", " + busyMs + ", "
                        + forwardMs + ", " + applyMs + ", " + passCpuMs + ", " + applyCpuMs + ", " + warmupCpuMs);
            }
        }

        /** The backward pass: {@code busyMs − forwardMs}, at least 0. */
        public double backwardMs() {
            return Math.max(0, busyMs - forwardMs);
        }
    }

    /**
     * Measures {@code model} (left untouched) on {@code data}'s first batch of each of {@code workers} ranks.
     *
     * @throws IOException              when the data cannot be read
     * @throws IllegalArgumentException when a rank's shard has no full batch in epoch 0
     */
    public static Result measure(Model model, DataSource data, int workers, int batchSize, long seed,
                                 ComputeSettings compute) throws IOException {
        return measure(model, data, workers, batchSize, seed, compute, -1);
    }

    /**
     * As {@link #measure(Model, DataSource, int, int, long, ComputeSettings)}; with {@code onlyRank >= 0} every
     * rank's batch is rank {@code onlyRank}'s (a source that reaches its own rank's rows only, a Spark task's): the
     * dry run then sees K copies of one gradient, so a method whose ranks' supports differ sends less in it than in a
     * run.
     */
    public static Result measure(Model model, DataSource data, int workers, int batchSize, long seed,
                                 ComputeSettings compute, int onlyRank) throws IOException {
        ReplicaModel replica = ReplicaModel.wrap(model).copy(compute);
        Nd4jThreads.onThisThread(compute.threads()); // the passes a run's ranks would make
        DataSet[] batches = new DataSet[workers];
        for (int r = 0; r < workers; r++) {
            batches[r] = onlyRank >= 0 && r > 0 ? batches[0]
                    : firstBatch(data, onlyRank >= 0 ? onlyRank : r, workers, batchSize, seed);
        }
        // the JIT compiles for the first passes, on threads whose CPU the quota also charges: warm up long enough
        long warm = System.nanoTime() + WARMUP_NANOS;
        long warmCpu = cpuNanos();
        int warmPasses = 0;
        for (; warmPasses < WARMUP_PASSES || (warmPasses < MAX_WARMUP_PASSES && System.nanoTime() < warm);
             warmPasses++) {
            pass(replica, batches[warmPasses % workers]);
        }
        double warmupCpuMs = (cpuNanos() - warmCpu) / 1e6;
        float[][] gradients = new float[workers][];
        double[] ms = new double[ROUNDS * workers];
        // CPU time may be counted in scheduler ticks (10 ms here): read it over all passes, not one
        long cpu0 = cpuNanos();
        for (int i = 0; i < ms.length; i++) {
            int r = i % workers;
            long t0 = System.nanoTime();
            pass(replica, batches[r]);
            float[] g = replica.gradient().dup().data().asFloat();
            ms[i] = (System.nanoTime() - t0) / 1e6;
            if (i < workers) {
                gradients[r] = g;
            }
        }
        double passCpuMs = (cpuNanos() - cpu0) / 1e6 / ms.length;
        long t0 = System.nanoTime();
        forward(replica.model(), batches[0]);
        double forwardMs = (System.nanoTime() - t0) / 1e6;
        long c0 = cpuNanos();
        t0 = System.nanoTime();
        for (int i = 0; i < APPLIES; i++) {
            replica.applyGradient(gradients[i % workers], batchSize);
        }
        double applyMs = (System.nanoTime() - t0) / 1e6 / APPLIES;
        double applyCpuMs = (cpuNanos() - c0) / 1e6 / APPLIES;
        return new Result(ms[0], Arrays.stream(ms, 1, ms.length).average().orElseThrow(), forwardMs, applyMs,
                passCpuMs, applyCpuMs, Math.max(0, warmupCpuMs - warmPasses * passCpuMs), gradients);
    }

    /**
     * Rank {@code rank}'s forward and backward pass of its first batch on a throwaway copy of {@code model}, warmed
     * up ({@value #WARMUP_PASSES} passes first): what an advise session's loaded rounds run on every worker
     * ({@link AdviseSession}).
     *
     * @throws IOException              when the data cannot be read
     * @throws IllegalArgumentException when the rank's shard has no full batch in epoch 0
     */
    public static Runnable warmedPass(Model model, DataSource data, int rank, int workers, int batchSize, long seed,
                                      ComputeSettings compute) throws IOException {
        ReplicaModel replica = ReplicaModel.wrap(model).copy(compute);
        DataSet batch = firstBatch(data, rank, workers, batchSize, seed);
        for (int i = 0; i < WARMUP_PASSES; i++) {
            pass(replica, batch);
        }
        return () -> pass(replica, batch);
    }

    private static DataSet firstBatch(DataSource data, int rank, int workers, int batchSize, long seed)
            throws IOException {
        DataSetIterator it = data.open(new Shard(rank, workers, batchSize, 0, 0, seed));
        if (!it.hasNext()) {
            throw new IllegalArgumentException("rank " + rank + " of " + workers + " has no batch of " + batchSize
                    + " examples in epoch 0 (" + data.describe() + ")");
        }
        return it.next();
    }

    /**
     * The CPU time of every thread of this process, ns: a CFS quota charges them all (ND4J's native threads, the
     * collector, the JIT), so this is what the quota stretches.
     */
    private static long cpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        throw new IllegalStateException("this JVM reports no process CPU time (com.sun.management"
                + ".OperatingSystemMXBean): the compute probe needs it");
    }

    private static void pass(ReplicaModel replica, DataSet batch) {
        replica.computeGradient(batch.getFeatures(), batch.getLabels());
    }

    private static void forward(Model model, DataSet batch) {
        if (model instanceof MultiLayerNetwork net) {
            net.output(batch.getFeatures(), false);
        } else if (model instanceof ComputationGraph graph) {
            graph.output(false, batch.getFeatures());
        }
    }
}

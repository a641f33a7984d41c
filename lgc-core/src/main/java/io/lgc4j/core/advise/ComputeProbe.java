package io.lgc4j.core.advise;

import io.lgc4j.core.compute.ComputeSettings;
import io.lgc4j.core.data.DataSource;
import io.lgc4j.core.data.Shard;
import io.lgc4j.core.train.ReplicaModel;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;

import java.io.IOException;
import java.util.Arrays;
import java.util.Objects;

/**
 * The compute of a step of the user's model on this process, and a gradient per rank to dry-run the methods on
 * ({@code docs/design/advise.md} §2.3). It runs on a throwaway copy of the model (passes on the training replica would
 * move batch-norm statistics and iteration counts), on rank r's first batch of epoch 0 for rank r's gradient, exactly
 * as a run's first step reads it; two passes first warm the JIT and ND4J's workspaces, then every rank's batch is
 * timed in turn, back to back, so the process's CPU quota is spent as in a run.
 *
 * <pre>{@code
 * ComputeProbe.Result probe = ComputeProbe.measure(model, source, 4, 32, 42, ComputeSettings.DEFAULT);
 * probe.busyMs();        // forward + backward of one batch, the mean after the first
 * probe.gradients()[2];  // rank 2's gradient of its first batch
 * }</pre>
 */
public final class ComputeProbe {

    private static final int WARMUP_PASSES = 2;

    private ComputeProbe() {
    }

    /**
     * What the probe measured.
     *
     * @param freshMs   the first timed pass (after the warm-up passes), ms
     * @param busyMs    the mean of the other timed passes, ms (equal to {@code freshMs} with one worker)
     * @param forwardMs a forward pass alone on rank 0's batch, ms: the backward pass is about {@code busyMs − forwardMs}
     * @param gradients per rank, the flattened gradient of its first batch (a sum over the batch, as DL4J gives it)
     */
    public record Result(double freshMs, double busyMs, double forwardMs, float[][] gradients) {
        /** Checks the times. */
        public Result {
            Objects.requireNonNull(gradients, "gradients");
            if (!(freshMs >= 0 && busyMs >= 0 && forwardMs >= 0)) {
                throw new IllegalArgumentException("times are >= 0 ms, found " + freshMs + ", " + busyMs + ", "
                        + forwardMs);
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
        ReplicaModel replica = ReplicaModel.wrap(model).copy(compute);
        DataSet[] batches = new DataSet[workers];
        for (int r = 0; r < workers; r++) {
            DataSetIterator it = data.open(new Shard(r, workers, batchSize, 0, 0, seed));
            if (!it.hasNext()) {
                throw new IllegalArgumentException("rank " + r + " of " + workers + " has no batch of " + batchSize
                        + " examples in epoch 0 (" + data.describe() + ")");
            }
            batches[r] = it.next();
        }
        for (int i = 0; i < WARMUP_PASSES; i++) {
            pass(replica, batches[i % workers]);
        }
        float[][] gradients = new float[workers][];
        double[] ms = new double[workers];
        for (int r = 0; r < workers; r++) {
            long t0 = System.nanoTime();
            pass(replica, batches[r]);
            gradients[r] = replica.gradient().dup().data().asFloat();
            ms[r] = (System.nanoTime() - t0) / 1e6;
        }
        long t0 = System.nanoTime();
        forward(replica.model(), batches[0]);
        double forwardMs = (System.nanoTime() - t0) / 1e6;
        double busy = workers == 1 ? ms[0] : Arrays.stream(ms, 1, workers).average().orElseThrow();
        return new Result(ms[0], busy, forwardMs, gradients);
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

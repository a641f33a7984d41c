package io.lgc4j.bench;

import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.sparse.TopK;
import io.lgc4j.core.train.ReplicaModel;
import io.lgc4j.core.train.ShardPlan;
import io.lgc4j.data.LabeledImages;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Records what the LGC autoencoder trains on (the TOP_K stage): the K ranks' compact vectors on the leader's support,
 * step by step, from real data-parallel training. After {@code warmup} dense steps, each step's leader (drawn from
 * the run seed) selects the top entries of its error-feedback accumulator per {@link LayerPolicy#LEARNED} block and
 * every rank gathers its accumulator there; the model applies the mean. One model computes all K gradients in turn
 * (the replicas of a real run stay identical). The full step rule, low-pass memory included:
 * {@code docs/architecture/lgc.md}.
 *
 * <pre>{@code
 * try (CompactVectorFile.Writer out = CompactVectorFile.create(path, 4, mu, 300)) {
 *     CompactVectorRecorder.record(model, train, CompactVectorRecorder.Settings.DEFAULT,
 *             (step, leader, compacts) -> out.append(leader, compacts), System.out);
 * }
 * }</pre>
 */
public final class CompactVectorRecorder {

    /** Salt that keeps the leader draw independent of the data order, which uses the same seed. */
    private static final long LEADER_SALT = 0x6C656164L;

    private CompactVectorRecorder() {
    }

    /**
     * How to record.
     *
     * @param workers K, ranks per step
     * @param batch   examples per rank per step
     * @param warmup  dense steps before recording
     * @param steps   recorded steps
     * @param ratio   share of each LEARNED block selected, in (0, 1]
     * @param seed    drives the model's initialization, the data order and the leader draw
     * @param lowPass the accumulators' low-pass factor β in (0, 1]; 1 = plain error feedback
     */
    public record Settings(int workers, int batch, int warmup, int steps, double ratio, long seed, double lowPass) {

        /** K = 4, batch 32, 200 warm-up steps, 300 recorded steps, ratio 0.001, seed 42, plain error feedback. */
        public static final Settings DEFAULT = new Settings(4, 32, 200, 300, 0.001, 42);

        /** Plain error feedback (β = 1). */
        public Settings(int workers, int batch, int warmup, int steps, double ratio, long seed) {
            this(workers, batch, warmup, steps, ratio, seed, 1.0);
        }

        /** Rejects counts out of range, naming the field and the value. */
        public Settings {
            if (workers < 1 || workers > CompactVectorFile.MAX_RANKS) {
                throw new IllegalArgumentException("workers must be in [1, " + CompactVectorFile.MAX_RANKS
                        + "], got " + workers);
            }
            if (batch < 1) {
                throw new IllegalArgumentException("batch must be >= 1, got " + batch);
            }
            if (warmup < 0) {
                throw new IllegalArgumentException("warmup must be >= 0, got " + warmup);
            }
            if (steps < 1) {
                throw new IllegalArgumentException("steps must be >= 1, got " + steps);
            }
            if (!(ratio > 0 && ratio <= 1)) {
                throw new IllegalArgumentException("ratio must be in (0, 1], got " + ratio);
            }
            if (!(lowPass > 0 && lowPass <= 1)) {
                throw new IllegalArgumentException("lowPass must be in (0, 1], got " + lowPass);
            }
        }
    }

    /** Receives each recorded step. */
    @FunctionalInterface
    public interface Sink {
        /**
         * @param step     recorded step, from 0
         * @param leader   the rank whose accumulator chose the support
         * @param compacts the K compact vectors, rank order (owned by the sink from now on)
         */
        void accept(int step, int leader, float[][] compacts) throws IOException;
    }

    /**
     * One LEARNED block's share of the compact vector.
     *
     * @param block    the block
     * @param selected entries selected from it each step, {@code ceil(ratio·n)}
     */
    public record Share(ParamBlock block, int selected) {
    }

    /**
     * What was recorded.
     *
     * @param mu       length of each compact vector
     * @param shares   the LEARNED blocks in parameter order with their counts (summing to μ)
     * @param meanLoss the mean of the K ranks' training losses at every step, warm-up first
     * @param nanos    wall time of the whole recording
     */
    public record Summary(int mu, List<Share> shares, double[] meanLoss, long nanos) {
    }

    /** The LEARNED blocks of {@code layout} and how many entries each contributes at {@code ratio}. */
    public static List<Share> shares(GradientLayout layout, double ratio) {
        List<Share> shares = new ArrayList<>();
        for (ParamBlock b : layout.blocks(LayerPolicy.LEARNED)) {
            shares.add(new Share(b, TopK.countFor(b.length(), ratio)));
        }
        if (shares.isEmpty()) {
            throw new IllegalArgumentException("the model has no LEARNED block: nothing would reach an autoencoder");
        }
        return List.copyOf(shares);
    }

    /** μ = Σ ceil(ratio·n_l) over the LEARNED blocks of {@code layout}. */
    public static int compactLength(GradientLayout layout, double ratio) {
        return shares(layout, ratio).stream().mapToInt(Share::selected).sum();
    }

    /**
     * Every rank's accumulator as the training runs keep it (error feedback, the low-pass filter of
     * {@code SupportMemory}), and the leader's top-k that every rank sends its values on.
     */
    private static final class Accumulators {
        private final float[][] accumulators;
        private final float[][] memories; // the accumulators before this step's gradient
        private final float beta;
        private final TopK topK = new TopK();
        private final int[] picked;

        Accumulators(int ranks, int length, int maxSelected, float beta) {
            this.accumulators = new float[ranks][length];
            this.memories = new float[ranks][length];
            this.beta = beta;
            this.picked = new int[maxSelected];
        }

        /**
         * One block's step: every rank's gradient added, the leader's top entries taken from every rank (their
         * values into {@code compacts} from {@code position}, their mean into {@code update}, zero elsewhere in the
         * block), the memories filtered.
         *
         * @return the entries taken
         */
        int take(Share share, float[][] gradients, int leader, float[] update, float[][] compacts, int position) {
            int ranks = accumulators.length;
            ParamBlock b = share.block();
            for (int k = 0; k < ranks; k++) {
                System.arraycopy(accumulators[k], b.offset(), memories[k], b.offset(), b.length());
                for (int i = b.offset(); i < b.end(); i++) {
                    accumulators[k][i] += gradients[k][i]; // now m + g, what a rank offers
                }
            }
            int count = topK.select(accumulators[leader], b.offset(), b.end(), share.selected(), picked);
            Arrays.fill(update, b.offset(), b.end(), 0f);
            for (int j = 0; j < count; j++) {
                int at = b.offset() + picked[j];
                double sum = 0;
                for (int k = 0; k < ranks; k++) {
                    compacts[k][position + j] = accumulators[k][at];
                    sum += accumulators[k][at];
                    accumulators[k][at] = 0f;
                }
                update[at] = (float) (sum / ranks);
            }
            if (beta != 1f) {
                // the training runs' filtered memory (SupportMemory): m ← (1 − β)·m + β·(m + g − sent)
                for (int k = 0; k < ranks; k++) {
                    for (int i = b.offset(); i < b.end(); i++) {
                        accumulators[k][i] = (1 - beta) * memories[k][i] + beta * accumulators[k][i];
                    }
                }
            }
            return count;
        }
    }

    /**
     * Trains {@code model} (its parameters and updater state move) on {@code train} as described above and hands
     * every recorded step to {@code sink}; progress lines go to {@code log} about every tenth of the run.
     *
     * @throws IllegalArgumentException if the data cannot give every rank one batch
     * @throws IllegalStateException    if a rank's loss becomes NaN or infinite (named with its step and rank)
     */
    public static Summary record(ReplicaModel model, LabeledImages train, Settings settings, Sink sink,
                                 PrintStream log) throws IOException {
        long start = System.nanoTime();
        int ranks = settings.workers();
        int batch = settings.batch();
        GradientLayout layout = GradientLayout.of(model.model());
        List<Share> shares = shares(layout, settings.ratio());
        int mu = shares.stream().mapToInt(Share::selected).sum();
        int maxSelected = shares.stream().mapToInt(Share::selected).max().orElseThrow();
        ShardPlan plan = new ShardPlan(train.size(), ranks, batch, settings.seed());
        int perEpoch = plan.stepsPerEpoch();
        INDArray features = train.toDataSet().getFeatures();
        INDArray labels = train.toDataSet().getLabels();
        SplittableRandom leaders = new SplittableRandom(settings.seed() ^ LEADER_SALT);
        Accumulators accumulators = new Accumulators(ranks, layout.length(), maxSelected, (float) settings.lowPass());
        float[][] gradients = new float[ranks][];
        int total = settings.warmup() + settings.steps();
        double[] meanLoss = new double[total];
        int logEvery = Math.max(1, total / 10);

        for (int t = 0; t < total; t++) {
            double loss = 0;
            for (int k = 0; k < ranks; k++) {
                int[] rows = plan.batch(t / perEpoch, t % perEpoch, k);
                double rankLoss = model.computeGradient(Nd4j.pullRows(features, 1, rows),
                        Nd4j.pullRows(labels, 1, rows));
                if (!Double.isFinite(rankLoss)) {
                    throw new IllegalStateException("step " + t + ", rank " + k + ": the loss is " + rankLoss
                            + "; the recording stops before the gradient spreads");
                }
                loss += rankLoss / ranks;
                gradients[k] = model.gradient().toFloatVector();
            }
            meanLoss[t] = loss;
            float[] update = mean(gradients);
            if (t >= settings.warmup()) {
                int leader = leaders.nextInt(ranks);
                float[][] compacts = new float[ranks][mu];
                int position = 0;
                for (Share share : shares) {
                    position += accumulators.take(share, gradients, leader, update, compacts, position);
                }
                sink.accept(t - settings.warmup(), leader, compacts);
            }
            model.applyGradient(update, batch);
            if ((t + 1) % logEvery == 0 || t + 1 == total) {
                log.printf(Locale.ROOT, "step %d/%d (%s): mean loss %.4f, %.0f s%n", t + 1, total,
                        t < settings.warmup() ? "dense warm-up" : "recording", loss,
                        (System.nanoTime() - start) / 1e9);
            }
        }
        return new Summary(mu, shares, meanLoss, System.nanoTime() - start);
    }

    private static float[] mean(float[][] gradients) {
        float[] mean = new float[gradients[0].length];
        for (float[] g : gradients) {
            for (int i = 0; i < mean.length; i++) {
                mean[i] += g[i];
            }
        }
        float k = gradients.length;
        for (int i = 0; i < mean.length; i++) {
            mean[i] /= k;
        }
        return mean;
    }
}

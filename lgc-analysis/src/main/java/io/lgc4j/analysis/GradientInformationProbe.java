package io.lgc4j.analysis;

import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.train.ReplicaModel;
import io.lgc4j.core.train.ShardPlan;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The measurement behind the paper's Figs 3–4: how much of rank b's layer gradient rank a's gradient of the same
 * layer at the same iteration already tells, per layer, during data-parallel training of any DL4J model. K ranks'
 * gradients on disjoint mini-batches ({@link ShardPlan}) are computed in turn on one model, which applies their mean
 * ({@link ReplicaModel#applyGradient}). At step 0 and every {@code every} steps each layer's gradient on rank a and on
 * rank b (see {@link #layers}) goes to {@link HistogramInformation} under every {@link Quantizer}, beside the shuffled
 * control: one {@link Row} per (step, layer, quantizer). A layer's gradient is what DL4J puts in the gradient vector
 * for it (batch normalization's running statistics included).
 *
 * <pre>{@code
 * GradientInformationProbe.Settings settings = new GradientInformationProbe.Settings(4, 32, 300, 10, 0, 1, 42,
 *         List.of(Quantizer.uniform(256), Quantizer.FLOAT32_BITS));
 * GradientInformationProbe.Summary summary = GradientInformationProbe.run(ReplicaModel.wrap(net),
 *         train.getFeatures(), train.getLabels(), settings, row -> csv.println(row),
 *         (step, total) -> System.out.printf("step %d/%d%n", step, total));
 * summary.layers().forEach(l -> System.out.printf("%s %s: I/H = %.3f (shuffled I %.3f bits)%n",
 *         l.layerName(), l.quantizer().label(), l.meanShare(), l.meanShuffledMutualInformation()));
 * }</pre>
 */
public final class GradientInformationProbe {

    /** Salt that keeps the shuffled controls' permutations independent of the data order, which uses the seed. */
    private static final long SHUFFLE_SALT = 0x73687566666C65L;

    private GradientInformationProbe() {
    }

    /**
     * How to probe.
     *
     * @param workers    K, ranks per step, at least 2
     * @param batch      examples per rank per step
     * @param steps      training steps
     * @param every      a step is sampled when {@code step % every == 0} (step 0 always)
     * @param rankA      the rank whose gradient is x
     * @param rankB      the rank whose gradient is y (the one whose entropy the share divides by); not rankA
     * @param seed       drives the data order and the shuffled controls
     * @param quantizers the quantizers to estimate under, each once, in the order rows are written
     */
    public record Settings(int workers, int batch, int steps, int every, int rankA, int rankB, long seed,
                           List<Quantizer> quantizers) {

        /** Rejects values out of range, naming the field and the value. */
        public Settings {
            if (workers < 2) {
                throw new IllegalArgumentException("workers must be >= 2, got " + workers);
            }
            if (batch < 1) {
                throw new IllegalArgumentException("batch must be >= 1, got " + batch);
            }
            if (steps < 1) {
                throw new IllegalArgumentException("steps must be >= 1, got " + steps);
            }
            if (every < 1) {
                throw new IllegalArgumentException("every must be >= 1, got " + every);
            }
            if (rankA < 0 || rankA >= workers) {
                throw new IllegalArgumentException("rankA must be in [0, " + (workers - 1) + "], got " + rankA);
            }
            if (rankB < 0 || rankB >= workers) {
                throw new IllegalArgumentException("rankB must be in [0, " + (workers - 1) + "], got " + rankB);
            }
            if (rankA == rankB) {
                throw new IllegalArgumentException("rankA and rankB must differ, both are " + rankA);
            }
            if (quantizers == null || quantizers.isEmpty()) {
                throw new IllegalArgumentException("quantizers must name at least one quantizer, got " + quantizers);
            }
            Set<Quantizer> seen = new HashSet<>();
            for (Quantizer q : quantizers) {
                if (q == null) {
                    throw new IllegalArgumentException("quantizers must not contain null, got " + quantizers);
                }
                if (!seen.add(q)) {
                    throw new IllegalArgumentException("quantizers lists " + q.label() + " twice");
                }
            }
            quantizers = List.copyOf(quantizers);
        }
    }

    /**
     * One layer of the model: its parameter blocks, in parameter order, read as one vector.
     *
     * @param layerIndex the layer's position among the layers with parameters ({@link ParamBlock#layerIndex})
     * @param layerName  the layer's name
     * @param blocks     its blocks in parameter order
     */
    public record LayerSlice(int layerIndex, String layerName, List<ParamBlock> blocks) {

        /** Defends the block list. */
        public LayerSlice {
            blocks = List.copyOf(blocks);
        }

        /** Elements of the layer's gradient. */
        public int length() {
            return blocks.stream().mapToInt(ParamBlock::length).sum();
        }

        /** The layer's entries of a flattened gradient, its blocks concatenated. */
        public float[] gather(float[] flat) {
            float[] out = new float[length()];
            int at = 0;
            for (ParamBlock b : blocks) {
                System.arraycopy(flat, b.offset(), out, at, b.length());
                at += b.length();
            }
            return out;
        }
    }

    /**
     * One estimate.
     *
     * @param step      training step, from 0
     * @param layer     layer index ({@link LayerSlice#layerIndex})
     * @param layerName the layer's name
     * @param elements  the layer's gradient length: the number of pairs the estimate counts
     * @param quantizer the quantizer
     * @param estimate  rank a's (x) against rank b's (y) layer gradient
     * @param shuffled  the same with y permuted: the estimator's bias floor
     */
    public record Row(int step, int layer, String layerName, int elements, Quantizer quantizer,
                      HistogramInformation.Estimate estimate, HistogramInformation.Estimate shuffled) {
    }

    /** Receives each row as it is estimated. */
    @FunctionalInterface
    public interface Sink {
        /** Takes one row. */
        void accept(Row row) throws IOException;
    }

    /** Hears of each finished training step. */
    @FunctionalInterface
    public interface Progress {
        /**
         * @param done  steps finished, from 1
         * @param total steps in the run
         */
        void stepDone(int done, int total);
    }

    /**
     * One layer under one quantizer, averaged over the sampled steps.
     *
     * @param layer                         layer index
     * @param layerName                     the layer's name
     * @param elements                      the layer's gradient length
     * @param quantizer                     the quantizer
     * @param samples                       sampled steps averaged
     * @param meanEntropyX                  mean H(x), bits
     * @param meanEntropyY                  mean H(y), bits
     * @param meanMutualInformation         mean I(x; y), bits
     * @param meanShare                     mean of the steps' I/H(y) (not the ratio of the means)
     * @param meanShuffledMutualInformation mean I of the shuffled control, bits
     */
    public record LayerSummary(int layer, String layerName, int elements, Quantizer quantizer, int samples,
                               double meanEntropyX, double meanEntropyY, double meanMutualInformation,
                               double meanShare, double meanShuffledMutualInformation) {
    }

    /**
     * What the probe found.
     *
     * @param layers       every layer under every quantizer: layer order, then the settings' quantizer order
     * @param sampledSteps the steps estimated
     * @param meanLoss     the mean of the K ranks' training losses at every step
     * @param nanos        wall time of the whole run
     */
    public record Summary(List<LayerSummary> layers, int[] sampledSteps, double[] meanLoss, long nanos) {
    }

    /** The layers of {@code layout} with parameters, in layer order, each with its blocks in parameter order. */
    public static List<LayerSlice> layers(GradientLayout layout) {
        List<List<ParamBlock>> byLayer = new ArrayList<>();
        for (ParamBlock b : layout.blocks()) {
            while (byLayer.size() <= b.layerIndex()) {
                byLayer.add(new ArrayList<>());
            }
            byLayer.get(b.layerIndex()).add(b);
        }
        List<LayerSlice> layers = new ArrayList<>(byLayer.size());
        for (int i = 0; i < byLayer.size(); i++) {
            List<ParamBlock> blocks = byLayer.get(i);
            if (!blocks.isEmpty()) {
                layers.add(new LayerSlice(i, blocks.get(0).layerName(), blocks));
            }
        }
        return List.copyOf(layers);
    }

    /** {@link #run(ReplicaModel, INDArray, INDArray, Settings, Sink, Progress)} without progress reports. */
    public static Summary run(ReplicaModel model, INDArray features, INDArray labels, Settings settings, Sink sink)
            throws IOException {
        return run(model, features, labels, settings, sink, (done, total) -> { });
    }

    /**
     * Trains {@code model} (its parameters and updater state move) on the examples, one per row of
     * {@code features} and {@code labels}, as described above; hands every row to {@code sink} and every finished
     * step to {@code progress}.
     *
     * @throws IllegalArgumentException if features and labels differ in rows, or the data cannot give every rank
     *                                  one batch
     * @throws IllegalStateException    if a rank's loss becomes NaN or infinite (named with its step and rank)
     */
    public static Summary run(ReplicaModel model, INDArray features, INDArray labels, Settings settings, Sink sink,
                              Progress progress) throws IOException {
        long start = System.nanoTime();
        if (features.size(0) != labels.size(0)) {
            throw new IllegalArgumentException("features and labels must have one row per example, found "
                    + features.size(0) + " and " + labels.size(0) + " rows");
        }
        int ranks = settings.workers();
        int batch = settings.batch();
        ShardPlan plan = new ShardPlan((int) features.size(0), ranks, batch, settings.seed());
        int perEpoch = plan.stepsPerEpoch();
        List<LayerSlice> layers = layers(GradientLayout.of(model.model()));
        List<Quantizer> quantizers = settings.quantizers();
        Accumulator[][] sums = new Accumulator[layers.size()][quantizers.size()];
        for (Accumulator[] row : sums) {
            for (int q = 0; q < row.length; q++) {
                row[q] = new Accumulator();
            }
        }
        int total = settings.steps();
        double[] meanLoss = new double[total];
        List<Integer> sampled = new ArrayList<>();

        for (int t = 0; t < total; t++) {
            int epoch = t / perEpoch;
            int inEpoch = t % perEpoch;
            double loss = 0;
            float[] mean = null;
            float[] gradientA = null;
            float[] gradientB = null;
            for (int k = 0; k < ranks; k++) {
                int[] rows = plan.batch(epoch, inEpoch, k);
                double rankLoss = model.computeGradient(Nd4j.pullRows(features, 1, rows),
                        Nd4j.pullRows(labels, 1, rows));
                if (!Double.isFinite(rankLoss)) {
                    throw new IllegalStateException("step " + t + ", rank " + k + ": the loss is " + rankLoss
                            + "; the probe stops before the gradient spreads");
                }
                loss += rankLoss / ranks;
                float[] gradient = model.gradient().toFloatVector();
                if (mean == null) {
                    mean = new float[gradient.length];
                }
                for (int i = 0; i < gradient.length; i++) {
                    mean[i] += gradient[i];
                }
                if (k == settings.rankA()) {
                    gradientA = gradient;
                }
                if (k == settings.rankB()) {
                    gradientB = gradient;
                }
            }
            meanLoss[t] = loss;
            if (t % settings.every() == 0) {
                sampled.add(t);
                measure(t, layers, quantizers, gradientA, gradientB, settings.seed(), sums, sink);
            }
            for (int i = 0; i < mean.length; i++) {
                mean[i] /= ranks;
            }
            model.applyGradient(mean, batch);
            if (inEpoch == perEpoch - 1) {
                model.endEpoch();
            }
            progress.stepDone(t + 1, total);
        }

        List<LayerSummary> summaries = new ArrayList<>();
        for (int l = 0; l < layers.size(); l++) {
            LayerSlice layer = layers.get(l);
            for (int q = 0; q < quantizers.size(); q++) {
                summaries.add(sums[l][q].summary(layer, quantizers.get(q)));
            }
        }
        return new Summary(List.copyOf(summaries), sampled.stream().mapToInt(Integer::intValue).toArray(), meanLoss,
                System.nanoTime() - start);
    }

    /**
     * A sampled step {@code t}: per layer and quantizer, the information between the two ranks' gradients and its
     * shuffled control, each row added to its running sums and handed to {@code sink}.
     */
    private static void measure(int t, List<LayerSlice> layers, List<Quantizer> quantizers, float[] gradientA,
                                float[] gradientB, long seed, Accumulator[][] sums, Sink sink) throws IOException {
        for (int l = 0; l < layers.size(); l++) {
            LayerSlice layer = layers.get(l);
            float[] x = layer.gather(gradientA);
            float[] y = layer.gather(gradientB);
            // One permutation per (step, layer), shared by the quantizers so their floors compare.
            long shuffleSeed = (seed ^ SHUFFLE_SALT) * 0x9E3779B97F4A7C15L + (long) t * 0xBF58476D1CE4E5B9L
                    + layer.layerIndex();
            for (int q = 0; q < quantizers.size(); q++) {
                Quantizer quantizer = quantizers.get(q);
                Row row = new Row(t, layer.layerIndex(), layer.layerName(), x.length, quantizer,
                        HistogramInformation.estimate(x, y, quantizer),
                        HistogramInformation.shuffledControl(x, y, quantizer, shuffleSeed));
                sums[l][q].add(row);
                sink.accept(row);
            }
        }
    }

    /** Running sums of one (layer, quantizer) over the sampled steps. */
    private static final class Accumulator {
        private int samples;
        private double entropyX;
        private double entropyY;
        private double mutualInformation;
        private double share;
        private double shuffledMutualInformation;

        void add(Row row) {
            samples++;
            entropyX += row.estimate().entropyX();
            entropyY += row.estimate().entropyY();
            mutualInformation += row.estimate().mutualInformation();
            share += row.estimate().mutualInformationShare();
            shuffledMutualInformation += row.shuffled().mutualInformation();
        }

        LayerSummary summary(LayerSlice layer, Quantizer quantizer) {
            return new LayerSummary(layer.layerIndex(), layer.layerName(), layer.length(), quantizer, samples,
                    entropyX / samples, entropyY / samples, mutualInformation / samples, share / samples,
                    shuffledMutualInformation / samples);
        }
    }
}

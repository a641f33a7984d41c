package io.lgc4j.autoencoders;

import org.nd4j.autodiff.samediff.SDVariable;
import org.nd4j.autodiff.samediff.SameDiff;
import org.nd4j.autodiff.samediff.api.OutAndGrad;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.GradientUpdater;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * What both gradient autoencoders share: the compact-vector length μ and its padding, the encoder E_c, the online
 * training step (SameDiff computes the gradients, an ND4J updater applies them to the shared weight arrays) and the
 * two losses.
 *
 * <p>Inputs are compact vectors of length μ in the model's own units, divided by a {@link Scale} the caller chooses
 * (every rank of one step uses the same one, so latents stay comparable and summable). Padding positions are zero on
 * the way in, excluded from the loss, and cropped on the way out: they never leak into a reconstruction.
 *
 * <p>Not thread-safe: one owner (the server, or one rank) uses an autoencoder at a time.
 */
public abstract sealed class GradientAutoencoder permits PsAutoencoder, RingAutoencoder {

    static final String INPUT = "x";
    static final String MASK = "mask";
    static final String LATENT = "latent";
    static final String OUTPUT = "out";
    static final String REC_LOSS = "recLoss";
    static final String SIM_LOSS = "simLoss";
    static final String LOSS = "loss";

    final AutoencoderSpec spec;
    final int mu;
    final int paddedLength;
    final int ranks;
    final AeTraining training;
    final WeightSet encoder;
    private final INDArray mask;
    private SameDiff trainGraph;
    private SameDiff encodeGraph;
    private final Map<String, GradientUpdater<?>> updaters = new HashMap<>();
    private final Map<String, INDArray> trainables = new LinkedHashMap<>();
    private int iteration;

    GradientAutoencoder(AutoencoderSpec spec, int mu, int ranks, AeTraining training, SplittableRandom random) {
        if (ranks < 1) {
            throw new IllegalArgumentException("an autoencoder serves at least one rank, got " + ranks);
        }
        this.spec = spec;
        this.mu = mu;
        this.paddedLength = spec.paddedLength(mu);
        this.ranks = ranks;
        this.training = training;
        this.encoder = ConvStack.encoderWeights(spec, random);
        float[] m = new float[paddedLength];
        java.util.Arrays.fill(m, 0, mu, 1f);
        this.mask = Nd4j.create(m, new long[] {1, 1, 1, paddedLength}, 'c');
    }

    /** The architecture. */
    public AutoencoderSpec spec() {
        return spec;
    }

    /** The length μ of the compact vectors this autoencoder reads and writes. */
    public int mu() {
        return mu;
    }

    /** The number of ranks K it was built for. */
    public int ranks() {
        return ranks;
    }

    /** The number of floats in one latent (what a rank sends instead of its μ values). */
    public int latentSize() {
        return spec.latentSize(mu);
    }

    /** The encoder's weights (shipped to the ranks that encode). */
    public WeightSet encoderWeights() {
        return encoder;
    }

    /** The encoder in its shippable byte form ({@link WeightCodec}). */
    public byte[] encoderBytes() {
        return WeightCodec.write(encoder, mu);
    }

    /**
     * Replaces the encoder's weights with {@code bytes} (from {@link #encoderBytes()} of an autoencoder of the same
     * architecture and μ).
     *
     * @throws WeightCodec.WeightFormatException if the bytes do not match this configuration; nothing changes then
     */
    public void loadEncoder(byte[] bytes) {
        WeightCodec.read(bytes, encoder, mu);
    }

    /** The number of training steps taken. */
    public int iterations() {
        return iteration;
    }

    /**
     * Encodes {@code compact} (length μ) divided by {@code scale} into a latent of {@link #latentSize()} floats,
     * channel-major.
     */
    public float[] encode(float[] compact, float scale) {
        checkLength("compact vector", compact, mu);
        if (encodeGraph == null) {
            SameDiff sd = SameDiff.create();
            SDVariable x = sd.placeHolder(INPUT, DataType.FLOAT, -1, 1, 1, paddedLength);
            ConvStack.encode(sd, "encoder", x, encoder, spec).rename(LATENT);
            encodeGraph = sd;
        }
        INDArray x = Nd4j.create(padded(compact, scale), new long[] {1, 1, 1, paddedLength}, 'c');
        INDArray latent = encodeGraph.output(Map.of(INPUT, x), LATENT).get(LATENT);
        return latent.dup('c').data().asFloat();
    }

    /**
     * One step of online training on the K ranks' compact vectors of this iteration, each divided by
     * {@code scale}; returns the losses before the update.
     */
    AeLosses step(float[][] compacts, float scale, Map<String, INDArray> extraPlaceholders) {
        if (compacts.length != ranks) {
            throw new IllegalArgumentException("a training step takes one compact vector per rank (" + ranks
                    + "), got " + compacts.length);
        }
        float[] x = new float[ranks * paddedLength];
        for (int k = 0; k < ranks; k++) {
            checkLength("compact vector of rank " + k, compacts[k], mu);
            for (int i = 0; i < mu; i++) {
                x[k * paddedLength + i] = compacts[k][i] / scale;
            }
        }
        if (trainGraph == null) {
            trainGraph = buildTrainGraph();
            // calculateGradientsAndOutputs would build it on first use, printing a line per op to System.out
            QuietGradients.build(trainGraph);
            for (String name : trainGraph.variableMap().keySet()) {
                SDVariable v = trainGraph.getVariable(name);
                if (v.getVariableType() == org.nd4j.autodiff.samediff.VariableType.VARIABLE) {
                    trainables.put(name, v.getArr());
                }
            }
        }
        Map<String, INDArray> placeholders = new HashMap<>(extraPlaceholders);
        placeholders.put(INPUT, Nd4j.create(x, new long[] {ranks, 1, 1, paddedLength}, 'c'));
        placeholders.put(MASK, mask);
        OutAndGrad result = trainGraph.calculateGradientsAndOutputs(placeholders,
                List.of(REC_LOSS, SIM_LOSS, LOSS), new ArrayList<>(trainables.keySet()));
        Map<String, INDArray> grads = result.getGradients();
        for (Map.Entry<String, INDArray> e : trainables.entrySet()) {
            INDArray gradient = grads.get(e.getKey());
            INDArray param = e.getValue();
            GradientUpdater<?> updater = updaters.computeIfAbsent(e.getKey(), name -> {
                long state = training.updater().stateSize(param.length());
                INDArray view = state == 0 ? null : Nd4j.zeros(DataType.FLOAT, 1, state);
                return training.updater().instantiate(view, true);
            });
            updater.applyUpdater(gradient, iteration, 0);
            param.subi(gradient.reshape(param.shape()));
        }
        iteration++;
        Map<String, INDArray> out = result.getOutputs();
        return new AeLosses(out.get(REC_LOSS).getDouble(0), out.get(SIM_LOSS).getDouble(0),
                out.get(LOSS).getDouble(0));
    }

    /** The training graph: reads {@link #INPUT} [K, 1, 1, L] and {@link #MASK}; defines the three losses. */
    abstract SameDiff buildTrainGraph();

    /** Adds the latent-similarity loss for latents {@code z} [K, C, 1, L/16] and the weighted total. */
    final void addLosses(SameDiff sd, SDVariable z, SDVariable recLoss) {
        recLoss.rename(REC_LOSS);
        SDVariable sim;
        if (ranks == 1) {
            sim = sd.constant(SIM_LOSS, Nd4j.scalar(DataType.FLOAT, 0f));
        } else {
            // Σ_k Σ_{m≠k} ||z_k − z_m||² = 2K Σ_k ||z_k − z̄||², divided by K(K−1)·latentSize
            SDVariable centered = z.sub(z.mean(true, 0));
            sim = centered.mul(centered).sum().mul(2.0 / ((ranks - 1.0) * latentSize())).rename(SIM_LOSS);
        }
        recLoss.mul(training.lambdaRec()).add(sim.mul(training.lambdaSim())).rename(LOSS);
        sd.setLossVariables(LOSS);
    }

    /** The mean over real positions of the squared difference of {@code a} and {@code b} ([N, 1, 1, L]). */
    final SDVariable maskedMse(SameDiff sd, SDVariable a, SDVariable b, int rows) {
        SDVariable diff = a.sub(b).mul(sd.getVariable(MASK));
        return diff.mul(diff).sum().div((double) rows * mu);
    }

    /** {@code v / scale}, zero-padded to L. */
    final float[] padded(float[] v, float scale) {
        float[] p = new float[paddedLength];
        for (int i = 0; i < v.length; i++) {
            p[i] = v[i] / scale;
        }
        return p;
    }

    /** The first μ values of {@code out} times {@code scale}. */
    final float[] cropped(INDArray out, float scale) {
        float[] all = out.dup('c').data().asFloat();
        float[] v = new float[mu];
        for (int i = 0; i < mu; i++) {
            v[i] = all[i] * scale;
        }
        return v;
    }

    static void checkLength(String what, float[] v, int expected) {
        if (v == null || v.length != expected) {
            throw new IllegalArgumentException(what + " must hold " + expected + " floats, got "
                    + (v == null ? "null" : v.length));
        }
    }
}

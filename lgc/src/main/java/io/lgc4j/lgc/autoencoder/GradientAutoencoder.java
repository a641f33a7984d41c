package io.lgc4j.lgc.autoencoder;

import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.checkpoint.Persistent;
import io.lgc4j.core.checkpoint.SectionReader;
import io.lgc4j.core.checkpoint.SectionWriter;
import org.nd4j.autodiff.samediff.SDVariable;
import org.nd4j.autodiff.samediff.SameDiff;
import org.nd4j.autodiff.samediff.VariableType;
import org.nd4j.autodiff.samediff.api.OutAndGrad;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.GradientUpdater;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * What both gradient autoencoders share: the compact-vector length μ and its padding, the encoder E_c, the online
 * training step and the two losses. Inputs are compact vectors divided by a {@link Scale} the caller chooses (the
 * same on every rank of a step); padding is zero on the way in, excluded from the loss and cropped on the way out.
 *
 * <p>Not thread-safe: one owner uses it from one thread (an {@link AutoencoderLane} when training runs off the
 * critical path). Its state is its weights, optimizer state and step count; {@link #save} and {@link #restore} carry
 * them bit for bit through a checkpoint. The SameDiff graphs are caches over the weight arrays, rebuilt on first use.
 */
public abstract sealed class GradientAutoencoder implements Persistent permits PsAutoencoder, RingAutoencoder {

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
    /** Each trainable tensor's optimizer, by graph variable name; empty until the first training step. */
    private final Map<String, Optimizer> optimizers = new HashMap<>();
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
        Arrays.fill(m, 0, mu, 1f);
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
        INDArray x = Nd4j.create(padded(compact, scale), new long[] {1, 1, 1, paddedLength}, 'c');
        INDArray latent = encodeGraph().output(Map.of(INPUT, x), LATENT).get(LATENT);
        return latent.dup('c').data().asFloat();
    }

    private SameDiff encodeGraph() {
        if (encodeGraph == null) {
            SameDiff sd = SameDiff.create();
            SDVariable x = sd.placeHolder(INPUT, DataType.FLOAT, -1, 1, 1, paddedLength);
            ConvStack.encode(sd, "encoder", x, encoder, spec).rename(LATENT);
            encodeGraph = sd;
        }
        return encodeGraph;
    }

    /**
     * Builds every graph this autoencoder will use (training with its gradient function, encoding, decoding) and runs
     * each once on zeros, now rather than at first use, so that a first training step, encode or decode does not pay
     * for building and first executing them on the critical path (3.6 s of a first training step in a fresh JVM, 0.1 s
     * in a warm one). It changes nothing else: the graphs view the weight arrays and hold no state of their own, and
     * a gradient computed here is thrown away, never applied, with no optimizer made and no step counted.
     */
    public void prepare() {
        buildTraining();
        Map<String, INDArray> placeholders = new HashMap<>(dryRunPlaceholders());
        placeholders.put(INPUT, Nd4j.zeros(DataType.FLOAT, ranks, 1, 1, paddedLength));
        placeholders.put(MASK, mask);
        trainGraph.calculateGradientsAndOutputs(placeholders, List.of(REC_LOSS, SIM_LOSS, LOSS),
                new ArrayList<>(trainables.keySet()));
        prepareCoding();
    }

    /** As {@link #prepare()}, without the training graph: for an owner that only encodes and decodes. */
    public void prepareCoding() {
        prepareEncoder();
        prepareDecoders();
    }

    /** As {@link #prepare()}, for the encoding graph alone: for an owner that only encodes (an LGC-PS worker). */
    public void prepareEncoder() {
        encode(new float[mu], 1f);
    }

    /** The training graph's placeholders besides {@link #INPUT} and {@link #MASK}, for a run on zeros. */
    abstract Map<String, INDArray> dryRunPlaceholders();

    /** Builds the decoding graphs and runs each once on zeros. */
    abstract void prepareDecoders();

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
        buildTraining();
        Map<String, INDArray> placeholders = new HashMap<>(extraPlaceholders);
        placeholders.put(INPUT, Nd4j.create(x, new long[] {ranks, 1, 1, paddedLength}, 'c'));
        placeholders.put(MASK, mask);
        OutAndGrad result = trainGraph.calculateGradientsAndOutputs(placeholders,
                List.of(REC_LOSS, SIM_LOSS, LOSS), new ArrayList<>(trainables.keySet()));
        Map<String, INDArray> grads = result.getGradients();
        for (Map.Entry<String, INDArray> e : trainables.entrySet()) {
            INDArray gradient = grads.get(e.getKey());
            INDArray param = e.getValue();
            Optimizer optimizer = optimizers.computeIfAbsent(e.getKey(), name -> newOptimizer(param, null));
            optimizer.updater().applyUpdater(gradient, iteration, 0);
            param.subi(gradient.reshape(param.shape()));
        }
        iteration++;
        Map<String, INDArray> out = result.getOutputs();
        return new AeLosses(out.get(REC_LOSS).getDouble(0), out.get(SIM_LOSS).getDouble(0),
                out.get(LOSS).getDouble(0));
    }

    /** Builds the training graph and its gradient function, and lists its trainable tensors, once. */
    private void buildTraining() {
        if (trainGraph != null) {
            return;
        }
        trainGraph = buildTrainGraph();
        // calculateGradientsAndOutputs would build it on first use, printing a line per op to System.out
        QuietGradients.build(trainGraph);
        for (String name : trainGraph.variableMap().keySet()) {
            SDVariable v = trainGraph.getVariable(name);
            if (v.getVariableType() == VariableType.VARIABLE) {
                trainables.put(name, v.getArr());
            }
        }
    }

    /**
     * An optimizer for {@code param}: over a state of zeros that ND4J initializes ({@code restored} null, a fresh
     * one), or over the state {@code restored} from a checkpoint, which ND4J then must not initialize.
     */
    private Optimizer newOptimizer(INDArray param, float[] restored) {
        long size = training.updater().stateSize(param.length());
        INDArray view = size == 0 ? null : Nd4j.zeros(DataType.FLOAT, 1, size);
        if (restored != null && view != null) {
            view.assign(Nd4j.createFromArray(restored).reshape(1, size));
        }
        return new Optimizer(training.updater().instantiate(view, restored == null), view);
    }

    /** The training graph: reads {@link #INPUT} [K, 1, 1, L] and {@link #MASK}; defines the three losses. */
    abstract SameDiff buildTrainGraph();

    /**
     * Saves the autoencoder's state:
     * <ul>
     *   <li>{@code prefix/encoder}: the encoder in its {@link WeightCodec} form;</li>
     *   <li>the decoders, in the same form ({@code prefix/decoder} for the ring's, {@code prefix/decoder-<k>} for
     *       the parameter server's);</li>
     *   <li>{@code prefix/training}: the training steps taken (int32, the optimizers' iteration), the number T of
     *       tensors with an optimizer (int32), then for each, in graph order, its graph name (string), the length n
     *       of its optimizer state (int32: 0 for SGD, the weight count for Nesterovs, twice it for Adam) and n
     *       float32s. T is 0 until the first training step, which builds the training graph and creates the
     *       optimizers over zeros: a restored autoencoder with T = 0 leaves that to its own first step, which then
     *       does exactly what the original's would have.</li>
     * </ul>
     */
    @Override
    public final void save(CheckpointPart.Builder part, String prefix) {
        saveWeights(part, prefix + "/encoder", encoder);
        saveDecoders(part, prefix);
        SectionWriter w = part.section(prefix + "/training").putInt(iteration).putInt(optimizers.size());
        for (String name : trainables.keySet()) {
            Optimizer optimizer = optimizers.get(name);
            if (optimizer != null) {
                float[] state = optimizer.stateValues();
                w.putString(name).putInt(state.length).putFloats(state);
            }
        }
    }

    /**
     * Restores what {@link #save} wrote into an autoencoder of the same architecture, μ, K and optimizer. The
     * weights are loaded in place, before the training graph is built (when the checkpoint has optimizer state),
     * so every graph computes with them.
     *
     * @throws CheckpointException naming the section when one is missing, of the wrong length, or written for
     *                             another architecture, μ or optimizer
     */
    @Override
    public final void restore(CheckpointPart part, String prefix) throws CheckpointException {
        restoreWeights(part, prefix + "/encoder", encoder);
        restoreDecoders(part, prefix);
        restoreTraining(part, prefix + "/training");
    }

    /**
     * Copies the training section {@code section} of {@code old} ({@link #save}'s {@code prefix/training}) into
     * {@code into} for an autoencoder of other decoders: {@code plan}, given the old tensors' names in order, returns
     * the new autoencoder's tensors in its order, each with the old tensor whose optimizer state it takes (LGC-PS at
     * another number of workers: a dropped decoder's tensors are left out, a new decoder's take its source's). The
     * training steps stay as they were.
     *
     * @throws CheckpointException when the section is not a training section
     */
    public static void regroupTraining(CheckpointPart old, String section, SectionWriter into,
                                       Function<List<String>, Map<String, String>> plan) throws CheckpointException {
        SectionReader r = old.section(section);
        int steps = r.getInt();
        int count = r.getInt();
        Map<String, float[]> states = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            String name = r.getString();
            states.put(name, r.getFloats(r.getInt()));
        }
        r.end();
        Map<String, String> kept = plan.apply(List.copyOf(states.keySet()));
        into.putInt(kept.isEmpty() ? 0 : steps).putInt(kept.size());
        kept.forEach((name, source) -> into.putString(name).putInt(states.get(source).length)
                .putFloats(states.get(source)));
    }

    /**
     * The encoder's weights alone, in the section {@code prefix/encoder} that {@link #save} writes: the state of an
     * autoencoder that only encodes with weights it is shipped and never trains (an LGC-PS worker's), whose decoders
     * and training state stay as its seed built them.
     */
    public Persistent encoderState() {
        return new Persistent() {
            @Override
            public void save(CheckpointPart.Builder part, String prefix) {
                saveWeights(part, prefix + "/encoder", encoder);
            }

            @Override
            public void restore(CheckpointPart part, String prefix) throws CheckpointException {
                restoreWeights(part, prefix + "/encoder", encoder);
            }
        };
    }

    /** Saves the decoders' weights, each in a section of its own under {@code prefix}. */
    abstract void saveDecoders(CheckpointPart.Builder part, String prefix);

    /** Restores what {@link #saveDecoders} wrote. */
    abstract void restoreDecoders(CheckpointPart part, String prefix) throws CheckpointException;

    /** Writes {@code weights} to section {@code section} in its {@link WeightCodec} form. */
    final void saveWeights(CheckpointPart.Builder part, String section, WeightSet weights) {
        part.section(section).putBytes(WeightCodec.write(weights, mu));
    }

    /**
     * Loads section {@code section} into {@code target}; a section of another length, or one that {@link WeightCodec}
     * refuses (another part, μ, tensor name or shape), is refused and changes nothing.
     */
    final void restoreWeights(CheckpointPart part, String section, WeightSet target) throws CheckpointException {
        int expected = WeightCodec.length(target);
        int found = part.sectionLength(section);
        if (found != expected) {
            throw SectionChecks.refuse(part, section, "expected the " + target.part() + " weights ("
                    + SectionChecks.count(expected) + " bytes), found " + SectionChecks.count(found) + " bytes");
        }
        try {
            WeightCodec.read(part.bytes(section), target, mu);
        } catch (WeightCodec.WeightFormatException e) {
            CheckpointException refused = SectionChecks.refuse(part, section, e.getMessage());
            refused.initCause(e);
            throw refused;
        }
    }

    private void restoreTraining(CheckpointPart part, String section) throws CheckpointException {
        SectionReader r = part.section(section);
        int steps = r.getInt();
        int count = r.getInt();
        if (steps < 0 || count < 0 || (count == 0) != (steps == 0)) {
            throw SectionChecks.refuse(part, section, SectionChecks.count(steps) + " training steps with the "
                    + "optimizer state of " + SectionChecks.count(count) + " tensors; expected both 0 (not trained "
                    + "yet) or both positive");
        }
        if (count == 0) {
            r.end();
            optimizers.clear();
            iteration = 0;
            return;
        }
        buildTraining();
        if (count != trainables.size()) {
            throw SectionChecks.refuse(part, section, "the optimizer state of " + SectionChecks.count(count)
                    + " tensors, this autoencoder trains " + trainables.size());
        }
        Map<String, float[]> states = new LinkedHashMap<>();
        for (Map.Entry<String, INDArray> e : trainables.entrySet()) {
            String name = r.getString();
            if (!name.equals(e.getKey())) {
                throw SectionChecks.refuse(part, section, "tensor " + (states.size() + 1) + " is '" + name
                        + "', this autoencoder's is '" + e.getKey() + "'");
            }
            int length = r.getInt();
            long expected = training.updater().stateSize(e.getValue().length());
            if (length != expected) {
                throw SectionChecks.refuse(part, section, "tensor '" + name + "' has "
                        + SectionChecks.count(length) + " floats of optimizer state, this autoencoder's "
                        + training.updater().getClass().getSimpleName() + " keeps " + SectionChecks.count(expected));
            }
            states.put(name, r.getFloats(length));
        }
        r.end();
        optimizers.clear();
        for (Map.Entry<String, INDArray> e : trainables.entrySet()) {
            optimizers.put(e.getKey(), newOptimizer(e.getValue(), states.get(e.getKey())));
        }
        iteration = steps;
    }

    /** One trainable tensor's ND4J updater and the state it updates in place (null when it keeps none: SGD). */
    private record Optimizer(GradientUpdater<?> updater, INDArray state) {
        float[] stateValues() {
            return state == null ? new float[0] : state.dup('c').data().asFloat();
        }
    }

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

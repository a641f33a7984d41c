package io.lgc4j.core.train;

import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.checkpoint.Persistent;
import io.lgc4j.core.checkpoint.SectionReader;
import io.lgc4j.core.compute.ComputeSettings;
import io.lgc4j.core.compute.LayerHelpers;

import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.gradient.DefaultGradient;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.evaluation.classification.Evaluation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.factory.Nd4j;

import java.util.Map;

/**
 * One rank's copy of the user's model, split into the two halves that data-parallel training separates: compute
 * the local gradient, then apply an aggregated gradient with the model's own updater (momentum, Adam state,
 * schedules), exactly as DL4J's {@code StochasticGradientDescent} would after its own gradient.
 *
 * <p>Because every replica starts from the same parameters and updater state and applies the same aggregate, the
 * replicas stay bit-identical.
 */
public sealed interface ReplicaModel extends Persistent permits ReplicaModel.Network, ReplicaModel.Graph {

    /** Wraps an initialized {@link MultiLayerNetwork} or {@link ComputationGraph} (not a copy). */
    static ReplicaModel wrap(Model model) {
        if (model instanceof MultiLayerNetwork net) {
            return new Network(net);
        }
        if (model instanceof ComputationGraph graph) {
            return new Graph(graph);
        }
        throw new IllegalArgumentException("expected a MultiLayerNetwork or a ComputationGraph, found "
                + (model == null ? "null" : model.getClass().getName()));
    }

    /** The wrapped model. */
    Model model();

    /** An independent deep copy: parameters, updater state and iteration counts; layers built as the model's were. */
    ReplicaModel copy();

    /**
     * An independent deep copy whose layers are built with {@code compute}'s helpers and cache mode: the same
     * parameters, updater state and counts, a faster or slower path to the same gradient (to float tolerance).
     *
     * @param compute how the copy computes
     * @return the copy
     */
    ReplicaModel copy(ComputeSettings compute);

    /** Forward and backward on one mini-batch; returns the loss. The gradient is then in {@link #gradient()}. */
    double computeGradient(INDArray features, INDArray labels);

    /** Told, during a backward pass, that elements {@code from..to} of the flattened gradient are final. */
    @FunctionalInterface
    interface LayerTap {
        void finished(int from, int to);
    }

    /**
     * {@link #computeGradient(INDArray, INDArray)}, telling {@code tap} during the backward pass each part of the
     * flattened gradient that is final (on this thread, while the pass goes on: the last layers' first). A replica
     * made by {@link #copy(ComputeSettings)} tells it layer by layer ({@link BackpropTap}); any other tells it the
     * whole gradient once the pass has returned. Either way every element is told once.
     */
    double computeGradient(INDArray features, INDArray labels, LayerTap tap);

    /** The flattened gradient of the last {@link #computeGradient} call (a view, aligned with the parameters). */
    INDArray gradient();

    /**
     * Applies {@code aggregate} (a flattened gradient) with the model's updater and steps the parameters, then
     * advances the iteration count. DL4J's gradients are sums over the mini-batch and its updater divides by
     * {@code batchSize}: pass the size of the batch each summed gradient came from.
     */
    void applyGradient(float[] aggregate, int batchSize);

    /** Marks the end of an epoch (updater schedules by epoch). */
    void endEpoch();

    /** Accuracy and confusion on {@code data}. */
    Evaluation evaluate(DataSetIterator data);

    /** The flattened parameters (a view). */
    default INDArray params() {
        return model().params();
    }

    /** The updater's whole state as one flat view (momentum, Adam's moments), or null when it keeps none (SGD). */
    INDArray updaterState();

    /** The iteration and epoch counts the updater's schedules read. */
    int[] counts();

    /** Sets the iteration and epoch counts. */
    void counts(int iteration, int epoch);

    /** The parameters, the updater's state and the counts at one moment, copied ({@link #snapshot}). */
    record Snapshot(INDArray params, INDArray updater, int[] counts) {
    }

    /** A copy of everything {@link #applyGradient} changes, for {@link #reset}. */
    default Snapshot snapshot() {
        INDArray state = updaterState();
        return new Snapshot(params().dup(), state == null ? null : state.dup(), counts().clone());
    }

    /** Puts back the parameters, the updater's state and the counts of {@code snapshot}. */
    default void reset(Snapshot snapshot) {
        params().assign(snapshot.params());
        if (snapshot.updater() != null) {
            updaterState().assign(snapshot.updater());
        }
        counts(snapshot.counts()[0], snapshot.counts()[1]);
    }

    /**
     * The parameters ({@code params}: float32, in {@link #params()} order), the updater's state
     * ({@code updater}: float32, absent for a stateless updater) and the counts ({@code counts}: iteration, epoch).
     */
    @Override
    default void save(CheckpointPart.Builder part, String prefix) {
        requireFloat(params(), "parameters");
        part.section(prefix + "/params").putFloats(params().toFloatVector());
        INDArray state = updaterState();
        if (state != null) {
            requireFloat(state, "updater state");
            part.section(prefix + "/updater").putFloats(state.toFloatVector());
        }
        int[] counts = counts();
        part.section(prefix + "/counts").putInt(counts[0]).putInt(counts[1]);
    }

    @Override
    default void restore(CheckpointPart part, String prefix) throws CheckpointException {
        float[] params = part.floats(prefix + "/params", Math.toIntExact(params().length()));
        INDArray state = updaterState();
        String updater = prefix + "/updater";
        float[] stateValues = null;
        if (state != null) {
            stateValues = part.floats(updater, Math.toIntExact(state.length()));
        } else if (part.has(updater)) {
            throw new CheckpointException("section '" + updater + "' of " + part.label() + " holds updater state,"
                    + " but this model's updater keeps none");
        }
        SectionReader counts = part.section(prefix + "/counts");
        int iteration = counts.getInt();
        int epoch = counts.getInt();
        counts.end();
        params().assign(Nd4j.createFromArray(params).reshape(params().shape()));
        if (state != null) {
            state.assign(Nd4j.createFromArray(stateValues).reshape(state.shape()));
        }
        counts(iteration, epoch);
    }

    private static void requireFloat(INDArray array, String what) {
        if (array.dataType() != DataType.FLOAT) {
            throw new UnsupportedOperationException("checkpoints hold float32 " + what + ", this model's are "
                    + array.dataType());
        }
    }

    /**
     * The model's last gradient re-pointed at its own flattened gradient array. DL4J's updater compares that array
     * by identity: any other array takes its "external gradient" path, which steps differently from {@code fit}.
     */
    private static Gradient standardGradient(Gradient computed, INDArray flat, Layer[] layers, boolean graph) {
        if (computed == null) {
            // no gradient computed yet in this model (a predicted step right after a resume): the same views, by
            // the names DL4J gives them, from each layer's parameter initializer
            DefaultGradient g = new DefaultGradient(flat);
            for (int i = 0; i < layers.length; i++) {
                Layer layer = layers[i];
                INDArray view = layer.getGradientsViewArray();
                if (view == null || layer.numParams() == 0) {
                    continue;
                }
                String prefix = graph ? layer.conf().getLayer().getLayerName() : String.valueOf(i);
                layer.conf().getLayer().initializer().getGradientsFromFlattened(layer.conf(), view)
                        .forEach((name, v) -> g.setGradientFor(prefix + "_" + name, v));
            }
            return g;
        }
        if (computed.gradient() == flat) {
            return computed;
        }
        DefaultGradient g = new DefaultGradient(flat);
        for (Map.Entry<String, INDArray> e : computed.gradientForVariable().entrySet()) {
            g.setGradientFor(e.getKey(), e.getValue(), computed.flatteningOrderForVariable(e.getKey()));
        }
        return g;
    }

    /** {@link ReplicaModel} of a {@link MultiLayerNetwork}. */
    record Network(MultiLayerNetwork net) implements ReplicaModel {
        @Override
        public Model model() {
            return net;
        }

        @Override
        public ReplicaModel copy() {
            return new Network(net.clone());
        }

        @Override
        public ReplicaModel copy(ComputeSettings compute) {
            // as clone() makes it, as a class whose backward pass can tell each layer it finishes
            MultiLayerNetwork copy = LayerHelpers.build(compute.oneDnn(), () -> BackpropTap.Network.copyOf(net));
            // both: the network's decides whether a forward pass keeps its cache workspace, each layer's what it keeps
            copy.getLayerWiseConfigurations().setCacheMode(compute.cacheMode());
            copy.setCacheMode(compute.cacheMode());
            return new Network(copy);
        }

        @Override
        public double computeGradient(INDArray features, INDArray labels) {
            net.setInput(features);
            net.setLabels(labels);
            net.computeGradientAndScore();
            return net.score();
        }

        @Override
        public double computeGradient(INDArray features, INDArray labels, LayerTap tap) {
            return BackpropTap.pass(net, tap, () -> computeGradient(features, labels));
        }

        @Override
        public INDArray gradient() {
            return net.getFlattenedGradients();
        }

        @Override
        public void applyGradient(float[] aggregate, int batchSize) {
            INDArray flat = net.getFlattenedGradients();
            HostCopy.fromHeap(aggregate, flat);
            Gradient g = standardGradient(net.gradient(), flat, net.getLayers(), false);
            int iteration = net.getIterationCount();
            int epoch = net.getEpochCount();
            net.getUpdater().update(net, g, iteration, epoch, batchSize, LayerWorkspaceMgr.noWorkspaces());
            net.params().subi(flat.reshape(net.params().shape()));
            net.applyConstraints(iteration, epoch);
            net.setIterationCount(iteration + 1);
        }

        @Override
        public void endEpoch() {
            net.incrementEpochCount();
        }

        @Override
        public INDArray updaterState() {
            return net.getUpdater().getStateViewArray();
        }

        @Override
        public int[] counts() {
            return new int[] {net.getIterationCount(), net.getEpochCount()};
        }

        @Override
        public void counts(int iteration, int epoch) {
            net.setIterationCount(iteration);
            net.setEpochCount(epoch);
        }

        @Override
        public Evaluation evaluate(DataSetIterator data) {
            return net.evaluate(data);
        }
    }

    /** {@link ReplicaModel} of a {@link ComputationGraph} with one input and one output. */
    record Graph(ComputationGraph graph) implements ReplicaModel {
        @Override
        public Model model() {
            return graph;
        }

        @Override
        public ReplicaModel copy() {
            return new Graph(graph.clone());
        }

        @Override
        public ReplicaModel copy(ComputeSettings compute) {
            ComputationGraph copy = LayerHelpers.build(compute.oneDnn(), () -> BackpropTap.Graph.copyOf(graph));
            copy.getConfiguration().setCacheMode(compute.cacheMode());
            copy.setCacheMode(compute.cacheMode());
            return new Graph(copy);
        }

        @Override
        public double computeGradient(INDArray features, INDArray labels) {
            graph.setInputs(features);
            graph.setLabels(labels);
            graph.computeGradientAndScore();
            return graph.score();
        }

        @Override
        public double computeGradient(INDArray features, INDArray labels, LayerTap tap) {
            return BackpropTap.pass(graph, tap, () -> computeGradient(features, labels));
        }

        @Override
        public INDArray gradient() {
            return graph.getFlattenedGradients();
        }

        @Override
        public void applyGradient(float[] aggregate, int batchSize) {
            INDArray flat = graph.getFlattenedGradients();
            HostCopy.fromHeap(aggregate, flat);
            Gradient g = standardGradient(graph.gradient(), flat, graph.getLayers(), true);
            int iteration = graph.getIterationCount();
            int epoch = graph.getEpochCount();
            graph.getUpdater().update(g, iteration, epoch, batchSize, LayerWorkspaceMgr.noWorkspaces());
            graph.params().subi(flat.reshape(graph.params().shape()));
            graph.applyConstraints(iteration, epoch);
            graph.getConfiguration().setIterationCount(iteration + 1);
        }

        @Override
        public void endEpoch() {
            graph.incrementEpochCount();
        }

        @Override
        public INDArray updaterState() {
            return graph.getUpdater().getStateViewArray();
        }

        @Override
        public int[] counts() {
            return new int[] {graph.getIterationCount(), graph.getEpochCount()};
        }

        @Override
        public void counts(int iteration, int epoch) {
            graph.getConfiguration().setIterationCount(iteration);
            graph.getConfiguration().setEpochCount(epoch);
        }

        @Override
        public Evaluation evaluate(DataSetIterator data) {
            return graph.evaluate(data);
        }
    }
}

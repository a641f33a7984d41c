package io.lgc4j.core.train;

import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.api.Updater;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.graph.vertex.GraphVertex;
import org.deeplearning4j.nn.layers.FrozenLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.linalg.api.ndarray.INDArray;

import java.util.BitSet;
import java.util.function.DoubleSupplier;

/**
 * The seam through which a replica tells, during its backward pass, which layer's gradient is final
 * ({@code training.overlap: backward}). DL4J 1.0.0-M2.1 has no per-layer callback; its backward loops
 * ({@code MultiLayerNetwork.calcBackpropGradients}, layers N−1..0; {@code ComputationGraph.calcBackpropGradients},
 * vertices in reverse topological order) call the protected {@code validateArrayWorkspaces(..., "Backprop")} right
 * after a layer's {@code backpropGradient} has written its parameters' gradient into its view of the flattened
 * gradient, which nothing writes again in that pass. The subclasses here call super, then the tap with the layer's
 * range of the flattened gradient. Layers whose backward returns no epsilon (the first) are never tapped: their part is
 * final when the pass returns. {@code BackpropTapTest} pins the calls on a network and a graph, so a DL4J upgrade
 * that moves the seam fails loudly.
 */
final class BackpropTap {
    private BackpropTap() {
    }

    private static final String BACKPROP = "Backprop";

    /** A model whose backward pass can tell a tap each layer it finishes. */
    private interface Tapped {
        void tap(ReplicaModel.LayerTap tap);
    }

    /**
     * Runs {@code pass} (a forward and backward pass of {@code model}) telling {@code tap} every element of the
     * gradient once: each layer as it finishes when {@code model} is one of this class's, else the whole gradient
     * when the pass returns.
     *
     * @return the pass's loss
     */
    static double pass(Model model, ReplicaModel.LayerTap tap, DoubleSupplier pass) {
        int length = Math.toIntExact(model.numParams());
        if (!(model instanceof Tapped tapped)) {
            double loss = pass.getAsDouble();
            tap.finished(0, length);
            return loss;
        }
        Completing completing = new Completing(tap, length);
        tapped.tap(completing);
        try {
            double loss = pass.getAsDouble();
            completing.finish();
            return loss;
        } finally {
            tapped.tap(null);
        }
    }

    /**
     * Passes a backward pass's finished layers on, each element once, and when the pass returns the parts never
     * tapped (the first layer's, layers that return no epsilon), highest first.
     */
    private static final class Completing implements ReplicaModel.LayerTap {
        private final ReplicaModel.LayerTap tap;
        private final BitSet told;
        private final int length;

        Completing(ReplicaModel.LayerTap tap, int length) {
            this.tap = tap;
            this.length = length;
            this.told = new BitSet(length);
        }

        @Override
        public void finished(int from, int to) {
            if (told.nextSetBit(from) >= from && told.nextSetBit(from) < to) {
                return; // a vertex with several inputs is tapped once per epsilon
            }
            told.set(from, to);
            tap.finished(from, to);
        }

        void finish() {
            int to = length;
            while (to > 0) {
                int end = told.previousClearBit(to - 1) + 1; // the untold run ends here
                if (end <= 0) {
                    break;
                }
                int start = told.previousSetBit(end - 1) + 1;
                tap.finished(start, end);
                to = start;
            }
        }
    }

    /** Tells {@code tap} the range of {@code layer}'s gradient in {@code flat}; nothing for a layer without. */
    private static void tell(ReplicaModel.LayerTap tap, Layer layer, INDArray flat) {
        if (tap == null || layer == null) {
            return;
        }
        INDArray view = layer.getGradientsViewArray();
        if (view == null || view.length() == 0) {
            return;
        }
        int from = Math.toIntExact(view.offset() - flat.offset());
        tap.finished(from, from + Math.toIntExact(view.length()));
    }

    /** A {@link MultiLayerNetwork} whose backward pass tells a {@link ReplicaModel.LayerTap} each layer it finishes. */
    @SuppressWarnings("overrides") // DL4J's own doEvaluation(T[]) implements a T... method; inherited, not ours
    static final class Network extends MultiLayerNetwork implements Tapped {
        private static final long serialVersionUID = 1L;
        private transient ReplicaModel.LayerTap tap;

        private Network(MultiLayerConfiguration conf) {
            super(conf);
        }

        /**
         * A copy of {@code net} as {@code MultiLayerNetwork.clone()} makes it (configuration cloned, parameters and
         * updater state duplicated, frozen layers frozen again), as this class.
         */
        static Network copyOf(MultiLayerNetwork net) {
            Network copy = new Network(net.getLayerWiseConfigurations().clone());
            copy.init(net.params().dup(), false);
            Updater updater = net.getUpdater(false); // null: no solver yet, and clone() copies no state either
            if (updater != null) {
                INDArray state = updater.getStateViewArray();
                if (state != null) {
                    copy.getUpdater().setStateViewArray(copy, state.dup(), false);
                }
            }
            Layer[] layers = net.getLayers();
            boolean frozen = false;
            Layer[] copied = copy.getLayers().clone();
            for (int i = 0; i < layers.length; i++) {
                if (layers[i] instanceof FrozenLayer) {
                    copied[i] = new FrozenLayer(copy.getLayer(i));
                    frozen = true;
                }
            }
            if (frozen) {
                copy.setLayers(copied);
            }
            return copy;
        }

        @Override
        public void tap(ReplicaModel.LayerTap t) {
            this.tap = t;
        }

        @Override
        protected void validateArrayWorkspaces(LayerWorkspaceMgr mgr, INDArray array, ArrayType arrayType,
                                               int layerIdx, boolean isPreprocessor, String op) {
            super.validateArrayWorkspaces(mgr, array, arrayType, layerIdx, isPreprocessor, op);
            if (!isPreprocessor && BACKPROP.equals(op)) {
                tell(tap, getLayer(layerIdx), getFlattenedGradients());
            }
        }
    }

    /** A {@link ComputationGraph} whose backward pass tells a {@link ReplicaModel.LayerTap} each layer it finishes. */
    @SuppressWarnings("overrides") // as Network
    static final class Graph extends ComputationGraph implements Tapped {
        private static final long serialVersionUID = 1L;
        private transient ReplicaModel.LayerTap tap;

        private Graph(ComputationGraphConfiguration conf) {
            super(conf);
        }

        /** A copy of {@code graph} as {@code ComputationGraph.clone()} makes it, as this class. */
        static Graph copyOf(ComputationGraph graph) {
            Graph copy = new Graph(graph.getConfiguration().clone());
            copy.init(graph.params().dup(), false);
            if (graph.getUpdater(false) != null) {
                INDArray state = graph.getUpdater(false).getStateViewArray();
                if (state != null) {
                    copy.getUpdater().setStateViewArray(state.dup());
                }
            }
            copy.setListeners(graph.getListeners());
            for (GraphVertex v : graph.getVertices()) {
                if (v.hasLayer() && v.getLayer() instanceof FrozenLayer) {
                    copy.getVertex(v.getVertexName()).setLayerAsFrozen();
                }
            }
            return copy;
        }

        @Override
        public void tap(ReplicaModel.LayerTap t) {
            this.tap = t;
        }

        @Override
        protected void validateArrayWorkspaces(LayerWorkspaceMgr mgr, INDArray array, ArrayType arrayType,
                                               String vertexName, boolean isInputVertex, String op) {
            super.validateArrayWorkspaces(mgr, array, arrayType, vertexName, isInputVertex, op);
            if (BACKPROP.equals(op) && tap != null) {
                GraphVertex v = getVertex(vertexName);
                if (v != null && v.hasLayer()) {
                    tell(tap, v.getLayer(), getFlattenedGradients());
                }
            }
        }
    }
}

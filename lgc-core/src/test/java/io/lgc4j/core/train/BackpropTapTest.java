package io.lgc4j.core.train;

import io.lgc4j.core.compute.ComputeSettings;

import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Nesterovs;
import org.nd4j.linalg.lossfunctions.LossFunctions;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Pins the seam of {@link BackpropTap} (DL4J 1.0.0-M2.1's {@code validateArrayWorkspaces(..., "Backprop")} after each
 * layer's backward): a replica copy tells each layer's part of the flattened gradient as soon as the backward pass has
 * finished it, the last layers first; what it was when told is what it is when the pass returns, bit for bit; every
 * element is told exactly once; and the copy computes what {@code clone()} computes. A DL4J upgrade that moves the seam
 * fails here, and backward overlap would then read unfinished gradients.
 */
class BackpropTapTest {

    /** A call of the tap and the gradient's values in its range at that moment. */
    private record Told(int from, int to, float[] values) {
    }

    private static List<Told> pass(ReplicaModel replica, DataSet batch) {
        List<Told> told = new ArrayList<>();
        replica.computeGradient(batch.getFeatures(), batch.getLabels(), (from, to) -> {
            INDArray flat = replica.gradient();
            told.add(new Told(from, to, flat.data().getFloatsAt(flat.offset() + from, to - from)));
        });
        return told;
    }

    /** Every element told once, each part as the pass left it, and the first layers' part told last. */
    private static void checkTold(List<Told> told, ReplicaModel replica) {
        float[] last = replica.gradient().toFloatVector();
        boolean[] seen = new boolean[last.length];
        for (Told t : told) {
            for (int i = t.from(); i < t.to(); i++) {
                assertTrue(!seen[i], "element " + i + " told twice");
                seen[i] = true;
            }
            assertArrayEquals(Arrays.copyOfRange(last, t.from(), t.to()), t.values(),
                    "elements " + t.from() + ".." + t.to() + " changed after they were told final");
        }
        for (int i = 0; i < seen.length; i++) {
            assertTrue(seen[i], "element " + i + " never told");
        }
        assertEquals(0, told.get(told.size() - 1).from(), "the first layer's part comes last");
    }

    /** The ranges of {@code model}'s layers with parameters, last layer first. */
    private static List<List<Integer>> layerRanges(Model model, Layer[] layers) {
        INDArray flat = model.params();
        List<List<Integer>> ranges = new ArrayList<>();
        for (int i = layers.length - 1; i >= 0; i--) {
            INDArray p = layers[i].params();
            if (p != null && p.length() > 0) {
                int from = (int) (p.offset() - flat.offset());
                ranges.add(List.of(from, from + (int) p.length()));
            }
        }
        return ranges;
    }

    @ParameterizedTest(name = "oneDNN helpers {0}")
    @ValueSource(booleans = {true, false})
    void aNetworkShouldTellEachLayerAsItsBackwardEnds(boolean oneDnn) {
        MultiLayerNetwork conv = convNet(7);
        ReplicaModel replica = ReplicaModel.wrap(conv).copy(new ComputeSettings(oneDnn, ComputeSettings.DEFAULT
                .cacheMode()));
        DataSet batch = images(6, 3);
        for (int step = 0; step < 2; step++) {
            List<Told> told = pass(replica, batch);
            checkTold(told, replica);
            // conv (0), pool, conv, pool, dense, output: the output layer, the dense layer and the second conv
            // layer are told as their backward ends; the first layer's part when the pass returns
            MultiLayerNetwork net = (MultiLayerNetwork) replica.model();
            List<List<Integer>> expected = layerRanges(net, net.getLayers());
            List<List<Integer>> actual = told.stream().map(t -> List.of(t.from(), t.to())).toList();
            assertEquals(expected, actual);
            replica.applyGradient(replica.gradient().toFloatVector(), 6);
        }
    }

    @Test
    void aGraphShouldTellEachLayerVertexAsItsBackwardEnds() {
        ReplicaModel replica = ReplicaModel.wrap(TestModels.graph(5)).copy(ComputeSettings.DEFAULT);
        DataSet batch = TestModels.data(10, 2);
        List<Told> told = pass(replica, batch);
        checkTold(told, replica);
        ComputationGraph graph = (ComputationGraph) replica.model();
        // out, hidden, bn (through the skip's add), stem: reverse topological order = the layout from the end
        List<List<Integer>> expected = new ArrayList<>();
        for (String name : List.of("out", "hidden", "bn", "stem")) {
            INDArray p = graph.getLayer(name).params();
            int from = (int) (p.offset() - graph.params().offset());
            expected.add(List.of(from, from + (int) p.length()));
        }
        assertEquals(expected, told.stream().map(t -> List.of(t.from(), t.to())).toList());
        assertTrue(told.size() >= 3, "the graph told its layers one by one, not once at the end: " + told.size());
    }

    /** A tapped copy is the same network: the same gradient and, after an update, the same parameters as clone()'s. */
    @Test
    void aTappedCopyShouldComputeWhatACloneComputes() {
        MultiLayerNetwork origin = convNet(3);
        DataSet batch = images(4, 9);
        origin.fit(batch); // updater state to copy
        ReplicaModel tapped = ReplicaModel.wrap(origin).copy(ComputeSettings.BUILT_IN);
        ReplicaModel cloned = new ReplicaModel.Network(origin.clone());
        assertTrue(tapped.model() instanceof BackpropTap.Network, tapped.model().getClass().getName());
        for (int step = 0; step < 3; step++) {
            pass(tapped, batch);
            cloned.computeGradient(batch.getFeatures(), batch.getLabels());
            assertArrayEquals(cloned.gradient().toFloatVector(), tapped.gradient().toFloatVector(), "step " + step);
            tapped.applyGradient(tapped.gradient().toFloatVector(), 4);
            cloned.applyGradient(cloned.gradient().toFloatVector(), 4);
        }
        assertArrayEquals(cloned.params().toFloatVector(), tapped.params().toFloatVector());
        assertArrayEquals(cloned.updaterState().toFloatVector(), tapped.updaterState().toFloatVector());
        assertArrayEquals(cloned.counts(), tapped.counts());
    }

    /** A model wrapped as it is (not a copy) has no seam: it tells the whole gradient once the pass returns. */
    @Test
    void aWrappedModelShouldTellTheWholeGradientAtTheEnd() {
        ReplicaModel plain = ReplicaModel.wrap(TestModels.mlp(2));
        List<Told> told = pass(plain, TestModels.data(8, 1));
        assertEquals(1, told.size());
        assertEquals(0, told.get(0).from());
        assertEquals(plain.params().length(), told.get(0).to());
    }

    /** conv 3×3×4 → max pool → conv 3×3×6 → max pool → batch norm → dense 16 → softmax 3, on 1×12×12 images. */
    static MultiLayerNetwork convNet(long seed) {
        MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder().seed(seed).dataType(DataType.FLOAT)
                .updater(new Nesterovs(0.05, 0.9)).weightInit(WeightInit.XAVIER).list()
                .layer(new ConvolutionLayer.Builder(3, 3).nOut(4).activation(Activation.RELU).build())
                .layer(new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX).kernelSize(2, 2).stride(2, 2)
                        .build())
                .layer(new ConvolutionLayer.Builder(3, 3).nOut(6).activation(Activation.RELU).build())
                .layer(new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX).kernelSize(2, 2).stride(1, 1)
                        .build())
                .layer(new BatchNormalization.Builder().build())
                .layer(new DenseLayer.Builder().nOut(16).activation(Activation.RELU).build())
                .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nOut(3)
                        .activation(Activation.SOFTMAX).build())
                .setInputType(InputType.convolutional(12, 12, 1)).build();
        MultiLayerNetwork net = new MultiLayerNetwork(conf);
        net.init();
        return net;
    }

    static DataSet images(int n, long seed) {
        Random random = new Random(seed);
        float[][][][] x = new float[n][1][12][12];
        float[][] y = new float[n][3];
        for (int i = 0; i < n; i++) {
            for (int r = 0; r < 12; r++) {
                for (int c = 0; c < 12; c++) {
                    x[i][0][r][c] = (float) random.nextGaussian();
                }
            }
            y[i][random.nextInt(3)] = 1;
        }
        return new DataSet(Nd4j.createFromArray(x), Nd4j.createFromArray(y));
    }
}

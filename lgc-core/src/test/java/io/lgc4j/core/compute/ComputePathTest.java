package io.lgc4j.core.compute;

import io.lgc4j.core.train.DistributedTrainer;
import io.lgc4j.core.train.ReplicaModel;
import io.lgc4j.core.train.TestModels;
import io.lgc4j.core.train.Topology;
import io.lgc4j.zoo.ModelZoo;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.conf.CacheMode;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.graph.MergeVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.LocalResponseNormalization;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.PoolingType;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

import java.util.List;
import java.util.Map;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fast path is on for every model LGC4J trains, and computes what DL4J's own path computes: on the default
 * backend (the {@code onednn} classifier) every convolution, pooling and batch-norm layer of every replica runs on
 * its oneDNN helper, and a gradient and one SGD step equal the built-in path's to float tolerance.
 */
class ComputePathTest {
    /** Each rank applies its own gradient: enough to build, train and inspect K replicas. */
    private static final Topology OWN_GRADIENT = TestModels.ownGradient();

    private static final Map<String, Function<IUpdater, Model>> MODELS = Map.of(
            "LeNet-5", u -> ModelZoo.smallCnn(7, u),
            "small ResNet", u -> ModelZoo.smallResNet(7, u),
            "user graph", ComputePathTest::userGraph);

    /**
     * A graph as a user might write one, not from the zoo: two convolution branches (one through batch norm and LRN)
     * merged, average pooling, a dense layer. It has each kind of layer DL4J M2.1 gives a oneDNN helper on the CPU, and
     * an LRN layer, which DL4J M2.1 builds with its helper on CUDA only.
     */
    static ComputationGraph userGraph(IUpdater updater) {
        ComputationGraph graph = new ComputationGraph(new NeuralNetConfiguration.Builder()
                .seed(11).dataType(DataType.FLOAT).updater(updater).weightInit(WeightInit.XAVIER)
                .convolutionMode(ConvolutionMode.Same)
                .graphBuilder()
                .addInputs("pixels")
                .setInputTypes(InputType.convolutionalFlat(28, 28, 1))
                .addLayer("wide", new ConvolutionLayer.Builder(5, 5).nOut(8).activation(Activation.IDENTITY)
                        .build(), "pixels")
                .addLayer("wide_bn", new BatchNormalization.Builder().activation(Activation.RELU).build(), "wide")
                .addLayer("wide_lrn", new LocalResponseNormalization.Builder().build(), "wide_bn")
                .addLayer("narrow", new ConvolutionLayer.Builder(1, 1).nOut(4).activation(Activation.TANH).build(),
                        "pixels")
                .addVertex("merged", new MergeVertex(), "wide_lrn", "narrow")
                .addLayer("pool", new SubsamplingLayer.Builder(PoolingType.AVG).kernelSize(4, 4).stride(4, 4)
                        .build(), "merged")
                .addLayer("hidden", new DenseLayer.Builder().nOut(24).activation(Activation.RELU).build(), "pool")
                .addLayer("out", new OutputLayer.Builder(LossFunction.MCXENT).nOut(10)
                        .activation(Activation.SOFTMAX).build(), "hidden")
                .setOutputs("out")
                .build());
        graph.init();
        return graph;
    }

    private static DataSet data(int n, long seed) {
        Nd4j.getRandom().setSeed(seed);
        INDArray x = Nd4j.randn(DataType.FLOAT, n, 784);
        INDArray y = Nd4j.zeros(DataType.FLOAT, n, 10);
        for (int i = 0; i < n; i++) {
            y.putScalar(i, (i * 7 + 3) % 10, 1f);
        }
        return new DataSet(x, y);
    }

    @Test
    void shouldHaveOneDnnOnTheDefaultBackend() {
        assertTrue(LayerHelpers.oneDnnAvailable(), "the default ND4J classifier (linux-x86_64-onednn-avx2) runs"
                + " oneDNN; this backend does not, so every layer would fall back to DL4J's own path");
    }

    @Test
    void shouldBuildEveryReplicaOfEveryModelWithItsHelpers() {
        for (Map.Entry<String, Function<IUpdater, Model>> e : MODELS.entrySet()) {
            DistributedTrainer trainer = DistributedTrainer.builder().model(e.getValue().apply(new Sgd(0.05)))
                    .data(data(64, 1)).workers(2).batchSizePerWorker(16).topology(OWN_GRADIENT).maxSteps(2).build();
            trainer.fit(1);
            for (ReplicaModel replica : trainer.replicas()) {
                ComputeReport report = ComputeReport.of(replica.model(), ComputeSettings.DEFAULT);
                assertEquals(List.of(), report.missingHelpers(), e.getKey() + ": layers without their helper");
                assertTrue(report.layers().stream().anyMatch(ComputeReport.LayerCompute::expected),
                        e.getKey() + " has layers with helpers");
            }
            assertEquals(List.of(), trainer.compute().missingHelpers(), e.getKey());
            if (e.getKey().equals("user graph")) {
                assertEquals("built-in", ((Map<?, ?>) trainer.compute().toMap().get("layers")).get("wide_lrn"));
            }
            assertTrue(trainer.compute().settings().oneDnn(), e.getKey());
        }
    }

    @Test
    void shouldNameEachLayersHelperInTheReport() {
        DistributedTrainer trainer = DistributedTrainer.builder().model(ModelZoo.smallCnn(3, new Sgd(0.1)))
                .data(data(32, 2)).workers(1).batchSizePerWorker(16).topology(OWN_GRADIENT).build();
        Map<String, Object> report = new java.util.LinkedHashMap<>(trainer.compute().toMap());
        assertEquals(Nd4jBuild.current().loaded(), report.remove("nd4jBuild"));
        assertEquals(Nd4jBuild.current().reason(), report.remove("nd4jBuildReason"));
        assertEquals(Map.of("oneDnn", true, "oneDnnAvailable", true, "cacheMode", "HOST", "layers",
                        Map.of("conv1", "InputConvolutionHelper", "pool1", "NativePoolingHelper",
                                "conv2", "MKLDNNConvHelper", "pool2", "NativePoolingHelper",
                                "fc1", ComputeReport.BUILT_IN, "output", ComputeReport.BUILT_IN),
                        "missingHelpers", List.of()),
                report);
        assertEquals(List.of("conv1", "pool1", "conv2", "pool2", "fc1", "output"),
                List.copyOf(((Map<?, ?>) trainer.compute().toMap().get("layers")).keySet()));
    }

    @Test
    void shouldNameTheLayersThatLackTheirHelperOnlyWhenOneDnnWasAskedForAndIsThere() {
        List<ComputeReport.LayerCompute> layers = List.of(
                new ComputeReport.LayerCompute("conv", "ConvolutionLayer", ComputeReport.BUILT_IN, true),
                new ComputeReport.LayerCompute("pool", "SubsamplingLayer", "NativePoolingHelper", true),
                new ComputeReport.LayerCompute("dense", "DenseLayer", ComputeReport.BUILT_IN, false));
        assertEquals(List.of("conv"), new ComputeReport(ComputeSettings.DEFAULT, true, layers).missingHelpers()
                .stream().map(ComputeReport.LayerCompute::name).toList());
        assertEquals(List.of("conv"), new ComputeReport(ComputeSettings.DEFAULT, true, layers).toMap()
                .get("missingHelpers"));
        assertEquals(List.of(), new ComputeReport(ComputeSettings.DEFAULT, false, layers).missingHelpers(),
                "no oneDNN in the native library: nothing could have had it");
        assertEquals(List.of(), new ComputeReport(ComputeSettings.BUILT_IN, true, layers).missingHelpers(),
                "not asked for");
    }

    @Test
    void shouldBuildNoHelperWhenSwitchedOff() {
        DistributedTrainer trainer = DistributedTrainer.builder().model(ModelZoo.smallResNet(3, new Sgd(0.1)))
                .data(data(32, 2)).workers(2).batchSizePerWorker(16).topology(OWN_GRADIENT)
                .compute(ComputeSettings.BUILT_IN).build();
        for (ReplicaModel replica : trainer.replicas()) {
            for (ComputeReport.LayerCompute layer : ComputeReport.of(replica.model(), ComputeSettings.BUILT_IN)
                    .layers()) {
                assertEquals(ComputeReport.BUILT_IN, layer.helper(), layer.name());
            }
        }
        assertEquals(List.of(), trainer.compute().missingHelpers(), "nothing is missing when nothing was asked for");
    }

    @Test
    void shouldLeaveTheHelperPropertyAsItWas() {
        String before = System.getProperty(LayerHelpers.DISABLE_PROPERTY);
        MultiLayerNetwork fast = LayerHelpers.build(true, () -> ModelZoo.tinyCnn(1, new Sgd(0.1)));
        assertTrue(LayerHelpers.helperName(fast.getLayer(0)).isPresent());
        assertEquals(before, System.getProperty(LayerHelpers.DISABLE_PROPERTY));
        MultiLayerNetwork plain = ModelZoo.tinyCnn(1, new Sgd(0.1));
        assertFalse(LayerHelpers.helperName(plain.getLayer(0)).isPresent(),
                "a model built outside LayerHelpers.build keeps DL4J's default (no helpers)");
    }

    @Test
    void shouldComputeTheSameGradientAndSgdStepAsTheBuiltInPath() {
        DataSet batch = data(32, 5);
        for (Map.Entry<String, Function<IUpdater, Model>> e : MODELS.entrySet()) {
            ReplicaModel origin = ReplicaModel.wrap(e.getValue().apply(new Sgd(0.1)));
            ReplicaModel builtIn = origin.copy(ComputeSettings.BUILT_IN);
            ReplicaModel fast = origin.copy(ComputeSettings.DEFAULT);
            assertFalse(ComputeReport.of(fast.model(), ComputeSettings.DEFAULT).layers().stream()
                    .filter(ComputeReport.LayerCompute::expected).anyMatch(l -> l.helper().equals(
                            ComputeReport.BUILT_IN)), e.getKey());
            double scoreBuiltIn = builtIn.computeGradient(batch.getFeatures(), batch.getLabels());
            double scoreFast = fast.computeGradient(batch.getFeatures(), batch.getLabels());
            assertEquals(scoreBuiltIn, scoreFast, 1e-5 * Math.max(1, Math.abs(scoreBuiltIn)), e.getKey() + " score");
            float[] g0 = builtIn.gradient().toFloatVector();
            float[] g1 = fast.gradient().toFloatVector();
            assertClose(g0, g1, e.getKey() + " gradient");
            builtIn.applyGradient(g0, 32);
            fast.applyGradient(g1, 32);
            assertClose(builtIn.params().toFloatVector(), fast.params().toFloatVector(), e.getKey() + " after a step");
        }
    }

    @Test
    void shouldPoolBitForBitAsOneDnnDoes() throws ReflectiveOperationException {
        DataSet batch = data(32, 8);
        java.lang.reflect.Field helper = org.deeplearning4j.nn.layers.convolution.subsampling.SubsamplingLayer.class
                .getDeclaredField("helper");
        helper.setAccessible(true);
        for (String name : List.of("LeNet-5", "small ResNet")) {
            ReplicaModel origin = ReplicaModel.wrap(MODELS.get(name).apply(new Sgd(0.1)));
            ReplicaModel nativePooling = origin.copy(ComputeSettings.DEFAULT);
            ReplicaModel oneDnnPooling = origin.copy(ComputeSettings.DEFAULT);
            int pools = 0;
            for (org.deeplearning4j.nn.api.Layer layer : LayerHelpers.layers(oneDnnPooling.model())) {
                if (layer.getHelper() instanceof NativePoolingHelper) {
                    helper.set(layer, new org.deeplearning4j.nn.layers.mkldnn.MKLDNNSubsamplingHelper(DataType.FLOAT));
                    pools++;
                }
            }
            assertTrue(pools > 0, name);
            nativePooling.computeGradient(batch.getFeatures(), batch.getLabels());
            oneDnnPooling.computeGradient(batch.getFeatures(), batch.getLabels());
            assertArrayEquals(oneDnnPooling.gradient().toFloatVector(), nativePooling.gradient().toFloatVector(),
                    name + ": max pooling's gradient goes to each window's maximum on either implementation");
        }
    }

    @Test
    void shouldComputeTheSameBitsWithEitherCacheMode() {
        DataSet batch = data(32, 6);
        for (Map.Entry<String, Function<IUpdater, Model>> e : MODELS.entrySet()) {
            ReplicaModel origin = ReplicaModel.wrap(e.getValue().apply(new Sgd(0.1)));
            for (boolean oneDnn : new boolean[] {false, true}) {
                ReplicaModel none = origin.copy(new ComputeSettings(oneDnn, CacheMode.NONE));
                ReplicaModel host = origin.copy(new ComputeSettings(oneDnn, CacheMode.HOST));
                none.computeGradient(batch.getFeatures(), batch.getLabels());
                host.computeGradient(batch.getFeatures(), batch.getLabels());
                assertArrayEquals(none.gradient().toFloatVector(), host.gradient().toFloatVector(),
                        e.getKey() + ", oneDnn " + oneDnn);
            }
        }
    }

    /**
     * A convolution that reads the network's input leaves out the input's gradient and computes its weights' and
     * bias's gradients as DL4J's own path does, to float tolerance: by a correlation on oneDNN where it can (unit
     * steps; Same mode with an odd kernel), else by oneDNN's whole backward pass.
     */
    @Test
    void shouldComputeAnInputConvolutionsGradientWithoutTheInputsGradient() {
        DataSet batch = data(16, 9);
        record Case(String name, ConvolutionMode mode, int kernel, int stride, boolean bias) {
        }
        for (Case c : List.of(new Case("5x5 truncate", ConvolutionMode.Truncate, 5, 1, true),
                new Case("3x3 same", ConvolutionMode.Same, 3, 1, true),
                new Case("5x5 no bias", ConvolutionMode.Truncate, 5, 1, false),
                new Case("4x4 same (oneDNN's pass)", ConvolutionMode.Same, 4, 1, true),
                new Case("3x3 stride 2 (oneDNN's pass)", ConvolutionMode.Truncate, 3, 2, true))) {
            MultiLayerNetwork net = new MultiLayerNetwork(new NeuralNetConfiguration.Builder().seed(3)
                    .dataType(DataType.FLOAT).updater(new Sgd(0.1)).weightInit(WeightInit.XAVIER)
                    .convolutionMode(c.mode()).list()
                    .layer(new ConvolutionLayer.Builder(c.kernel(), c.kernel()).stride(c.stride(), c.stride())
                            .nOut(6).hasBias(c.bias()).activation(Activation.RELU).build())
                    .layer(new ConvolutionLayer.Builder(3, 3).nOut(4).activation(Activation.RELU).build())
                    .layer(new OutputLayer.Builder(LossFunction.MCXENT).nOut(10).activation(Activation.SOFTMAX)
                            .build())
                    .setInputType(InputType.convolutionalFlat(28, 28, 1)).build());
            net.init();
            ReplicaModel origin = ReplicaModel.wrap(net);
            ReplicaModel builtIn = origin.copy(ComputeSettings.BUILT_IN);
            ReplicaModel fast = origin.copy(ComputeSettings.DEFAULT);
            assertEquals(List.of("InputConvolutionHelper", "MKLDNNConvHelper", ComputeReport.BUILT_IN),
                    ComputeReport.of(fast.model(), ComputeSettings.DEFAULT).layers().stream()
                            .map(ComputeReport.LayerCompute::helper).toList(), c.name());
            builtIn.computeGradient(batch.getFeatures(), batch.getLabels());
            fast.computeGradient(batch.getFeatures(), batch.getLabels());
            assertClose(builtIn.gradient().toFloatVector(), fast.gradient().toFloatVector(), c.name());
        }
        ComputationGraph graph = LayerHelpers.build(true, () -> userGraph(new Sgd(0.1)));
        assertEquals("InputConvolutionHelper", LayerHelpers.helperName(graph.getLayer("wide")).orElseThrow());
        assertEquals("InputConvolutionHelper", LayerHelpers.helperName(graph.getLayer("narrow")).orElseThrow());
    }

    /** Equal to float tolerance: every element within 1e-5 of the largest magnitude (at least 1). */
    private static void assertClose(float[] expected, float[] actual, String what) {
        assertEquals(expected.length, actual.length, what);
        double scale = 1;
        for (float v : expected) {
            scale = Math.max(scale, Math.abs(v));
        }
        double worst = 0;
        int at = -1;
        for (int i = 0; i < expected.length; i++) {
            double d = Math.abs(expected[i] - actual[i]);
            if (d > worst) {
                worst = d;
                at = i;
            }
        }
        assertTrue(worst <= 1e-5 * scale, what + ": largest difference " + worst + " at element " + at
                + " (largest magnitude " + scale + ")");
    }
}

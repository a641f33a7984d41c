package io.lgc4j.analysis;

import io.lgc4j.analysis.GradientInformationProbe.LayerSummary;
import io.lgc4j.analysis.GradientInformationProbe.Row;
import io.lgc4j.analysis.GradientInformationProbe.Settings;
import io.lgc4j.analysis.GradientInformationProbe.Summary;
import io.lgc4j.analysis.HistogramInformation.Estimate;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.train.ReplicaModel;
import io.lgc4j.core.train.TestModels;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Nesterovs;
import org.nd4j.linalg.lossfunctions.LossFunctions;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GradientInformationProbeTest {

    private static final List<Quantizer> QUANTIZERS = List.of(Quantizer.uniform(256), Quantizer.FLOAT32_BITS);

    /** K = 2, 16 examples per rank, 6 steps sampled at 0, 2 and 4. */
    private static final Settings SETTINGS = new Settings(2, 16, 6, 2, 0, 1, 7, QUANTIZERS);

    @Test
    void shouldWriteARowPerSampledStepLayerAndQuantizerWithinPlugInBounds() throws IOException {
        MultiLayerNetwork net = mlp(3);
        DataSet data = randomData(512, 20, 5);
        GradientLayout layout = GradientLayout.of(net);
        float[] before = net.params().toFloatVector();
        List<Row> rows = new ArrayList<>();
        List<Integer> progress = new ArrayList<>();
        Summary summary = GradientInformationProbe.run(ReplicaModel.wrap(net), data.getFeatures(), data.getLabels(),
                SETTINGS, rows::add, (done, total) -> {
                    assertEquals(6, total);
                    progress.add(done);
                });

        assertEquals(List.of(1, 2, 3, 4, 5, 6), progress);
        assertArrayEquals(new int[] {0, 2, 4}, summary.sampledSteps());
        assertEquals(List.of("layer0", "layer1"), layout.layerNames());
        int[] elements = {20 * 16 + 16, 16 * 3 + 3};
        int at = 0;
        for (int step : summary.sampledSteps()) {
            for (int layer = 0; layer < 2; layer++) {
                for (Quantizer q : QUANTIZERS) {
                    Row row = rows.get(at++);
                    assertEquals(step, row.step());
                    assertEquals(layer, row.layer());
                    assertEquals(layout.layerNames().get(layer), row.layerName());
                    assertEquals(elements[layer], row.elements());
                    assertEquals(q, row.quantizer());
                    assertWithinPlugInBounds(row.estimate(), row.toString());
                    assertWithinPlugInBounds(row.shuffled(), row.toString());
                    assertEquals(row.estimate().entropyX(), row.shuffled().entropyX(), 0, row.toString());
                }
            }
        }
        assertEquals(rows.size(), at);

        assertEquals(4, summary.layers().size());
        for (LayerSummary s : summary.layers()) {
            List<Row> mine = rows.stream().filter(r -> r.layer() == s.layer() && r.quantizer().equals(s.quantizer()))
                    .toList();
            assertEquals(3, s.samples());
            assertEquals(mine.stream().mapToDouble(r -> r.estimate().entropyY()).average().orElseThrow(),
                    s.meanEntropyY(), 1e-12);
            assertEquals(mine.stream().mapToDouble(r -> r.estimate().mutualInformationShare()).average()
                    .orElseThrow(), s.meanShare(), 1e-12);
            assertEquals(mine.stream().mapToDouble(r -> r.shuffled().mutualInformation()).average().orElseThrow(),
                    s.meanShuffledMutualInformation(), 1e-12);
        }
        assertEquals(6, summary.meanLoss().length);
        assertTrue(Arrays.stream(summary.meanLoss()).allMatch(Double::isFinite));
        assertFalse(Arrays.equals(before, net.params().toFloatVector()), "training should move the parameters");
        assertEquals(6, net.getIterationCount());
    }

    @Test
    void shouldFindYSharesAllItsInformationWithXWhenBothRanksSeeTheSameExamples() throws IOException {
        // Every example the same: both ranks' batches, and so their gradients, are identical.
        DataSet one = randomData(1, 20, 8);
        DataSet data = new DataSet(Nd4j.repeat(one.getFeatures(), 64).reshape(64, 20),
                Nd4j.repeat(one.getLabels(), 64).reshape(64, 3));
        List<Row> rows = new ArrayList<>();
        GradientInformationProbe.run(ReplicaModel.wrap(mlp(4)), data.getFeatures(), data.getLabels(),
                new Settings(2, 8, 3, 1, 1, 0, 2, QUANTIZERS), rows::add);
        assertEquals(3 * 2 * 2, rows.size());
        for (Row row : rows) {
            Estimate e = row.estimate();
            assertTrue(e.entropyY() > 0, row.toString());
            assertEquals(e.entropyY(), e.mutualInformation(), 1e-12, row.toString());
            assertEquals(1, e.mutualInformationShare(), 1e-12, row.toString());
        }
    }

    @Test
    void shouldGiveIdenticalRowsForTheSameSeed() throws IOException {
        DataSet data = randomData(512, 20, 5);
        List<Row> first = new ArrayList<>();
        List<Row> second = new ArrayList<>();
        Summary a = GradientInformationProbe.run(ReplicaModel.wrap(mlp(3)), data.getFeatures(), data.getLabels(),
                SETTINGS, first::add);
        Summary b = GradientInformationProbe.run(ReplicaModel.wrap(mlp(3)), data.getFeatures(), data.getLabels(),
                SETTINGS, second::add);
        assertEquals(first, second);
        assertEquals(a.layers(), b.layers());
        assertArrayEquals(a.meanLoss(), b.meanLoss());
    }

    @Test
    void shouldProbeEveryLayerOfAComputationGraph() throws IOException {
        ComputationGraph graph = TestModels.graph(6);
        DataSet data = TestModels.data(128, 3);
        List<Row> rows = new ArrayList<>();
        Summary summary = GradientInformationProbe.run(ReplicaModel.wrap(graph), data.getFeatures(),
                data.getLabels(), new Settings(4, 8, 2, 5, 3, 0, 1, List.of(Quantizer.uniform(64))), rows::add);
        assertArrayEquals(new int[] {0}, summary.sampledSteps());
        assertEquals(GradientLayout.of(graph).layerNames(), rows.stream().map(Row::layerName).toList());
        assertEquals(List.of("stem", "bn", "hidden", "out"),
                summary.layers().stream().map(LayerSummary::layerName).toList());
        for (Row row : rows) {
            assertWithinPlugInBounds(row.estimate(), row.toString());
        }
    }

    @Test
    void shouldStopNamingStepAndRankWhenTheLossIsNotFinite() {
        DataSet data = randomData(64, 20, 5);
        data.getFeatures().assign(Float.NaN);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> GradientInformationProbe.run(ReplicaModel.wrap(mlp(1)), data.getFeatures(), data.getLabels(),
                        SETTINGS, row -> { }));
        assertEquals("step 0, rank 0: the loss is NaN; the probe stops before the gradient spreads", e.getMessage());
    }

    @Test
    void shouldRejectFeaturesAndLabelsOfDifferentRowCounts() {
        DataSet data = randomData(64, 20, 5);
        INDArray fewer = data.getLabels().get(org.nd4j.linalg.indexing.NDArrayIndex.interval(0, 60),
                org.nd4j.linalg.indexing.NDArrayIndex.all());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> GradientInformationProbe.run(ReplicaModel.wrap(mlp(1)), data.getFeatures(), fewer, SETTINGS,
                        row -> { }));
        assertEquals("features and labels must have one row per example, found 64 and 60 rows", e.getMessage());
    }

    @Test
    void shouldRejectSettingsNamingTheFieldAndValue() {
        assertMessage("workers must be >= 2, got 1", () -> new Settings(1, 16, 6, 2, 0, 0, 7, QUANTIZERS));
        assertMessage("batch must be >= 1, got 0", () -> new Settings(2, 0, 6, 2, 0, 1, 7, QUANTIZERS));
        assertMessage("steps must be >= 1, got 0", () -> new Settings(2, 16, 0, 2, 0, 1, 7, QUANTIZERS));
        assertMessage("every must be >= 1, got 0", () -> new Settings(2, 16, 6, 0, 0, 1, 7, QUANTIZERS));
        assertMessage("rankA must be in [0, 3], got 4", () -> new Settings(4, 16, 6, 2, 4, 1, 7, QUANTIZERS));
        assertMessage("rankB must be in [0, 3], got -1", () -> new Settings(4, 16, 6, 2, 0, -1, 7, QUANTIZERS));
        assertMessage("rankA and rankB must differ, both are 1", () -> new Settings(2, 16, 6, 2, 1, 1, 7, QUANTIZERS));
        assertMessage("quantizers must name at least one quantizer, got []",
                () -> new Settings(2, 16, 6, 2, 0, 1, 7, List.of()));
        assertMessage("quantizers lists uniform-256 twice", () -> new Settings(2, 16, 6, 2, 0, 1, 7,
                List.of(Quantizer.uniform(256), Quantizer.FLOAT32_BITS, Quantizer.uniform(256))));
    }

    private static void assertMessage(String expected, org.junit.jupiter.api.function.Executable settings) {
        assertEquals(expected, assertThrows(IllegalArgumentException.class, settings).getMessage());
    }

    private static void assertWithinPlugInBounds(Estimate e, String context) {
        assertTrue(e.mutualInformation() >= 0, context);
        assertTrue(e.mutualInformation() <= Math.min(e.entropyX(), e.entropyY()), context);
        assertTrue(e.mutualInformationShare() >= 0 && e.mutualInformationShare() <= 1 + 1e-12, context);
    }

    /** 20 → 16 → 3 dense network. */
    private static MultiLayerNetwork mlp(long seed) {
        MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder().seed(seed).dataType(DataType.FLOAT)
                .updater(new Nesterovs(0.05, 0.9)).weightInit(WeightInit.XAVIER).list()
                .layer(new DenseLayer.Builder().nOut(16).activation(Activation.RELU).build())
                .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nOut(3)
                        .activation(Activation.SOFTMAX).build())
                .setInputType(InputType.feedForward(20)).build();
        MultiLayerNetwork net = new MultiLayerNetwork(conf);
        net.init();
        return net;
    }

    /** {@code n} examples of Gaussian features, labelled by which third of the features sums highest. */
    private static DataSet randomData(int n, int features, long seed) {
        Random random = new Random(seed);
        float[][] x = new float[n][features];
        float[][] y = new float[n][3];
        for (int i = 0; i < n; i++) {
            double[] sums = new double[3];
            for (int j = 0; j < features; j++) {
                x[i][j] = (float) random.nextGaussian();
                sums[j % 3] += x[i][j];
            }
            int c = sums[0] >= sums[1] && sums[0] >= sums[2] ? 0 : sums[1] >= sums[2] ? 1 : 2;
            y[i][c] = 1;
        }
        return new DataSet(Nd4j.createFromArray(x), Nd4j.createFromArray(y));
    }
}

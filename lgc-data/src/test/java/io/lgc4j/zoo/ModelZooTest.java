package io.lgc4j.zoo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.conf.layers.DropoutLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.graph.vertex.GraphVertex;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

class ModelZooTest {

    private static INDArray batch(int n) {
        Nd4j.getRandom().setSeed(7);
        return Nd4j.rand(DataType.FLOAT, n, 784);
    }

    @Test
    void shouldHaveTheParameterCountOfPyTorchsLeNet5() {
        MultiLayerNetwork net = ModelZoo.smallCnn(1L, ModelZoo.defaultUpdater());

        assertEquals(431_080L, net.numParams());
        assertEquals(ModelZoo.SMALL_CNN_PARAMS, net.numParams());
        assertEquals(520L, net.getLayer(0).numParams());
        assertEquals(25_050L, net.getLayer(2).numParams());
        assertEquals(400_500L, net.getLayer(4).numParams());
        assertEquals(5_010L, net.getLayer(5).numParams());
    }

    @Test
    void tinyCnnShouldHaveLeNetsLayersAtItsWidthsAndItsInitialization() {
        MultiLayerNetwork net = ModelZoo.tinyCnn(1L, ModelZoo.defaultUpdater());

        assertEquals(ModelZoo.TINY_CNN_PARAMS, net.numParams());
        assertEquals(156L, net.getLayer(0).numParams());
        assertEquals(1_812L, net.getLayer(2).numParams());
        assertEquals(12_352L, net.getLayer(4).numParams());
        assertEquals(650L, net.getLayer(5).numParams());
        for (int i = 0; i < 6; i++) {
            assertEquals(ModelZoo.smallCnn(1L, ModelZoo.defaultUpdater()).getLayer(i).getClass(),
                    net.getLayer(i).getClass(), "layer " + i);
        }
        assertSumsToOnePerRow(net.output(batch(3)));
        assertEquals(net.params(), ModelZoo.tinyCnn(1L, ModelZoo.defaultUpdater()).params());
    }

    @Test
    void shouldOutputClassProbabilitiesForFlatImages() {
        INDArray out = ModelZoo.smallCnn(1L, ModelZoo.defaultUpdater()).output(batch(3));

        assertArrayEquals(new long[] {3, 10}, out.shape());
        assertSumsToOnePerRow(out);
    }

    @Test
    void shouldBuildTheSameCnnFromTheSameSeed() {
        INDArray a = ModelZoo.smallCnn(42L, ModelZoo.defaultUpdater()).params();
        INDArray b = ModelZoo.smallCnn(42L, ModelZoo.defaultUpdater()).params();
        INDArray c = ModelZoo.smallCnn(43L, ModelZoo.defaultUpdater()).params();

        assertEquals(a, b);
        assertNotEquals(a, c);
    }

    @Test
    void shouldOutputClassProbabilitiesFromTheResNet() {
        ComputationGraph net = ModelZoo.smallResNet(1L, ModelZoo.defaultUpdater());

        INDArray out = net.outputSingle(batch(3));

        assertArrayEquals(new long[] {3, 10}, out.shape());
        assertSumsToOnePerRow(out);
    }

    @Test
    void shouldBuildTheSameResNetFromTheSameSeed() {
        INDArray a = ModelZoo.smallResNet(42L, ModelZoo.defaultUpdater()).params();
        INDArray b = ModelZoo.smallResNet(42L, ModelZoo.defaultUpdater()).params();
        INDArray c = ModelZoo.smallResNet(43L, ModelZoo.defaultUpdater()).params();

        assertEquals(a, b);
        assertNotEquals(a, c);
    }

    @Test
    void shouldGiveTheSameResNetOutputForTheSameInput() {
        ComputationGraph net = ModelZoo.smallResNet(42L, ModelZoo.defaultUpdater());
        INDArray x = batch(4);

        assertEquals(net.outputSingle(false, x), net.outputSingle(false, x));
    }

    @Test
    void shouldUseBatchNormalizationAndNoDropoutInTheResNet() {
        ComputationGraph net = ModelZoo.smallResNet(1L, ModelZoo.defaultUpdater());

        int batchNorms = 0;
        for (GraphVertex vertex : net.getVertices()) {
            if (vertex.hasLayer()) {
                var conf = vertex.getLayer().conf().getLayer();
                assertTrue(conf.getIDropout() == null, vertex.getVertexName() + " has dropout");
                assertTrue(!(conf instanceof DropoutLayer), vertex.getVertexName() + " is a dropout layer");
                batchNorms += conf instanceof BatchNormalization ? 1 : 0;
            }
        }
        assertTrue(batchNorms >= 5, "batch normalizations: " + batchNorms);
    }

    private static void assertSumsToOnePerRow(INDArray probabilities) {
        INDArray sums = probabilities.sum(1);
        for (int r = 0; r < sums.length(); r++) {
            assertEquals(1.0, sums.getDouble(r), 1e-5);
        }
    }
}

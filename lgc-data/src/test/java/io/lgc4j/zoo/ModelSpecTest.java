package io.lgc4j.zoo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.junit.jupiter.api.Test;

class ModelSpecTest {

    @Test
    void shouldFindModelsByTheirConfigName() {
        assertEquals(ModelSpec.SMALL_CNN, ModelSpec.fromName("small-cnn"));
        assertEquals(ModelSpec.SMALL_RESNET, ModelSpec.fromName("small-resnet"));
        assertEquals(ModelSpec.TINY_CNN, ModelSpec.fromName("tiny-cnn"));
    }

    @Test
    void shouldRejectAnUnknownNameListingTheKnownOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ModelSpec.fromName("lenet"));

        assertEquals("unknown model 'lenet'; known models: small-cnn, small-resnet, tiny-cnn", e.getMessage());
    }

    @Test
    void shouldBuildTheMatchingModelType() {
        assertInstanceOf(MultiLayerNetwork.class, ModelSpec.SMALL_CNN.build(1L, ModelZoo.defaultUpdater()));
        assertInstanceOf(ComputationGraph.class, ModelSpec.SMALL_RESNET.build(1L, ModelZoo.defaultUpdater()));
        assertInstanceOf(MultiLayerNetwork.class, ModelSpec.TINY_CNN.build(1L, ModelZoo.defaultUpdater()));
    }
}

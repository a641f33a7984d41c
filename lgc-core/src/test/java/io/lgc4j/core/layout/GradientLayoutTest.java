package io.lgc4j.core.layout;

import io.lgc4j.core.train.TestModels;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class GradientLayoutTest {

    @Test
    void shouldCutAMultiLayerNetworkIntoItsParameterBlocksWithDefaultPolicies() {
        MultiLayerNetwork net = TestModels.mlp(1);
        GradientLayout layout = GradientLayout.of(net);
        assertEquals(net.numParams(), layout.length());
        List<String> names = layout.blocks().stream().map(ParamBlock::qualifiedName).toList();
        assertEquals(List.of("layer0/W", "layer0/b", "layer1/W", "layer1/b", "layer2/W", "layer2/b"), names);
        assertArrayEquals(new long[] {8, 16}, layout.blocks().get(0).shape());
        assertEquals(8 * 16, layout.blocks().get(1).offset());
        assertEquals(List.of(LayerPolicy.DENSE, LayerPolicy.DENSE, LayerPolicy.LEARNED, LayerPolicy.LEARNED,
                LayerPolicy.TOP_K, LayerPolicy.TOP_K), layout.blocks().stream().map(ParamBlock::policy).toList());
        assertEquals(8 * 16 + 16, layout.length(LayerPolicy.DENSE));
        assertEquals("layer1/b", layout.blockAt(8 * 16 + 16 + 16 * 12).qualifiedName());
    }

    @Test
    void shouldMatchEachBlockToItsViewInTheFlattenedParameters() {
        MultiLayerNetwork net = TestModels.mlp(2);
        GradientLayout layout = GradientLayout.of(net);
        for (ParamBlock b : layout.blocks()) {
            float[] fromFlat = java.util.Arrays.copyOfRange(net.params().toFloatVector(), b.offset(), b.end());
            float[] fromTable = org.nd4j.linalg.factory.Nd4j.toFlattened('f', net.getLayer(b.layerIndex()).getParam(b.paramName()))
                    .toFloatVector();
            assertArrayEquals(fromTable, fromFlat, b.qualifiedName());
        }
    }

    @Test
    void shouldKeepBatchNormStatisticsDenseInAGraph() {
        ComputationGraph graph = TestModels.graph(3);
        GradientLayout layout = GradientLayout.of(graph);
        assertEquals(graph.numParams(), layout.length());
        assertEquals(List.of("stem", "bn", "hidden", "out"), layout.layerNames());
        for (ParamBlock b : layout.blocks()) {
            LayerPolicy expected = switch (b.layerName()) {
                case "stem" -> LayerPolicy.DENSE;
                case "out" -> LayerPolicy.TOP_K;
                case "bn" -> List.of("mean", "var", "log10stdev").contains(b.paramName()) ? LayerPolicy.DENSE
                        : LayerPolicy.LEARNED;
                default -> LayerPolicy.LEARNED;
            };
            assertEquals(expected, b.policy(), b.qualifiedName());
        }
    }

    @Test
    void shouldOverridePolicyOfANamedLayerAndRejectAnUnknownOne() {
        GradientLayout layout = GradientLayout.of(TestModels.mlp(1)).withLayerPolicy("layer1", LayerPolicy.DENSE);
        assertEquals(LayerPolicy.DENSE, layout.blocks().get(2).policy());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> layout.withLayerPolicy("conv9", LayerPolicy.DENSE));
        assertEquals("no layer named 'conv9'; layers with parameters: [layer0, layer1, layer2]", e.getMessage());
    }
}

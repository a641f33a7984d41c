package io.lgc4j.core.train;

import io.lgc4j.core.comm.Direction;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.compress.Compressor;
import io.lgc4j.core.compress.DgcCompressor;
import io.lgc4j.core.compress.ScaleComCompressor;
import io.lgc4j.core.compress.TopKCompressor;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.stage.StageSchedule;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.learning.config.Sgd;

import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The contract every topology keeps with every compressor: sending everything (ratio 1) trains like the dense
 * topology; sparse training keeps replicas bit-identical; indices and values are metered apart.
 *
 * <p>A topology that carries only some kinds of compressor (the LGC topologies bring their own support compressor)
 * aborts the others in {@link #topology(Compressor)} with a JUnit assumption, so the report shows them skipped, with
 * the reason; every test asks for the topology before it trains anything.
 */
public abstract class CompressedTopologyContract {

    /**
     * The topology under test carrying {@code compressor}; a topology that cannot carry it aborts the test with
     * {@link org.junit.jupiter.api.Assumptions#assumeTrue(boolean, String)}.
     */
    protected abstract Topology topology(Compressor compressor);

    /** The same topology without compression. */
    protected abstract Topology denseTopology();

    static Stream<Arguments> lossless() {
        return Stream.of(Arguments.of(new TopKCompressor(1.0)), Arguments.of(new ScaleComCompressor(1.0, 1.0)),
                Arguments.of(new DgcCompressor(1.0, 0.0, 0, 0)));
    }

    static Stream<Arguments> sparse() {
        return Stream.of(Arguments.of(new TopKCompressor(0.05)), Arguments.of(new ScaleComCompressor(0.05, 1.0)),
                Arguments.of(new DgcCompressor(0.05, 0.9, 0, 10)),
                Arguments.of(new io.lgc4j.core.compress.S2SketchCompressor(0.05, 5, 4.0, 8)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("lossless")
    void shouldTrainLikeTheDenseTopologyWhenEverythingIsSent(Compressor compressor) {
        Topology topology = topology(compressor);
        DataSet data = TestModels.data(3 * 8 * 10, 6);
        float[] dense = train(denseTopology(), data, 3);
        float[] compressed = train(topology, data, 3);
        for (int i = 0; i < dense.length; i++) {
            assertEquals(dense[i], compressed[i], 1e-5f * (1 + Math.abs(dense[i])), "parameter " + i);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("sparse")
    void shouldKeepReplicasBitIdenticalAndMeterIndicesApart(Compressor compressor) {
        Topology topology = topology(compressor);
        DataSet data = TestModels.data(4 * 8 * 30, 7);
        MultiLayerNetwork net = TestModels.mlp(13, new Sgd(0.1));
        DistributedTrainer trainer = DistributedTrainer.builder().model(net).data(data).workers(4)
                .batchSizePerWorker(8).topology(topology).seed(2)
                .stages(io.lgc4j.core.stage.StageSchedule.denseWarmup(5)).build();
        TrainingResult result = trainer.fit(1);
        for (int s = 0; s < 30; s++) {
            io.lgc4j.core.metrics.StepMetrics m = result.steps().get(s);
            assertEquals(s < 5 ? Stage.FULL : Stage.TOP_K, m.stage(), "stage of step " + s);
            if (s < 5) {
                assertEquals(0, m.traffic().bytes(0, Direction.SENT, TrafficKind.INDICES), "dense warm-up step " + s);
            }
        }
        float[] rank0 = trainer.replicas().get(0).params().toFloatVector();
        for (int r = 1; r < 4; r++) {
            assertArrayEquals(rank0, trainer.replicas().get(r).params().toFloatVector(), "replica " + r);
        }
        long indices = result.traffic().bytes(0, Direction.SENT, TrafficKind.INDICES);
        long values = result.traffic().bytes(0, Direction.SENT, Stage.TOP_K, TrafficKind.VALUES);
        assertTrue(values > 0, "values sent");
        if (!(compressor instanceof ScaleComCompressor)) {
            assertTrue(indices > 0, "indices sent");
        }
        assertTrue(result.steps().get(29).loss() < result.steps().get(0).loss(), "loss should fall");
        // the result records the topology's description of itself, with the codec its indices went through
        assertEquals(topology.describe(), result.method());
        assertTrue(result.method().codec() != null && !result.method().codec().isEmpty(), result.method().toString());
    }

    @Test
    void shouldRefuseDgcWithAMomentumUpdaterInTheModel() {
        Topology dgc = topology(new DgcCompressor(0.01, 0.9, 0, 0));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DistributedTrainer.builder().model(TestModels.mlp(1)).data(TestModels.data(64, 1)).workers(2)
                        .batchSizePerWorker(8).topology(dgc).build());
        assertEquals("compressor 'dgc' applies momentum itself, so the model's updater must be plain SGD; layer"
                + " 'layer0' uses Nesterovs", e.getMessage());
    }

    private static float[] train(Topology topology, DataSet data, int k) {
        // the compressed stage from step 0, given explicitly (the LGC topologies accept no default schedule)
        DistributedTrainer trainer = DistributedTrainer.builder().model(TestModels.mlp(17, new Sgd(0.1))).data(data)
                .stages(StageSchedule.denseWarmup(0))
                .workers(k).batchSizePerWorker(8).topology(topology).seed(4).build();
        trainer.fit(1);
        return trainer.replicas().get(0).params().toFloatVector();
    }
}

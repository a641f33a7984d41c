package io.lgc4j.core.train;

import io.lgc4j.core.comm.InProcessCluster;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.metrics.PhaseClock;
import io.lgc4j.core.stage.Stage;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The contract every {@link Topology} keeps when nothing is compressed: each rank ends a step with the same bits,
 * equal to the dense mean within float rounding, and K replicas trained through it stay bit-identical. A topology's
 * test class extends this and names the topology.
 */
public abstract class TopologyContract {

    /** A fresh topology under test. */
    protected abstract Topology topology();

    @ParameterizedTest(name = "K={0}")
    @ValueSource(ints = {1, 2, 3, 4, 7})
    void shouldGiveEveryRankTheSameBitsEqualToTheDenseMean(int k) throws Exception {
        int n = 1003;
        Topology topology = topology();
        GradientLayout layout = GradientLayout.ofBlocks(List.of(
                new ParamBlock(0, 0, "layer0", "W", 0, n, new long[] {n}, LayerPolicy.DENSE)));
        float[][] inputs = new float[k][n];
        double[] mean = new double[n];
        Random random = new Random(k);
        for (int r = 0; r < k; r++) {
            for (int i = 0; i < n; i++) {
                inputs[r][i] = (float) random.nextGaussian();
                mean[i] += inputs[r][i] / k;
            }
        }
        int services = topology.serviceEndpoints(k);
        float[][] outputs = new float[k][];
        try (InProcessCluster cluster = new InProcessCluster(k + services)) {
            ExecutorService pool = Executors.newFixedThreadPool(k + services);
            List<Transport> serviceTransports = new ArrayList<>();
            for (int s = 0; s < services; s++) {
                serviceTransports.add(cluster.transport(k + s));
            }
            for (ServiceLoop loop : topology.services(k, serviceTransports, layout)) {
                pool.submit(() -> {
                    try {
                        loop.run();
                    } catch (io.lgc4j.core.comm.TransportClosedException expected) {
                        // end of test
                    }
                });
            }
            List<Future<float[]>> futures = new ArrayList<>();
            for (int r = 0; r < k; r++) {
                int rank = r;
                futures.add(pool.submit(() -> {
                    GradientExchange exchange = topology.worker(rank, k, cluster.transport(rank), layout);
                    float[] g = inputs[rank].clone();
                    exchange.allReduceMean(new StepTag(0, Stage.FULL), g, new PhaseClock());
                    return g;
                }));
            }
            for (int r = 0; r < k; r++) {
                outputs[r] = futures.get(r).get();
            }
            pool.shutdown(); // the service loops end when the cluster closes, below
        }
        for (int r = 1; r < k; r++) {
            assertArrayEquals(outputs[0], outputs[r], "rank " + r);
        }
        for (int i = 0; i < n; i++) {
            assertEquals(mean[i], outputs[0][i], 1e-5 * (1 + Math.abs(mean[i])), "element " + i);
        }
    }

    @Test
    void shouldKeepReplicasOfANetworkBitIdenticalOver50Steps() {
        assertReplicasIdentical(TestModels.mlp(11));
    }

    @Test
    void shouldKeepReplicasOfAGraphWithBatchNormBitIdenticalOver50Steps() {
        assertReplicasIdentical(TestModels.graph(12));
    }

    @Test
    void shouldTrainLikeOneModelOnTheUnionOfTheRanksBatches() {
        int k = 3;
        int b = 8;
        DataSet data = TestModels.data(k * b * 6, 4);
        MultiLayerNetwork reference = TestModels.mlp(21);
        DistributedTrainer trainer = DistributedTrainer.builder().model(reference.clone()).data(data).workers(k)
                .batchSizePerWorker(b).topology(topology()).seed(9).build();
        trainer.fit(1);
        ShardPlan plan = new ShardPlan(data.numExamples(), k, b, 9);
        for (int s = 0; s < plan.stepsPerEpoch(); s++) {
            int[] rows = new int[k * b];
            for (int r = 0; r < k; r++) {
                System.arraycopy(plan.batch(0, s, r), 0, rows, r * b, b);
            }
            reference.fit(new DataSet(Nd4j.pullRows(data.getFeatures(), 1, rows),
                    Nd4j.pullRows(data.getLabels(), 1, rows)));
        }
        float[] expected = reference.params().toFloatVector();
        float[] actual = trainer.replicas().get(0).params().toFloatVector();
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], actual[i], 1e-5f * (1 + Math.abs(expected[i])), "parameter " + i);
        }
    }

    private void assertReplicasIdentical(Model model) {
        float[] initial = model.params().toFloatVector();
        DistributedTrainer trainer = DistributedTrainer.builder().model(model).data(TestModels.data(4 * 8 * 25, 3))
                .workers(4).batchSizePerWorker(8).topology(topology()).seed(5).build();
        TrainingResult result = trainer.fit(2);
        assertEquals(50, result.steps().size());
        float[] rank0 = trainer.replicas().get(0).params().toFloatVector();
        for (int r = 1; r < 4; r++) {
            assertArrayEquals(rank0, trainer.replicas().get(r).params().toFloatVector(), "replica " + r);
        }
        assertFalse(java.util.Arrays.equals(initial, rank0), "training changed nothing");
    }
}

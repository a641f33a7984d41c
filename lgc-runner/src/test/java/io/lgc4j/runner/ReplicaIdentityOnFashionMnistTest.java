package io.lgc4j.runner;

import io.lgc4j.core.train.DistributedTrainer;
import io.lgc4j.core.train.Topology;
import io.lgc4j.core.train.TrainingResult;
import io.lgc4j.data.FashionMnist;
import io.lgc4j.data.PixelPreprocessing;
import io.lgc4j.zoo.ModelZoo;
import io.lgc4j.ps.topology.ParameterServerTopology;
import io.lgc4j.ring.topology.RingTopology;
import org.deeplearning4j.nn.api.Model;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.nd4j.linalg.dataset.DataSet;

import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** After 50 steps of K = 4 training on Fashion-MNIST, every replica holds the same bits (both topologies, models). */
class ReplicaIdentityOnFashionMnistTest {
    private static DataSet train;

    @BeforeAll
    static void load() throws IOException {
        Nd4jEnvironment.configure();
        train = FashionMnist.load(FashionMnist.DEFAULT_DIR, FashionMnist.Split.TRAIN, 4 * 16 * 50,
                PixelPreprocessing.STANDARDIZE).toDataSet();
    }

    @ParameterizedTest(name = "{0} on {1}")
    @CsvSource({"small-cnn, ring", "small-cnn, ps", "small-resnet, ring", "small-resnet, ps"})
    void shouldKeepAllReplicasBitIdenticalAfter50Steps(String modelName, String topologyName) {
        Model model = modelName.equals("small-cnn") ? ModelZoo.smallCnn(7, ModelZoo.defaultUpdater())
                : ModelZoo.smallResNet(7, ModelZoo.defaultUpdater());
        Topology topology = topologyName.equals("ring") ? new RingTopology() : new ParameterServerTopology();
        DistributedTrainer trainer = DistributedTrainer.builder().model(model).data(train).workers(4)
                .batchSizePerWorker(16).topology(topology).seed(3).build();
        TrainingResult result = trainer.fit(1);
        assertEquals(50, result.steps().size());
        float[] rank0 = trainer.replicas().get(0).params().toFloatVector();
        for (int r = 1; r < 4; r++) {
            assertArrayEquals(rank0, trainer.replicas().get(r).params().toFloatVector(), "replica " + r);
        }
        double firstLoss = result.steps().get(0).loss();
        double lastLoss = result.steps().get(49).loss();
        org.junit.jupiter.api.Assertions.assertTrue(lastLoss < firstLoss,
                "loss should fall over 50 steps: " + firstLoss + " -> " + lastLoss);
    }
}

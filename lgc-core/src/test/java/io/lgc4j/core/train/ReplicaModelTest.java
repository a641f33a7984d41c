package io.lgc4j.core.train;

import io.lgc4j.core.compute.ComputeSettings;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReplicaModelTest {
    /** K = 1: the aggregate is the rank's own gradient. */
    private static final Topology SINGLE = TestModels.ownGradient();

    /**
     * A model that has not computed a gradient yet (a predicted step right after a resume) applies a mean exactly
     * as one that has: the network's and the graph's gradient views are named as DL4J names them, and a snapshot
     * puts back parameters, updater state and counts.
     */
    @Test
    void aFreshModelShouldApplyAMeanAsOneThatComputedAGradientAndASnapshotShouldPutItBack() {
        DataSet data = TestModels.data(16, 7);
        for (org.deeplearning4j.nn.api.Model model : List.of(TestModels.mlp(3), TestModels.graph(3))) {
            ReplicaModel computed = ReplicaModel.wrap(model).copy(ComputeSettings.DEFAULT);
            ReplicaModel fresh = ReplicaModel.wrap(model).copy(ComputeSettings.DEFAULT);
            computed.computeGradient(data.getFeatures(), data.getLabels());
            float[] mean = computed.gradient().toFloatVector();
            ReplicaModel.Snapshot before = fresh.snapshot();
            for (int i = 0; i < 2; i++) {
                computed.applyGradient(mean, 16);
                fresh.applyGradient(mean, 16);
            }
            assertArrayEquals(computed.params().toFloatVector(), fresh.params().toFloatVector(), model.getClass()
                    .getSimpleName());
            assertArrayEquals(computed.updaterState().toFloatVector(), fresh.updaterState().toFloatVector());
            fresh.reset(before);
            assertArrayEquals(before.params().toFloatVector(), fresh.params().toFloatVector());
            assertArrayEquals(before.updater().toFloatVector(), fresh.updaterState().toFloatVector());
            assertArrayEquals(new int[] {0, 0}, fresh.counts());
        }
    }

    @Test
    void shouldTrainExactlyAsDl4jFitWhenOneWorkerAppliesItsOwnGradient() {
        DataSet data = TestModels.data(160, 5);
        // built as the trainer builds its replicas (helpers, cache mode), so that both compute the same bits
        MultiLayerNetwork reference = (MultiLayerNetwork) ReplicaModel.wrap(TestModels.mlp(9))
                .copy(ComputeSettings.DEFAULT).model();
        DistributedTrainer trainer = DistributedTrainer.builder().model(reference.clone()).data(data).workers(1)
                .batchSizePerWorker(16).topology(SINGLE).seed(3).build();
        trainer.fit(2);
        ShardPlan plan = new ShardPlan(160, 1, 16, 3);
        for (int epoch = 0; epoch < 2; epoch++) {
            for (int s = 0; s < plan.stepsPerEpoch(); s++) {
                int[] rows = plan.batch(epoch, s, 0);
                reference.fit(new DataSet(Nd4j.pullRows(data.getFeatures(), 1, rows),
                        Nd4j.pullRows(data.getLabels(), 1, rows)));
            }
            reference.incrementEpochCount();
        }
        assertArrayEquals(reference.params().toFloatVector(), trainer.replicas().get(0).params().toFloatVector());
        assertEquals(reference.getIterationCount(), ((MultiLayerNetwork) trainer.trainedModel()).getIterationCount());
    }

    @Test
    void shouldTrainAGraphWithBatchNormExactlyAsDl4jFit() {
        DataSet data = TestModels.data(96, 6);
        ComputationGraph reference = (ComputationGraph) ReplicaModel.wrap(TestModels.graph(4))
                .copy(ComputeSettings.DEFAULT).model();
        DistributedTrainer trainer = DistributedTrainer.builder().model(reference.clone()).data(data).workers(1)
                .batchSizePerWorker(16).topology(SINGLE).seed(8).build();
        trainer.fit(1);
        ShardPlan plan = new ShardPlan(96, 1, 16, 8);
        for (int s = 0; s < plan.stepsPerEpoch(); s++) {
            int[] rows = plan.batch(0, s, 0);
            reference.fit(new DataSet(Nd4j.pullRows(data.getFeatures(), 1, rows),
                    Nd4j.pullRows(data.getLabels(), 1, rows)));
        }
        assertArrayEquals(reference.params().toFloatVector(), trainer.replicas().get(0).params().toFloatVector());
    }

    @Test
    void shouldTrainOnImageShapedFeaturesExactlyAsDl4jFit() {
        // features [N, C, H, W], as a user's own image data comes, not flattened
        Nd4j.getRandom().setSeed(12);
        org.nd4j.linalg.api.ndarray.INDArray images = Nd4j.rand(org.nd4j.linalg.api.buffer.DataType.FLOAT, 96, 2, 8, 8);
        org.nd4j.linalg.api.ndarray.INDArray labels = Nd4j.zeros(org.nd4j.linalg.api.buffer.DataType.FLOAT, 96, 3);
        for (int i = 0; i < 96; i++) {
            labels.putScalar(i, i % 3, 1f);
        }
        DataSet data = new DataSet(images, labels);
        MultiLayerNetwork net = new MultiLayerNetwork(new org.deeplearning4j.nn.conf.NeuralNetConfiguration.Builder()
                .seed(5).dataType(org.nd4j.linalg.api.buffer.DataType.FLOAT)
                .updater(new org.nd4j.linalg.learning.config.Sgd(0.1)).list()
                .layer(new org.deeplearning4j.nn.conf.layers.ConvolutionLayer.Builder(3, 3).nOut(4).build())
                .layer(new org.deeplearning4j.nn.conf.layers.SubsamplingLayer.Builder().kernelSize(2, 2).stride(2, 2)
                        .build())
                .layer(new org.deeplearning4j.nn.conf.layers.OutputLayer.Builder().nOut(3)
                        .activation(org.nd4j.linalg.activations.Activation.SOFTMAX).build())
                .setInputType(org.deeplearning4j.nn.conf.inputs.InputType.convolutional(8, 8, 2)).build());
        net.init();
        MultiLayerNetwork reference = (MultiLayerNetwork) ReplicaModel.wrap(net).copy(ComputeSettings.DEFAULT).model();
        DistributedTrainer trainer = DistributedTrainer.builder().model(net).data(data).workers(1)
                .batchSizePerWorker(16).topology(SINGLE).seed(4).build();
        trainer.fit(1);
        ShardPlan plan = new ShardPlan(96, 1, 16, 4);
        for (int s = 0; s < plan.stepsPerEpoch(); s++) {
            int[] rows = plan.batch(0, s, 0);
            org.nd4j.linalg.api.ndarray.INDArray x = ShardPlan.examples(images, rows);
            assertArrayEquals(new long[] {16, 2, 8, 8}, x.shape());
            assertEquals(images.get(org.nd4j.linalg.indexing.NDArrayIndex.point(rows[3])), x.get(
                    org.nd4j.linalg.indexing.NDArrayIndex.point(3)));
            reference.fit(new DataSet(x, ShardPlan.examples(labels, rows)));
        }
        assertArrayEquals(reference.params().toFloatVector(), trainer.replicas().get(0).params().toFloatVector());
    }

    @Test
    void shouldStopWithAClearErrorWhenAGradientIsNotFinite() {
        DataSet data = TestModels.data(64, 5);
        data.getFeatures().putScalar(new long[] {0, 0}, Float.NaN);
        DataSet single = new DataSet(data.getFeatures(), data.getLabels());
        DistributedTrainer trainer = DistributedTrainer.builder().model(TestModels.mlp(1)).data(single).workers(1)
                .batchSizePerWorker(64).topology(SINGLE).build();
        NonFiniteGradientException e = assertThrows(NonFiniteGradientException.class, () -> trainer.fit(1));
        assertTrue(e.getMessage().startsWith("rank 0 step 0: gradient element "), e.getMessage());
        assertTrue(e.getMessage().contains("(block layer0/W, element "), e.getMessage());
        assertTrue(e.getMessage().endsWith("it was not sent"), e.getMessage());
    }

    @Test
    void shouldRejectMoreWorkersTimesBatchThanExamples() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DistributedTrainer.builder().model(TestModels.mlp(1)).data(TestModels.data(50, 1)).workers(4)
                        .batchSizePerWorker(16).topology(SINGLE).build());
        assertEquals("the training data holds 50 examples, fewer than one global batch: workers × batchSizePerWorker"
                + " = 4 × 16 = 64 (every rank reads one batch per step); give more data, fewer workers or a smaller"
                + " batch", e.getMessage());
    }

    @Test
    void shouldRejectZeroWorkers() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DistributedTrainer.builder().model(TestModels.mlp(1)).data(TestModels.data(50, 1)).workers(0)
                        .topology(SINGLE).build());
        assertEquals("workers must be >= 1, found 0", e.getMessage());
    }
}

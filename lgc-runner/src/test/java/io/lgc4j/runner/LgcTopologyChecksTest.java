package io.lgc4j.runner;

import io.lgc4j.lgc.autoencoder.AeTraining;
import io.lgc4j.lgc.autoencoder.AutoencoderSpec;
import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.core.train.DistributedTrainer;
import io.lgc4j.core.train.Topology;
import io.lgc4j.lgc.ps.LgcPsTopology;
import io.lgc4j.lgc.ring.LgcRingTopology;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Both LGC topologies refuse, at {@code build()} and with the same exception and message, a model without a LEARNED
 * block and a trainer without {@code .stages(...)} (which would never leave TOP_K).
 */
class LgcTopologyChecksTest {

    private static Topology lgc(String kind) {
        return "ps".equals(kind)
                ? LgcPsTopology.builder().ratio(0.1).seed(1).build()
                : new LgcRingTopology(0.1, IndexCodecs.defaultCodec(), AutoencoderSpec.PAPER, AeTraining.DEFAULT, 1);
    }

    /** Input layer, {@code hidden} dense layers, output layer: the layers in between are LEARNED. */
    private static MultiLayerNetwork net(int hidden) {
        var list = new NeuralNetConfiguration.Builder().seed(1).dataType(DataType.FLOAT).updater(new Sgd(0.1)).list()
                .layer(new DenseLayer.Builder().nOut(6).activation(Activation.RELU).build());
        for (int i = 0; i < hidden; i++) {
            list.layer(new DenseLayer.Builder().nOut(6).activation(Activation.RELU).build());
        }
        list.layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nOut(3).activation(Activation.SOFTMAX)
                .build());
        MultiLayerNetwork net = new MultiLayerNetwork(list.setInputType(InputType.feedForward(4)).build());
        net.init();
        return net;
    }

    private static DistributedTrainer.Builder builder(MultiLayerNetwork net, Topology topology) {
        DataSet data = new DataSet(Nd4j.rand(DataType.FLOAT, 16, 4), Nd4j.eye(3).getRows(
                0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0).castTo(DataType.FLOAT));
        return DistributedTrainer.builder().model(net).data(data).workers(2).batchSizePerWorker(4).topology(topology);
    }

    @ParameterizedTest(name = "lgc on {0}")
    @ValueSource(strings = {"ps", "ring"})
    void shouldRefuseAModelWithoutALearnedBlockAtBuild(String kind) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> builder(net(0), lgc(kind)).stages(new StageSchedule(2, 2)).build());
        assertEquals("LGC needs at least one LEARNED block (a layer between the first and the last, or one a"
                + " layerPolicy marks LEARNED); this model has 4 blocks: layer0/W (DENSE), layer0/b (DENSE),"
                + " layer1/W (TOP_K), layer1/b (TOP_K)", e.getMessage());
    }

    @ParameterizedTest(name = "lgc on {0}")
    @ValueSource(strings = {"ps", "ring"})
    void shouldRefuseATrainerWithoutStagesAtBuild(String kind) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> builder(net(1), lgc(kind)).build());
        assertEquals("an LGC topology needs .stages(new StageSchedule(full, aeTraining)) — without it training never"
                + " leaves TOP_K (the default when .stages is not called: StageSchedule[fullIterations=0,"
                + " topKIterations=2147483647]); a schedule that stays in FULL or TOP_K on purpose (a control run)"
                + " must be given with .stages too", e.getMessage());
        builder(net(1), lgc(kind)).stages(new StageSchedule(2, 2)).build();
    }
}

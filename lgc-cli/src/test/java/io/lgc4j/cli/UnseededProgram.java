package io.lgc4j.cli;

import io.lgc4j.core.train.DistributedTrainer;
import io.lgc4j.ps.topology.ParameterServerTopology;

import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * A user's program whose model is initialized differently in every process (its seed is the process's rank), as a
 * model built without a seed is: launched, rank 0 must refuse to start, naming the rank and both checksums.
 */
public final class UnseededProgram {

    private UnseededProgram() {
    }

    /** Builds the model seeded by LGC_RANK and trains it like {@link LaunchedProgram}. */
    public static void main(String[] args) {
        long seed = Long.parseLong(System.getenv().getOrDefault("LGC_RANK", "0"));
        MultiLayerNetwork net = new MultiLayerNetwork(new NeuralNetConfiguration.Builder()
                .seed(seed).dataType(DataType.FLOAT).updater(new Sgd(0.1)).list()
                .layer(new DenseLayer.Builder().nIn(8).nOut(16).activation(Activation.RELU).build())
                .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nIn(16).nOut(3)
                        .activation(Activation.SOFTMAX).build())
                .build());
        net.init();
        DistributedTrainer.builder().model(net).data(LaunchedProgram.data()).workers(2).batchSizePerWorker(16)
                .topology(new ParameterServerTopology()).seed(3).fromEnvironment().build().fit(1);
    }
}

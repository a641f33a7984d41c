package io.lgc4j.cli;

import io.lgc4j.cli.faults.FaultProgram;
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
 * A user's program whose model throws on one rank: its hidden layer's activation fails on its 30th training pass in
 * the process of {@code LGC_RANK} = {@code args[0]} (default 1); launched with the parameter server inside rank 0.
 * The launcher must name that rank, whichever process exits first.
 */
public final class FaultyProgram {

    private FaultyProgram() {
    }

    /** Trains like {@link LaunchedProgram}, 40 epochs, with the failing activation. */
    public static void main(String[] args) {
        int failing = args.length > 0 ? Integer.parseInt(args[0]) : 1;
        MultiLayerNetwork net = new MultiLayerNetwork(new NeuralNetConfiguration.Builder()
                .seed(5).dataType(DataType.FLOAT).updater(new Sgd(0.1)).list()
                .layer(new DenseLayer.Builder().nIn(8).nOut(16).activation(new FaultProgram.FailingRelu(failing, 30))
                        .build())
                .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nIn(16).nOut(3)
                        .activation(Activation.SOFTMAX).build())
                .build());
        net.init();
        DistributedTrainer.builder().model(net).data(LaunchedProgram.data()).workers(2).batchSizePerWorker(16)
                .topology(new ParameterServerTopology()).seed(3).fromEnvironment().build().fit(40);
    }
}

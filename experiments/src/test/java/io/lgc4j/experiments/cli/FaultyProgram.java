package io.lgc4j.experiments.cli;

import io.lgc4j.core.train.DistributedTrainer;
import io.lgc4j.ps.topology.ParameterServerTopology;

import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.activations.BaseActivationFunction;
import org.nd4j.linalg.activations.impl.ActivationReLU;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A user's program whose model throws on one rank: its hidden layer's activation fails on its 30th forward pass in
 * the process of {@code LGC_RANK} = {@code args[0]} (default 1); launched with the parameter server inside rank 0.
 * The launcher must name that rank, whichever process exits first.
 */
public final class FaultyProgram {

    private FaultyProgram() {
    }

    /** ReLU that throws on its 30th forward pass in the failing rank's process. */
    public static final class FailingRelu extends BaseActivationFunction {
        private static final long serialVersionUID = 1L;
        private static final AtomicInteger CALLS = new AtomicInteger();
        private final ActivationReLU relu = new ActivationReLU();

        @Override
        public INDArray getActivation(INDArray in, boolean training) {
            String failing = System.getProperty("faulty.rank", "1");
            if (training && failing.equals(System.getenv("LGC_RANK")) && CALLS.incrementAndGet() == 30) {
                throw new IllegalStateException("the model failed on purpose on its 30th forward pass");
            }
            return relu.getActivation(in, training);
        }

        @Override
        public Pair<INDArray, INDArray> backprop(INDArray in, INDArray epsilon) {
            return relu.backprop(in, epsilon);
        }

        @Override
        public String toString() {
            return "failingrelu";
        }
    }

    /** Trains like {@link LaunchedProgram}, 40 epochs, with the failing activation. */
    public static void main(String[] args) {
        if (args.length > 0) {
            System.setProperty("faulty.rank", args[0]);
        }
        MultiLayerNetwork net = new MultiLayerNetwork(new NeuralNetConfiguration.Builder()
                .seed(5).dataType(DataType.FLOAT).updater(new Sgd(0.1)).list()
                .layer(new DenseLayer.Builder().nIn(8).nOut(16).activation(new FailingRelu()).build())
                .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nIn(16).nOut(3)
                        .activation(org.nd4j.linalg.activations.Activation.SOFTMAX).build())
                .build());
        net.init();
        DistributedTrainer.builder().model(net).data(LaunchedProgram.data()).workers(2).batchSizePerWorker(16)
                .topology(new ParameterServerTopology()).seed(3).fromEnvironment().build().fit(40);
    }
}

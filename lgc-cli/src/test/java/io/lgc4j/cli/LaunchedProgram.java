package io.lgc4j.cli;

import io.lgc4j.core.train.DistributedTrainer;
import io.lgc4j.core.train.TrainingResult;
import io.lgc4j.ps.topology.ParameterServerTopology;

import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * A user's program as {@code lgc launch --nproc K -- java … LaunchedProgram} starts it: its own small MLP built in
 * code, synthetic data, the dense parameter server, and {@code fromEnvironment()}, so the same {@link #train} runs in
 * one JVM (in-process, {@code workers(2)}) or as one process per rank (the server inside rank 0's process). Each
 * process prints its endpoint's replica checksums on one line.
 */
public final class LaunchedProgram {

    private LaunchedProgram() {
    }

    /** Trains and prints {@code checksums <rank> <c0,c1,…>}. */
    public static void main(String[] args) {
        TrainingResult result = train(2);
        System.out.println("checksums " + System.getenv().getOrDefault("LGC_RANK", "in-process") + " "
                + String.join(",", result.replicaChecksums()));
    }

    /** The program: {@code workers} ranks when not launched, LGC_WORLD_SIZE when launched. */
    static TrainingResult train(int workers) {
        DataSet data = data();
        return DistributedTrainer.builder().model(net()).data(data).workers(workers)
                .batchSizePerWorker(16).topology(new ParameterServerTopology()).seed(3)
                .fromEnvironment()
                .build().fit(2);
    }

    /** The program's synthetic data: 192 rows of 8 features, 3 classes (ND4J's random generator seeded 7). */
    static DataSet data() {
        Nd4j.getRandom().setSeed(7);
        INDArray features = Nd4j.rand(DataType.FLOAT, 192, 8);
        INDArray labels = Nd4j.zeros(DataType.FLOAT, 192, 3);
        for (int i = 0; i < 192; i++) {
            labels.putScalar(i, (int) (features.getFloat(i, 0) * 3) % 3, 1f);
        }
        return new DataSet(features, labels);
    }

    /** The program's MLP, 8-16-3, initialized from seed 5. */
    static MultiLayerNetwork net() {
        MultiLayerNetwork net = new MultiLayerNetwork(new NeuralNetConfiguration.Builder()
                .seed(5).dataType(DataType.FLOAT).updater(new Sgd(0.1)).list()
                .layer(new DenseLayer.Builder().nIn(8).nOut(16).activation(Activation.RELU).build())
                .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nIn(16).nOut(3)
                        .activation(Activation.SOFTMAX).build())
                .build());
        net.init();
        return net;
    }
}

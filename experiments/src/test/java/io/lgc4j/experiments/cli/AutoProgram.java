package io.lgc4j.experiments.cli;

import io.lgc4j.core.advise.AdviseSession;
import io.lgc4j.core.advise.Advisor;
import io.lgc4j.core.advise.MethodCandidate;
import io.lgc4j.core.data.MemorySource;
import io.lgc4j.core.train.DistributedTrainer;
import io.lgc4j.core.train.TrainingResult;
import io.lgc4j.ps.topology.ParameterServerTopology;
import io.lgc4j.ring.topology.RingTopology;

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

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;

/**
 * A user's program choosing its method as {@code lgc launch --nproc K -- java … AutoProgram} starts it: its own MLP
 * and synthetic data, two candidates (the dense parameter server and the dense ring), {@link
 * Advisor.Builder#adviseFromEnvironment()} on every process, then the chosen candidate's trainer. Each process prints
 * {@code chosen <rank> <id> <checksums>}.
 */
public final class AutoProgram {

    private AutoProgram() {
    }

    /** Advises, trains the choice and prints it with the replica checksums. */
    public static void main(String[] args) throws IOException {
        Nd4j.getRandom().setSeed(7);
        DataSet data = data();
        List<MethodCandidate> candidates = candidates();
        AdviseSession.Outcome advised = Advisor.builder().model(net()).data(MemorySource.of(data))
                .batchSizePerWorker(16).seed(3).candidates(candidates)
                .log(new PrintStream(OutputStream.nullOutputStream())).adviseFromEnvironment();
        TrainingResult result = train(chosen(candidates, advised.chosen()), 2);
        System.out.println("chosen " + System.getenv().getOrDefault("LGC_RANK", "in-process") + " "
                + advised.chosen() + " " + String.join(",", result.replicaChecksums()));
    }

    static List<MethodCandidate> candidates() {
        return List.of(MethodCandidate.of("ps", "Dense PS", ParameterServerTopology::new),
                MethodCandidate.of("ring", "Dense ring", RingTopology::new));
    }

    static MethodCandidate chosen(List<MethodCandidate> candidates, String id) {
        return candidates.stream().filter(c -> c.id().equals(id)).findFirst().orElseThrow();
    }

    /** The chosen method's training: {@code workers} ranks in one JVM, LGC_WORLD_SIZE when launched. */
    static TrainingResult train(MethodCandidate method, int workers) {
        Nd4j.getRandom().setSeed(7);
        DataSet data = data();
        return method.applyTo(DistributedTrainer.builder().model(net()).data(data).workers(workers)
                .batchSizePerWorker(16).seed(3).fromEnvironment()).build().fit(2);
    }

    private static DataSet data() {
        Nd4j.getRandom().setSeed(7);
        INDArray features = Nd4j.rand(DataType.FLOAT, 192, 8);
        INDArray labels = Nd4j.zeros(DataType.FLOAT, 192, 3);
        for (int i = 0; i < 192; i++) {
            labels.putScalar(i, (int) (features.getFloat(i, 0) * 3) % 3, 1f);
        }
        return new DataSet(features, labels);
    }

    private static MultiLayerNetwork net() {
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

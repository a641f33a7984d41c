package io.lgc4j.cli;

import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.core.train.DistributedTrainer;
import io.lgc4j.core.train.Topology;
import io.lgc4j.core.train.TrainingResult;
import io.lgc4j.lgc.ps.LgcPsTopology;
import io.lgc4j.lgc.ring.LgcRingTopology;
import io.lgc4j.ps.topology.ParameterServerTopology;

import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.dropout.AlphaDropout;
import org.deeplearning4j.nn.conf.dropout.GaussianNoise;
import org.deeplearning4j.nn.conf.graph.ElementWiseVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.ActivationLayer;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.weightnoise.DropConnect;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/**
 * A user's program whose model draws random numbers while it trains: a ComputationGraph with a convolution branch,
 * batch normalization, a residual merge, Dropout, Gaussian noise, alpha dropout and DropConnect, trained with Adam on
 * synthetic 8×8 images through the dense parameter server. {@code lgc launch --nproc 2 -- java … NoisyGraphProgram}
 * or a plain {@code java} run; each process prints {@code checksums <rank> <c0,c1,…>}.
 */
public final class NoisyGraphProgram {

    private NoisyGraphProgram() {
    }

    /**
     * Trains and prints {@code checksums <rank> <c0,c1,…>}.
     *
     * @param args the method: {@code ps} (default, the dense parameter server), {@code lgc-ps} or {@code lgc-rar}
     *             (4 dense steps, 8 of top-k while the autoencoder trains, then compressed); then the epochs
     *             (default 2, 8 steps each); then a checkpoint every so many steps (default: at the end only, into
     *             LGC_RUN_DIR when launched with one)
     */
    public static void main(String[] args) {
        String method = args.length == 0 ? "ps" : args[0];
        int epochs = args.length < 2 ? 2 : Integer.parseInt(args[1]);
        checkpointEvery = args.length < 3 ? 0 : Integer.parseInt(args[2]);
        TrainingResult result = train(method, epochs);
        System.out.println("checksums " + System.getenv().getOrDefault("LGC_RANK", "in-process") + " "
                + String.join(",", result.replicaChecksums()));
    }

    /** The program's run of {@code method} (ps, lgc-ps or lgc-rar): 2 ranks when not launched. */
    static TrainingResult train(String method, int epochs) {
        return switch (method) {
            case "ps" -> train(2, new ParameterServerTopology(), null, epochs);
            case "lgc-ps" -> train(2, LgcPsTopology.builder().ratio(0.05).seed(1).build(), LGC_STAGES, epochs);
            case "lgc-rar" -> train(2, LgcRingTopology.builder().ratio(0.05).seed(1).build(), LGC_STAGES, epochs);
            default -> throw new IllegalArgumentException("method must be ps, lgc-ps or lgc-rar, found " + method);
        };
    }

    /** The program: {@code workers} ranks when not launched, LGC_WORLD_SIZE when launched. */
    static TrainingResult train(int workers, Topology topology) {
        return train(workers, topology, null, 2);
    }

    /** The program's ps run of {@code epochs} in one JVM, without checkpoints. */
    static TrainingResult trainPs(int workers, int epochs) {
        return train(workers, new ParameterServerTopology(), null, epochs);
    }

    private static final StageSchedule LGC_STAGES = new StageSchedule(4, 8);
    private static int checkpointEvery;

    private static TrainingResult train(int workers, Topology topology, StageSchedule stages, int epochs) {
        DistributedTrainer.Builder builder = DistributedTrainer.builder().model(graph()).data(data()).workers(workers)
                .batchSizePerWorker(16).topology(topology).seed(3);
        if (stages != null) {
            builder.stages(stages);
        }
        if (checkpointEvery > 0) {
            // fromEnvironment() puts them under LGC_RUN_DIR, every checkpointEvery steps
            builder.checkpoints(java.nio.file.Path.of("checkpoints-not-launched"), checkpointEvery);
        }
        return builder.fromEnvironment().build().fit(epochs);
    }

    /** 256 synthetic 8×8 one-channel images of 4 classes (ND4J's random generator seeded 7). */
    static DataSet data() {
        Nd4j.getRandom().setSeed(7);
        INDArray features = Nd4j.rand(DataType.FLOAT, 256, 1, 8, 8);
        INDArray labels = Nd4j.zeros(DataType.FLOAT, 256, 4);
        for (int i = 0; i < 256; i++) {
            labels.putScalar(i, (int) (features.getFloat(i, 0, 0, 0) * 4) % 4, 1f);
        }
        return new DataSet(features, labels);
    }

    /** Conv → BN → ReLU → conv, added to its input; two dense layers with four kinds of noise; seed 5. */
    static ComputationGraph graph() {
        ComputationGraphConfiguration conf = new NeuralNetConfiguration.Builder().seed(5).dataType(DataType.FLOAT)
                .updater(new Adam(1e-3)).graphBuilder().addInputs("in")
                .setInputTypes(InputType.convolutional(8, 8, 1))
                .addLayer("conv1", new ConvolutionLayer.Builder(3, 3).nOut(8).convolutionMode(ConvolutionMode.Same)
                        .activation(Activation.IDENTITY).build(), "in")
                .addLayer("bn", new BatchNormalization.Builder().build(), "conv1")
                .addLayer("relu", new ActivationLayer(Activation.RELU), "bn")
                .addLayer("conv2", new ConvolutionLayer.Builder(3, 3).nOut(8).convolutionMode(ConvolutionMode.Same)
                        .activation(Activation.RELU).dropOut(new GaussianNoise(0.05)).build(), "relu")
                .addVertex("residual", new ElementWiseVertex(ElementWiseVertex.Op.Add), "conv2", "relu")
                .addLayer("dense", new DenseLayer.Builder().nOut(32).activation(Activation.RELU).dropOut(0.5)
                        .weightNoise(new DropConnect(0.9)).build(), "residual")
                .addLayer("selu", new DenseLayer.Builder().nOut(16).activation(Activation.SELU)
                        .dropOut(new AlphaDropout(0.9)).build(), "dense")
                .addLayer("out", new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nOut(4)
                        .activation(Activation.SOFTMAX).build(), "selu")
                .setOutputs("out").build();
        ComputationGraph graph = new ComputationGraph(conf);
        graph.init();
        return graph;
    }
}

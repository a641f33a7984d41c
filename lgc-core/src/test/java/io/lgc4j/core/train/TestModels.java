package io.lgc4j.core.train;

import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Nesterovs;
import org.nd4j.linalg.lossfunctions.LossFunctions;

import java.util.Random;

/** Small models, synthetic data and a topology that exchanges nothing, for tests that must run in seconds. */
public final class TestModels {
    private TestModels() {
    }

    /**
     * A topology with no exchange and no checks: each rank applies its own gradient (with K = 1, exactly what DL4J's
     * {@code fit} does), enough to build, train and inspect replicas.
     */
    public static Topology ownGradient() {
        return new Topology() {
            @Override
            public String name() {
                return "own-gradient";
            }

            @Override
            public GradientExchange worker(int rank, int workers, io.lgc4j.core.comm.Transport transport,
                                           io.lgc4j.core.layout.GradientLayout layout) {
                return (tag, gradient, clock) -> { };
            }
        };
    }

    /** 8 → 16 → 12 → 3 dense network. */
    public static MultiLayerNetwork mlp(long seed) {
        return mlp(seed, new Nesterovs(0.05, 0.9));
    }

    /** 8 → 16 → 12 → 3 dense network with the given updater. */
    public static MultiLayerNetwork mlp(long seed, org.nd4j.linalg.learning.config.IUpdater updater) {
        MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder().seed(seed).dataType(DataType.FLOAT)
                .updater(updater).weightInit(WeightInit.XAVIER).list()
                .layer(new DenseLayer.Builder().nOut(16).activation(Activation.RELU).build())
                .layer(new DenseLayer.Builder().nOut(12).activation(Activation.TANH).build())
                .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nOut(3)
                        .activation(Activation.SOFTMAX).build())
                .setInputType(InputType.feedForward(8)).build();
        MultiLayerNetwork net = new MultiLayerNetwork(conf);
        net.init();
        return net;
    }

    /** A graph with batch normalization and a skip connection. */
    public static ComputationGraph graph(long seed) {
        ComputationGraphConfiguration conf = new NeuralNetConfiguration.Builder().seed(seed).dataType(DataType.FLOAT)
                .updater(new Nesterovs(0.05, 0.9)).weightInit(WeightInit.XAVIER).graphBuilder()
                .addInputs("in")
                .addLayer("stem", new DenseLayer.Builder().nOut(10).activation(Activation.RELU).build(), "in")
                .addLayer("bn", new BatchNormalization.Builder().build(), "stem")
                .addLayer("hidden", new DenseLayer.Builder().nOut(10).activation(Activation.RELU).build(), "bn")
                .addVertex("skip", new org.deeplearning4j.nn.conf.graph.ElementWiseVertex(
                        org.deeplearning4j.nn.conf.graph.ElementWiseVertex.Op.Add), "hidden", "stem")
                .addLayer("out", new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nOut(3)
                        .activation(Activation.SOFTMAX).build(), "skip")
                .setOutputs("out").setInputTypes(InputType.feedForward(8)).build();
        ComputationGraph graph = new ComputationGraph(conf);
        graph.init();
        return graph;
    }

    /**
     * {@link #graph}'s batch normalization and skip connection with every kind of noise DL4J draws while a model
     * trains: Dropout, Gaussian noise, alpha dropout and DropConnect (weight noise); Adam.
     */
    public static ComputationGraph noisyGraph(long seed) {
        ComputationGraphConfiguration conf = new NeuralNetConfiguration.Builder().seed(seed).dataType(DataType.FLOAT)
                .updater(new org.nd4j.linalg.learning.config.Adam(1e-2)).weightInit(WeightInit.XAVIER).graphBuilder()
                .addInputs("in")
                .addLayer("stem", new DenseLayer.Builder().nOut(10).activation(Activation.RELU)
                        .dropOut(new org.deeplearning4j.nn.conf.dropout.GaussianNoise(0.1)).build(), "in")
                .addLayer("bn", new BatchNormalization.Builder().build(), "stem")
                .addLayer("hidden", new DenseLayer.Builder().nOut(10).activation(Activation.RELU).dropOut(0.5)
                        .weightNoise(new org.deeplearning4j.nn.conf.weightnoise.DropConnect(0.9)).build(), "bn")
                .addVertex("skip", new org.deeplearning4j.nn.conf.graph.ElementWiseVertex(
                        org.deeplearning4j.nn.conf.graph.ElementWiseVertex.Op.Add), "hidden", "stem")
                .addLayer("selu", new DenseLayer.Builder().nOut(10).activation(Activation.SELU)
                        .dropOut(new org.deeplearning4j.nn.conf.dropout.AlphaDropout(0.9)).build(), "skip")
                .addLayer("out", new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nOut(3)
                        .activation(Activation.SOFTMAX).build(), "selu")
                .setOutputs("out").setInputTypes(InputType.feedForward(8)).build();
        ComputationGraph graph = new ComputationGraph(conf);
        graph.init();
        return graph;
    }

    /** {@code n} examples of 8 features in 3 linearly separable-ish classes. */
    public static DataSet data(int n, long seed) {
        Random random = new Random(seed);
        float[][] x = new float[n][8];
        float[][] y = new float[n][3];
        for (int i = 0; i < n; i++) {
            int c = random.nextInt(3);
            for (int j = 0; j < 8; j++) {
                x[i][j] = (float) (random.nextGaussian() + (j % 3 == c ? 1.5 : 0));
            }
            y[i][c] = 1;
        }
        INDArray features = Nd4j.createFromArray(x);
        INDArray labels = Nd4j.createFromArray(y);
        return new DataSet(features, labels);
    }
}

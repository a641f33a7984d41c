package io.lgc4j.zoo;

import java.util.Objects;

import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.graph.ElementWiseVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.ActivationLayer;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.GlobalPoolingLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.PoolingType;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Nesterovs;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;

/**
 * The models the experiments train on Fashion-MNIST (28x28x1 inputs, 10 classes), built initialized from a seed: the
 * same seed gives bit-identical parameters, so every rank of a data-parallel run can build its replica locally.
 * Features are flat {@code [N, 784]}; both models declare {@code InputType.convolutionalFlat(28, 28, 1)}. There is no
 * dropout anywhere, so a forward pass is a function of parameters and input only. The defaults
 * ({@link #SMALL_CNN_WEIGHT_INIT}, {@link #SMALL_RESNET_WEIGHT_INIT}, {@link #defaultUpdater()}) are the measured
 * choices in {@code docs/architecture/data.md}.
 *
 * <pre>{@code
 * MultiLayerNetwork lenet = ModelZoo.smallCnn(42L, ModelZoo.defaultUpdater());
 * ComputationGraph resnet = ModelZoo.smallResNet(42L, ModelZoo.defaultUpdater());
 * }</pre>
 */
public final class ModelZoo {

    /** Image height and width the models take. */
    public static final int SIDE = 28;
    /** Number of classes the models predict. */
    public static final int NUM_CLASSES = 10;
    /** Parameters of {@link #smallCnn}: 520 + 25,050 + 400,500 + 5,010. */
    public static final long SMALL_CNN_PARAMS = 431_080L;
    /** Parameters of {@link #tinyCnn}: 156 + 1,812 + 12,352 + 650. */
    public static final long TINY_CNN_PARAMS = 14_970L;
    /** Default weight initialization of {@link #smallCnn}: U(-1/sqrt(fanIn), 1/sqrt(fanIn)), see the class comment. */
    public static final WeightInit SMALL_CNN_WEIGHT_INIT = WeightInit.UNIFORM;
    /** Default weight initialization of {@link #smallResNet}'s convolutions. */
    public static final WeightInit SMALL_RESNET_WEIGHT_INIT = WeightInit.RELU;

    private ModelZoo() {
    }

    /** @return a new instance of the default updater: Nesterov momentum, learning rate 0.05, momentum 0.9 */
    public static IUpdater defaultUpdater() {
        return new Nesterovs(0.05, 0.9);
    }

    /**
     * LeNet-5 as in the PyTorch peer ({@code torch_peers.py}): conv 5x5x20, ReLU, max-pool 2, conv 5x5x50, ReLU,
     * max-pool 2, dense 500 ReLU, dense 10 softmax with multi-class cross-entropy; 431,080 parameters. Weights drawn
     * with {@link #SMALL_CNN_WEIGHT_INIT}, biases zero.
     *
     * @param seed    fixes the initial parameters
     * @param updater the optimizer (its configuration is copied into every layer)
     * @return an initialized network
     */
    public static MultiLayerNetwork smallCnn(long seed, IUpdater updater) {
        return smallCnn(seed, updater, SMALL_CNN_WEIGHT_INIT);
    }

    /**
     * {@link #smallCnn(long, IUpdater)} with another weight initialization, for comparisons.
     *
     * @param seed       fixes the initial parameters
     * @param updater    the optimizer
     * @param weightInit how weights are drawn (biases start at zero)
     * @return an initialized network
     */
    public static MultiLayerNetwork smallCnn(long seed, IUpdater updater, WeightInit weightInit) {
        return leNet(seed, updater, weightInit, 20, 50, 500);
    }

    /**
     * LeNet-5's layers at a fraction of its widths, for smoke runs and the test suite: conv 5x5x6, ReLU, max-pool 2,
     * conv 5x5x12, ReLU, max-pool 2, dense 64 ReLU, dense 10 softmax; {@value #TINY_CNN_PARAMS} parameters, with
     * the same layer kinds and so the same policies as {@link #smallCnn} (conv1 DENSE, conv2 and fc1 LEARNED, output
     * TOP_K). It exercises every code path LeNet-5 does at a fraction of the cost; its accuracy is not LeNet-5's.
     *
     * @param seed    fixes the initial parameters
     * @param updater the optimizer
     * @return an initialized network
     */
    public static MultiLayerNetwork tinyCnn(long seed, IUpdater updater) {
        return leNet(seed, updater, SMALL_CNN_WEIGHT_INIT, 6, 12, 64);
    }

    private static MultiLayerNetwork leNet(long seed, IUpdater updater, WeightInit weightInit, int conv1, int conv2,
            int fc1) {
        Objects.requireNonNull(updater, "updater");
        Objects.requireNonNull(weightInit, "weightInit");
        MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder()
                .seed(seed)
                .dataType(DataType.FLOAT)
                .updater(updater)
                .weightInit(weightInit)
                .list()
                .layer(new ConvolutionLayer.Builder(5, 5).name("conv1").nOut(conv1).stride(1, 1)
                        .activation(Activation.RELU).build())
                .layer(new SubsamplingLayer.Builder(PoolingType.MAX).name("pool1").kernelSize(2, 2).stride(2, 2)
                        .build())
                .layer(new ConvolutionLayer.Builder(5, 5).name("conv2").nOut(conv2).stride(1, 1)
                        .activation(Activation.RELU).build())
                .layer(new SubsamplingLayer.Builder(PoolingType.MAX).name("pool2").kernelSize(2, 2).stride(2, 2)
                        .build())
                .layer(new DenseLayer.Builder().name("fc1").nOut(fc1).activation(Activation.RELU).build())
                .layer(new OutputLayer.Builder(LossFunction.MCXENT).name("output").nOut(NUM_CLASSES)
                        .activation(Activation.SOFTMAX).build())
                .setInputType(InputType.convolutionalFlat(SIDE, SIDE, 1))
                .build();
        MultiLayerNetwork net = new MultiLayerNetwork(conf);
        net.init();
        return net;
    }

    /**
     * A small residual network with batch normalization, built as a {@link ComputationGraph}:
     * <pre>
     * input                                                                          28x28x1
     * stem:    conv 3x3x16, BN, ReLU, max-pool 2                                     14x14x16
     * block1:  [conv 3x3x16, BN, ReLU, conv 3x3x16, BN] + x, ReLU                    14x14x16
     * block2:  [conv 3x3x32 /2, BN, ReLU, conv 3x3x32, BN] + BN(conv 1x1x32 /2 (x)), ReLU   7x7x32
     * global average pooling, dense 10 softmax (MCXENT)                             10
     * </pre>
     * 19,994 parameters. Convolutions feeding a batch normalization have no bias (BN's shift replaces it). The
     * max-pool in the stem (as in ResNet's own stem) keeps the residual blocks at 14x14 and below. Forward+backward
     * at batch 32 on a 2-core machine, interleaved with LeNet-5: 262 ms against LeNet-5's 131 ms (1.9x); without the
     * pool, the first block at 28x28, 4.8x.
     *
     * @param seed    fixes the initial parameters
     * @param updater the optimizer (its configuration is copied into every layer)
     * @return an initialized graph with input {@code "input"} and output {@code "output"}
     */
    public static ComputationGraph smallResNet(long seed, IUpdater updater) {
        return smallResNet(seed, updater, SMALL_RESNET_WEIGHT_INIT);
    }

    /**
     * {@link #smallResNet(long, IUpdater)} with another weight initialization, for comparisons.
     *
     * @param seed       fixes the initial parameters
     * @param updater    the optimizer
     * @param weightInit how weights are drawn
     * @return an initialized graph
     */
    public static ComputationGraph smallResNet(long seed, IUpdater updater, WeightInit weightInit) {
        Objects.requireNonNull(updater, "updater");
        Objects.requireNonNull(weightInit, "weightInit");
        ComputationGraphConfiguration.GraphBuilder graph = new NeuralNetConfiguration.Builder()
                .seed(seed)
                .dataType(DataType.FLOAT)
                .updater(updater)
                .weightInit(weightInit)
                .convolutionMode(ConvolutionMode.Same)
                .graphBuilder()
                .addInputs("input")
                .setInputTypes(InputType.convolutionalFlat(SIDE, SIDE, 1));
        String x = convBnRelu(graph, "stem", "input", 16, 3, 1);
        graph.addLayer("stem_pool", new SubsamplingLayer.Builder(PoolingType.MAX).kernelSize(2, 2).stride(2, 2)
                .build(), x);
        x = residualBlock(graph, "block1", "stem_pool", 16, 16, 1);
        x = residualBlock(graph, "block2", x, 16, 32, 2);
        graph.addLayer("pool", new GlobalPoolingLayer.Builder(PoolingType.AVG).build(), x)
                .addLayer("output", new OutputLayer.Builder(LossFunction.MCXENT).nOut(NUM_CLASSES)
                        .activation(Activation.SOFTMAX).build(), "pool")
                .setOutputs("output");
        ComputationGraph net = new ComputationGraph(graph.build());
        net.init();
        return net;
    }

    /** conv (no bias) → BN → ReLU; returns the ReLU's name. */
    private static String convBnRelu(ComputationGraphConfiguration.GraphBuilder graph, String name, String input,
                                     int channels, int kernel, int stride) {
        String bn = convBn(graph, name, input, channels, kernel, stride);
        graph.addLayer(name + "_relu", new ActivationLayer.Builder().activation(Activation.RELU).build(), bn);
        return name + "_relu";
    }

    /** conv (no bias) → BN; returns the BN's name. */
    private static String convBn(ComputationGraphConfiguration.GraphBuilder graph, String name, String input,
                                 int channels, int kernel, int stride) {
        graph.addLayer(name + "_conv", new ConvolutionLayer.Builder(kernel, kernel).nOut(channels)
                        .stride(stride, stride).hasBias(false).activation(Activation.IDENTITY).build(), input)
                .addLayer(name + "_bn", new BatchNormalization.Builder().build(), name + "_conv");
        return name + "_bn";
    }

    /**
     * conv-BN-ReLU-conv-BN plus a skip (identity, or a strided 1x1 conv + BN when the shape changes), then ReLU;
     * returns the final ReLU's name.
     */
    private static String residualBlock(ComputationGraphConfiguration.GraphBuilder graph, String name, String input,
                                        int inChannels, int outChannels, int stride) {
        String a = convBnRelu(graph, name + "_a", input, outChannels, 3, stride);
        String b = convBn(graph, name + "_b", a, outChannels, 3, 1);
        String skip = stride == 1 && inChannels == outChannels
                ? input
                : convBn(graph, name + "_proj", input, outChannels, 1, stride);
        graph.addVertex(name + "_add", new ElementWiseVertex(ElementWiseVertex.Op.Add), b, skip)
                .addLayer(name + "_relu", new ActivationLayer.Builder().activation(Activation.RELU).build(),
                        name + "_add");
        return name + "_relu";
    }
}

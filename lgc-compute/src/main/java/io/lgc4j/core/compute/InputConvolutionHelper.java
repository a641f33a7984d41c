package io.lgc4j.core.compute;

import org.deeplearning4j.nn.conf.CNN2DFormat;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.gradient.DefaultGradient;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.layers.convolution.ConvolutionHelper;
import org.deeplearning4j.nn.layers.mkldnn.MKLDNNConvHelper;
import org.deeplearning4j.nn.params.ConvolutionParamInitializer;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.deeplearning4j.util.ConvolutionUtils;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.activations.IActivation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.DynamicCustomOp;
import org.nd4j.linalg.factory.Nd4j;

import java.util.Map;

/**
 * The helper of a convolution that reads the network's input: oneDNN's forward pass, and a backward pass that computes
 * the weights' and bias's gradients only. Nobody reads the gradient with respect to the network's input, but DL4J
 * M2.1 computes it for every layer, and libnd4j's oneDNN {@code conv2d_bp} cannot leave it out; for LeNet-5's first
 * layer (one input channel, which oneDNN pads to a block of 16) it was the largest single cost of the step: 2.8 of
 * 18.3 ms, and 3.4 ms with its reorders (one thread, Intel Xeon with AVX-512, {@code DNNL_VERBOSE}).
 *
 * <p>The weights' gradient is a forward convolution on oneDNN — the input, its batch seen as channels, correlated with
 * the deltas as the kernel — and the bias's the sum of the deltas: 1.9 ms where {@code conv2d_bp} took 4.2 (LeNet-5's
 * first layer, batch 32; {@code im2col} and a GEMM, DL4J's built-in way, took 7.5). The epsilon it hands back is
 * zeros, allocated as DL4J expects, for the layer below that does not exist (an input preprocessor may still reshape
 * it). Strides or dilations other than 1, Same mode with an even kernel, NHWC layers and other data types keep
 * oneDNN's whole backward pass. {@link LayerHelpers#build} installs it on the plain {@code ConvolutionLayer}s that read only
 * network inputs, in place of their {@code MKLDNNConvHelper}.
 */
public final class InputConvolutionHelper implements ConvolutionHelper {
    private final MKLDNNConvHelper oneDnn = new MKLDNNConvHelper(DataType.FLOAT);

    @Override
    public boolean checkSupported() {
        return oneDnn.checkSupported();
    }

    @Override
    public Pair<Gradient, INDArray> backpropGradient(INDArray input, INDArray weights, INDArray bias, INDArray delta,
                                                     int[] kernel, int[] strides, int[] pad, INDArray biasGradView,
                                                     INDArray weightGradView, IActivation afn,
                                                     ConvolutionLayer.AlgoMode mode,
                                                     ConvolutionLayer.BwdFilterAlgo bwdFilterAlgo,
                                                     ConvolutionLayer.BwdDataAlgo bwdDataAlgo,
                                                     ConvolutionMode convolutionMode, int[] dilation,
                                                     CNN2DFormat format, LayerWorkspaceMgr workspaceMgr) {
        if (format != CNN2DFormat.NCHW || input.dataType() != DataType.FLOAT
                || weights.dataType() != DataType.FLOAT) {
            return oneDnn.backpropGradient(input, weights, bias, delta, kernel, strides, pad, biasGradView,
                    weightGradView, afn, mode, bwdFilterAlgo, bwdDataAlgo, convolutionMode, dilation, format,
                    workspaceMgr);
        }
        long batch = input.size(0);
        long outChannels = weights.size(0);
        long inChannels = weights.size(1);
        int kH = (int) weights.size(2);
        int kW = (int) weights.size(3);
        int outH = (int) delta.size(2);
        int outW = (int) delta.size(3);
        int inH = (int) input.size(2);
        int inW = (int) input.size(3);
        int[] padding = convolutionMode != ConvolutionMode.Same ? pad
                : ConvolutionUtils.getSameModeTopLeftPadding(new int[] {outH, outW}, new int[] {inH, inW}, kernel,
                        strides, dilation);
        boolean unitSteps = strides[0] == 1 && strides[1] == 1 && dilation[0] == 1 && dilation[1] == 1;
        // the correlation pads both sides alike: Same mode with an even kernel (more padding after than before) is out
        if (!unitSteps || inH + 2 * padding[0] - outH + 1 != kH || inW + 2 * padding[1] - outW + 1 != kW) {
            return oneDnn.backpropGradient(input, weights, bias, delta, kernel, strides, pad, biasGradView,
                    weightGradView, afn, mode, bwdFilterAlgo, bwdDataAlgo, convolutionMode, dilation, format,
                    workspaceMgr);
        }
        // dW[o, i, y, x] = Σ over b, h, w of input[b, i, h + y, w + x] · delta[b, o, h, w]: a forward convolution of
        // the input with the batch as its channels, by the deltas as an (outH × outW) kernel, on oneDNN
        INDArray weightGradient = weightGradView.permute(1, 0, 2, 3);   // [inChannels, outChannels, kH, kW]
        DynamicCustomOp correlate = DynamicCustomOp.builder("conv2d")
                .addInputs(input.permute(1, 0, 2, 3), delta.permute(1, 0, 2, 3))
                .addOutputs(weightGradient)
                .addIntegerArguments(outH, outW, 1, 1, padding[0], padding[1], 1, 1, 0, 0, 1)  // NCHW, [oC,iC,kH,kW]
                .build();
        Nd4j.exec(correlate);
        Gradient gradient = new DefaultGradient();
        if (biasGradView != null) {
            delta.sum(biasGradView.reshape(outChannels), 0, 2, 3);
            gradient.gradientForVariable().put(ConvolutionParamInitializer.BIAS_KEY, biasGradView);
        }
        gradient.gradientForVariable().put(ConvolutionParamInitializer.WEIGHT_KEY, weightGradView);
        INDArray notComputed = workspaceMgr.create(ArrayType.ACTIVATION_GRAD, input.dataType(), input.shape(), 'c');
        return new Pair<>(gradient, notComputed);
    }

    @Override
    public INDArray preOutput(INDArray input, INDArray weights, INDArray bias, int[] kernel, int[] strides, int[] pad,
                              ConvolutionLayer.AlgoMode mode, ConvolutionLayer.FwdAlgo fwdAlgo,
                              ConvolutionMode convolutionMode, int[] dilation, CNN2DFormat format,
                              LayerWorkspaceMgr workspaceMgr) {
        return oneDnn.preOutput(input, weights, bias, kernel, strides, pad, mode, fwdAlgo, convolutionMode, dilation,
                format, workspaceMgr);
    }

    @Override
    public INDArray activate(INDArray z, IActivation afn, boolean training) {
        return oneDnn.activate(z, afn, training);
    }

    @Override
    public Map<String, Long> helperMemoryUse() {
        return oneDnn.helperMemoryUse();
    }
}

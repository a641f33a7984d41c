package io.lgc4j.core.compute;

import org.deeplearning4j.nn.conf.CNN2DFormat;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.layers.PoolingType;
import org.deeplearning4j.nn.gradient.DefaultGradient;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.layers.convolution.subsampling.SubsamplingHelper;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.deeplearning4j.util.ConvolutionUtils;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.DynamicCustomOp;
import org.nd4j.linalg.api.ops.OpContext;
import org.nd4j.linalg.factory.Nd4j;

import java.util.Map;

/**
 * Max pooling on ND4J's own native kernels, with the native library's oneDNN platform implementation bypassed
 * ({@link OpContext#allowHelpers(boolean) allowHelpers(false)}): the one layer kind where oneDNN is the slow path.
 *
 * <p>Measured on this project's machines (AMD EPYC, 2 cores, one OpenMP thread, batch 32, NCHW, 2×2 stride 2): ND4J's
 * {@code maxpool2d} / {@code maxpool2d_bp} take 4.4 / 7.5 ms on a [32, 20, 24, 24] input through oneDNN and 0.7 / 2.1
 * ms on ND4J's own kernels; 1.25 / 2.1 against 0.17 / 0.65 ms on [32, 50, 8, 8] (oneDNN reorders each NCHW tensor to
 * its blocked layout and back on every call). Convolutions and batch norm are the other way round (a 5×5 convolution's
 * backward pass 7 ms on oneDNN, 47 ms without), so they keep DL4J's oneDNN helpers.
 *
 * <p>DL4J 1.0.0-M2.1's {@code SubsamplingLayer} asks its helper for the backward pass only (its forward pass always
 * runs the op with the platform implementations allowed), so this helper takes the backward pass of max pooling; for
 * average, sum and p-norm pooling it answers null, and the layer runs its own code. Max pooling's gradient goes to
 * each window's maximum on either implementation: the two agree but for the choice among equal maxima.
 * {@link LayerHelpers#build} installs it on every {@code SubsamplingLayer} of a replica built with oneDNN.
 */
public final class NativePoolingHelper implements SubsamplingHelper {

    @Override
    public boolean checkSupported() {
        return true;
    }

    @Override
    public Pair<Gradient, INDArray> backpropGradient(INDArray input, INDArray epsilon, int[] kernel, int[] strides,
                                                     int[] pad, PoolingType poolingType,
                                                     ConvolutionMode convolutionMode, int[] dilation,
                                                     CNN2DFormat format, LayerWorkspaceMgr workspaceMgr) {
        if (poolingType != PoolingType.MAX) {
            return null;
        }
        INDArray gradient = workspaceMgr.createUninitialized(ArrayType.ACTIVATION_GRAD, input.dataType(),
                input.shape(), 'c');
        int[] padding = padding(input, epsilon, kernel, strides, pad, convolutionMode, dilation, format);
        run("maxpool2d_bp", new INDArray[] {input, epsilon}, gradient,
                arguments(kernel, strides, padding, convolutionMode, dilation, format));
        return new Pair<>(new DefaultGradient(), gradient);
    }

    @Override
    public INDArray activate(INDArray input, boolean training, int[] kernel, int[] strides, int[] pad,
                             PoolingType poolingType, ConvolutionMode convolutionMode, int[] dilation,
                             CNN2DFormat format, LayerWorkspaceMgr workspaceMgr) {
        // not called by DL4J M2.1 (its forward pass never asks a helper); null means "use the layer's own code"
        return null;
    }

    @Override
    public Map<String, Long> helperMemoryUse() {
        return Map.of();
    }

    /** The padding ND4J's op takes: the layer's, or in Same mode the top-left padding that gives epsilon's size. */
    private static int[] padding(INDArray input, INDArray epsilon, int[] kernel, int[] strides, int[] pad,
                                 ConvolutionMode mode, int[] dilation, CNN2DFormat format) {
        if (mode != ConvolutionMode.Same) {
            return pad;
        }
        int h = format == CNN2DFormat.NHWC ? 1 : 2;
        return ConvolutionUtils.getSameModeTopLeftPadding(
                new int[] {(int) epsilon.size(h), (int) epsilon.size(h + 1)},
                new int[] {(int) input.size(h), (int) input.size(h + 1)}, kernel, strides, dilation);
    }

    /** ND4J's pooling arguments: kernel, strides, padding, dilation, same mode, (unused) extra, NHWC. */
    private static long[] arguments(int[] kernel, int[] strides, int[] padding, ConvolutionMode mode, int[] dilation,
                                    CNN2DFormat format) {
        return new long[] {kernel[0], kernel[1], strides[0], strides[1], padding[0], padding[1], dilation[0],
            dilation[1], mode == ConvolutionMode.Same ? 1 : 0, 0, format == CNN2DFormat.NHWC ? 1 : 0};
    }

    private static void run(String op, INDArray[] inputs, INDArray output, long[] arguments) {
        OpContext context = Nd4j.getExecutioner().buildContext();
        try {
            context.allowHelpers(false);
            context.setIArguments(arguments);
            context.setInputArrays(inputs);
            context.setOutputArrays(output);
            Nd4j.exec(DynamicCustomOp.builder(op).build(), context);
        } finally {
            try {
                context.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                throw new IllegalStateException("cannot free ND4J's native op context: " + e.getMessage(), e);
            }
        }
    }
}

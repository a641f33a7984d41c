package io.lgc4j.lgc.autoencoder;

import org.nd4j.autodiff.samediff.SDIndex;
import org.nd4j.autodiff.samediff.SDVariable;
import org.nd4j.autodiff.samediff.SameDiff;
import org.nd4j.linalg.api.ops.impl.layers.convolution.config.Conv2DConfig;
import org.nd4j.linalg.api.ops.impl.layers.convolution.config.DeConv2DConfig;
import org.nd4j.linalg.api.ops.impl.layers.convolution.config.PaddingMode;
import org.nd4j.linalg.factory.Nd4j;

import java.util.SplittableRandom;

/**
 * Builds the encoder and decoder weights and their SameDiff ops. A 1D convolution is a 2D one with kernel height 1 on
 * {@code [N, C, 1, L]} (NCHW); weights are {@code [1, kW, in, out]} for convolutions and {@code [1, kW, out, in]} for
 * transposed convolutions, as SameDiff expects.
 */
final class ConvStack {

    private ConvStack() {
    }

    /** Fresh encoder weights for {@code spec}. */
    static WeightSet encoderWeights(AutoencoderSpec spec, SplittableRandom random) {
        WeightSet w = new WeightSet(WeightSet.Part.ENCODER);
        int in = 1;
        for (int i = 0; i < spec.encoderFilters().size(); i++) {
            int out = spec.encoderFilters().get(i);
            w.addLayer("conv" + (i + 1), new long[] {1, spec.kernel(), in, out}, in * spec.kernel(), out, random);
            in = out;
        }
        w.addLayer("latent", new long[] {1, 1, in, spec.latentChannels()}, in, spec.latentChannels(), random);
        return w;
    }

    /**
     * Fresh decoder weights for {@code spec}; a parameter server's decoder reads one more channel (the innovation)
     * in its closing 1×1 convolution.
     */
    static WeightSet decoderWeights(AutoencoderSpec spec, WeightSet.Part part, SplittableRandom random) {
        WeightSet w = new WeightSet(part);
        int in = spec.latentChannels();
        for (int i = 0; i < spec.decoderFilters().size(); i++) {
            int out = spec.decoderFilters().get(i);
            w.addLayer("deconv" + (i + 1), new long[] {1, spec.kernel(), out, in}, in * spec.kernel(), out, random);
            in = out;
        }
        int closing = part == WeightSet.Part.PS_DECODER ? in + 1 : in;
        w.addLayer("out", new long[] {1, 1, closing, 1}, closing, 1, random);
        return w;
    }

    /** {@code x [N, 1, 1, L]} → latent {@code [N, latentChannels, 1, L / 16]}. */
    static SDVariable encode(SameDiff sd, String scope, SDVariable x, WeightSet w, AutoencoderSpec spec) {
        SDVariable h = x;
        for (int i = 1; i <= spec.encoderFilters().size(); i++) {
            h = conv(sd, scope, "conv" + i, h, w, spec.kernel(), spec.encoderStride());
            h = sd.nn().leakyRelu(h, spec.leakyAlpha());
        }
        return conv(sd, scope, "latent", h, w, 1, 1);
    }

    /**
     * latent {@code [N, C, 1, L / 16]} → the last hidden layer {@code [N, F, 1, L]}, cropped to the padded length
     * {@code paddedLength} when the decoder upsamples more than the encoder downsampled.
     */
    static SDVariable upsample(SameDiff sd, String scope, SDVariable latent, WeightSet w, AutoencoderSpec spec,
                               int paddedLength) {
        SDVariable h = latent;
        for (int i = 1; i <= spec.decoderFilters().size(); i++) {
            String name = "deconv" + i;
            DeConv2DConfig config = DeConv2DConfig.builder().kH(1).kW(spec.kernel()).sH(1)
                    .sW(spec.decoderStrides().get(i - 1)).isSameMode(true).dataFormat("NCHW").build();
            h = sd.cnn().deconv2d(h, var(sd, scope, name + ".W", w), var(sd, scope, name + ".b", w), config);
            h = sd.nn().leakyRelu(h, spec.leakyAlpha());
        }
        if (spec.decoderUpsampling() != spec.paddingMultiple()) {
            long channels = spec.decoderFilters().get(spec.decoderFilters().size() - 1);
            h = h.get(SDIndex.all(), SDIndex.all(), SDIndex.all(), SDIndex.interval(0, paddedLength));
            h = sd.reshape(h, sd.constant(Nd4j.createFromArray(-1L, channels, 1L, paddedLength)));
        }
        return h;
    }

    /** The closing linear 1×1 convolution to one channel. */
    static SDVariable closing(SameDiff sd, String scope, SDVariable h, WeightSet w) {
        return conv(sd, scope, "out", h, w, 1, 1);
    }

    private static SDVariable conv(SameDiff sd, String scope, String name, SDVariable in, WeightSet w, int kernel,
                                   int stride) {
        Conv2DConfig config = Conv2DConfig.builder().kH(1).kW(kernel).sH(1).sW(stride)
                .paddingMode(PaddingMode.SAME).dataFormat("NCHW").build();
        return sd.cnn().conv2d(in, var(sd, scope, name + ".W", w), var(sd, scope, name + ".b", w), config);
    }

    /** The graph variable for tensor {@code name} of {@code w}, created on first use, sharing the array. */
    private static SDVariable var(SameDiff sd, String scope, String name, WeightSet w) {
        String qualified = scope + "/" + name;
        if (sd.hasVariable(qualified)) {
            return sd.getVariable(qualified);
        }
        return sd.var(qualified, w.get(name));
    }

    /** The graph variable name of tensor {@code name} in {@code scope}. */
    static String qualified(String scope, String name) {
        return scope + "/" + name;
    }
}

package io.lgc4j.lgc.autoencoder;

import java.util.List;

/**
 * The shape of a gradient autoencoder: 1D convolutions over the compact vector seen as a one-channel signal. The
 * input of length μ is zero-padded to a multiple of {@link #paddingMultiple()}; {@link #PAPER} is seeds/003 Tables I
 * and II with the last transposed convolution at stride 1 (so output position i lines up with input position i); the
 * literal table is {@code decoderStrides: [2, 2, 2, 2, 2]}, its output cropped to L in the graph.
 *
 * @param encoderFilters filters of the strided encoder convolutions, in order
 * @param encoderStride  stride of each of them (the paper: 2)
 * @param kernel         kernel width of the strided convolutions and transposed convolutions (the paper: 3)
 * @param latentChannels channels of the latent (the 1×1 convolution closing the encoder; the paper: 4)
 * @param decoderFilters filters of the transposed convolutions, in order
 * @param decoderStrides stride of each transposed convolution; their product must be at least the encoder's
 *                       downsampling
 * @param leakyAlpha     negative slope of the leaky ReLU (PyTorch's default 0.01)
 */
public record AutoencoderSpec(List<Integer> encoderFilters, int encoderStride, int kernel, int latentChannels,
                              List<Integer> decoderFilters, List<Integer> decoderStrides, double leakyAlpha) {

    /** The paper's architecture (Tables I and II), with the decoder's last stride as described above. */
    public static final AutoencoderSpec PAPER = new AutoencoderSpec(List.of(64, 128, 256, 64), 2, 3, 4,
            List.of(4, 32, 64, 128, 32), List.of(2, 2, 2, 2, 1), 0.01);

    public AutoencoderSpec {
        encoderFilters = List.copyOf(encoderFilters);
        decoderFilters = List.copyOf(decoderFilters);
        decoderStrides = List.copyOf(decoderStrides);
        if (encoderFilters.isEmpty() || encoderFilters.stream().anyMatch(f -> f < 1)) {
            throw new IllegalArgumentException("encoderFilters must be a non-empty list of positive counts, got "
                    + encoderFilters);
        }
        if (decoderFilters.isEmpty() || decoderFilters.stream().anyMatch(f -> f < 1)) {
            throw new IllegalArgumentException("decoderFilters must be a non-empty list of positive counts, got "
                    + decoderFilters);
        }
        if (decoderStrides.size() != decoderFilters.size() || decoderStrides.stream().anyMatch(s -> s < 1)) {
            throw new IllegalArgumentException("decoderStrides must hold one positive stride per decoder layer ("
                    + decoderFilters.size() + "), got " + decoderStrides);
        }
        if (encoderStride < 1 || kernel < 1 || latentChannels < 1) {
            throw new IllegalArgumentException("encoderStride, kernel and latentChannels must be positive, got "
                    + encoderStride + ", " + kernel + ", " + latentChannels);
        }
        if (!(leakyAlpha >= 0 && leakyAlpha < 1)) {
            throw new IllegalArgumentException("leakyAlpha must be in [0, 1), got " + leakyAlpha);
        }
        long down = power(encoderStride, encoderFilters.size());
        long up = decoderStrides.stream().mapToLong(Integer::longValue).reduce(1, (a, b) -> a * b);
        if (down > 1 << 20) {
            throw new IllegalArgumentException("the encoder downsamples by " + down + ", more than 2^20");
        }
        if (up < down || up > down * 64) {
            throw new IllegalArgumentException("the decoder must upsample at least as much as the encoder "
                    + "downsamples (" + down + ") and at most 64 times more; decoderStrides " + decoderStrides
                    + " upsample by " + up);
        }
    }

    /** Inputs are zero-padded to a multiple of this: the encoder's total downsampling (16 for the paper). */
    public int paddingMultiple() {
        return (int) power(encoderStride, encoderFilters.size());
    }

    /** The padded length L of a compact vector of length μ. */
    public int paddedLength(int mu) {
        if (mu < 1) {
            throw new IllegalArgumentException("the compact vector must hold at least one value, got μ = " + mu);
        }
        int m = paddingMultiple();
        long padded = ((long) mu + m - 1) / m * m;
        if (padded > Integer.MAX_VALUE - 64) {
            throw new IllegalArgumentException("μ = " + mu + " is too long for an autoencoder input");
        }
        return (int) padded;
    }

    /** The number of floats in the latent of a compact vector of length μ. */
    public int latentSize(int mu) {
        return latentChannels * latentLength(mu);
    }

    /** The length (positions per channel) of the latent of a compact vector of length μ. */
    public int latentLength(int mu) {
        return paddedLength(mu) / paddingMultiple();
    }

    /** The decoder's total upsampling. */
    public int decoderUpsampling() {
        return decoderStrides.stream().mapToInt(Integer::intValue).reduce(1, (a, b) -> a * b);
    }

    private static long power(long base, int exponent) {
        long p = 1;
        for (int i = 0; i < exponent; i++) {
            p *= base;
        }
        return p;
    }
}

package io.lgc4j.lgc;

import io.lgc4j.core.compress.CompressorKeys;
import io.lgc4j.core.settings.Require;
import io.lgc4j.lgc.autoencoder.AeTraining;
import io.lgc4j.lgc.autoencoder.AutoencoderSpec;

import java.util.List;

/**
 * The {@code autoencoder} section of a configuration, the one definition of its keys: the gradient autoencoders'
 * architecture and online training (seeds/003 Tables I and II), LGC-PS's innovation share and the controls beyond
 * the paper. {@link #DEFAULT} has the paper's architecture and trains with Adam at 1e-3 and λ2 = 0
 * ({@link AeTraining#DEFAULT} says why). Every configuration binds it, whatever the compressor;
 * {@code compressor: {type: lgc}} reads it ({@link LgcSettings.Provider}).
 * <pre>{@code
 * autoencoder:
 *   encoderFilters: [64, 128, 256, 64]   # strided 1x3 convolutions (Table I)
 *   encoderStride: 2
 *   kernel: 3
 *   latentChannels: 4                    # the closing 1x1 convolution: latent = 4 * L/16 floats
 *   decoderFilters: [4, 32, 64, 128, 32] # 1x3 transposed convolutions (Table II)
 *   decoderStrides: [2, 2, 2, 2, 1]      # [2, 2, 2, 2, 2] = Table II literally (output cropped)
 *   leakyAlpha: 0.01
 *   innovationShare: 0.1                 # PS: top share of the compact vector sent as innovation, (0, 1]
 *   optimizer: adam                      # adam | sgd | nesterovs
 *   learningRate: 0.001
 *   lambdaRec: 1.0                       # weight of the reconstruction loss
 *   lambdaSim: 0.0                       # weight of the latent similarity loss (the paper: 0.5, which collapses
 *                                        #   the latent on real gradients; see AeTraining.DEFAULT)
 *   reconstructionFeedback: false        # put what the autoencoder lost back into the residuals
 *   exactInnovation: true                # PS: the server keeps the innovation values it receives over D_k's output
 *   driftBound: 0.9                      # fall back to top-k when the mean relative reconstruction error of the
 *   driftWindow: 5                       #   last driftWindow checks exceeds it; 0 = no guard
 *   checkEvery: 10                       # compressed steps between checks
 *   checkSample: 32                      # positions sampled per check
 *   ablation: none                       # a control run at the same bytes: none | innovation-only (PS) |
 *                                        #   latent-only (PS) | learned-frozen | zero-latent (ring)
 *   linearLatent: 0                      # ring: 0 = the convolutional autoencoder above; f > 0 = a linear code of
 *                                        #   f floats instead (the TOP_K stage's top f principal directions)
 * }</pre>
 *
 * @param encoderFilters         filters of the strided encoder convolutions
 * @param encoderStride          their stride
 * @param kernel                 kernel width of the strided and transposed convolutions
 * @param latentChannels         channels of the latent
 * @param decoderFilters         filters of the transposed convolutions
 * @param decoderStrides         their strides
 * @param leakyAlpha             negative slope of the leaky ReLU
 * @param innovationShare        the share of the compact vector kept as innovation (PS), in (0, 1]
 * @param optimizer              the autoencoder's optimizer
 * @param learningRate           its learning rate, {@code > 0}
 * @param lambdaRec              λ1, {@code >= 0}
 * @param lambdaSim              λ2, {@code >= 0} (not both 0)
 * @param reconstructionFeedback whether the ranks feed the reconstruction error back into their residuals
 * @param exactInnovation        whether the PS server keeps the received innovation values over its decoders' output
 * @param driftBound             the drift guard's bound, {@code >= 0}; 0 = off
 * @param driftWindow            checks the guard's mean covers, {@code > 0}
 * @param checkEvery             compressed steps between checks, {@code > 0}
 * @param checkSample            positions sampled per check, {@code > 0}
 * @param ablation               the control run ({@link LgcAblation}); which ones a topology runs is its own check
 * @param linearLatent           0: the convolutional autoencoder; f &gt; 0: LGC-RAR's linear code of f floats
 *                               ({@link io.lgc4j.lgc.autoencoder.LinearRingCode}); LGC-PS refuses it
 */
public record AutoencoderSection(List<Integer> encoderFilters, int encoderStride, int kernel, int latentChannels,
                                 List<Integer> decoderFilters, List<Integer> decoderStrides, double leakyAlpha,
                                 double innovationShare, AeTraining.Optimizer optimizer, double learningRate,
                                 double lambdaRec, double lambdaSim, boolean reconstructionFeedback,
                                 boolean exactInnovation, double driftBound, int driftWindow, int checkEvery,
                                 int checkSample, LgcAblation ablation, int linearLatent) {

    /** Default of {@code innovationShare} (seeds/003 Algorithm 1). */
    public static final double DEFAULT_INNOVATION_SHARE = 0.1;
    /** Default of {@code optimizer}. */
    public static final AeTraining.Optimizer DEFAULT_OPTIMIZER = AeTraining.Optimizer.ADAM;
    /** Default of {@code learningRate}. */
    public static final double DEFAULT_LEARNING_RATE = 1e-3;

    /** Every key at its default: the paper's architecture and λs, Adam at 1e-3, {@link LgcControl#DEFAULT}. */
    public static final AutoencoderSection DEFAULT = defaults();

    /**
     * Checks every key, naming the first that is missing or out of range; an architecture or a training the
     * autoencoders cannot build is refused with the reason, as an {@link IllegalArgumentException}.
     */
    public AutoencoderSection {
        Require.required("encoderFilters", encoderFilters);
        Require.required("decoderFilters", decoderFilters);
        Require.required("decoderStrides", decoderStrides);
        Require.required("optimizer", optimizer);
        Require.required("ablation", ablation);
        encoderFilters = List.copyOf(encoderFilters);
        decoderFilters = List.copyOf(decoderFilters);
        decoderStrides = List.copyOf(decoderStrides);
        requireInnovationShare(innovationShare);
        Require.positive("learningRate", learningRate);
        Require.atLeast("lambdaRec", lambdaRec, 0.0);
        Require.atLeast("lambdaSim", lambdaSim, 0.0);
        LgcControl.requireGuard(driftBound, driftWindow, checkEvery, checkSample);
        requireLinearLatent(linearLatent);
        new AutoencoderSpec(encoderFilters, encoderStride, kernel, latentChannels, decoderFilters, decoderStrides,
                leakyAlpha);
        new AeTraining(optimizer.updater(learningRate), lambdaRec, lambdaSim);
    }

    /** @throws io.lgc4j.core.settings.SettingsException unless {@code share} is in (0, 1] */
    public static double requireInnovationShare(double share) {
        return Require.fraction("innovationShare", share);
    }

    /** @throws io.lgc4j.core.settings.SettingsException unless {@code floats >= 0} */
    public static int requireLinearLatent(int floats) {
        return (int) Require.atLeast("linearLatent", floats, 0);
    }

    /** @return the architecture */
    public AutoencoderSpec spec() {
        return new AutoencoderSpec(encoderFilters, encoderStride, kernel, latentChannels, decoderFilters,
                decoderStrides, leakyAlpha);
    }

    /** @return the online training */
    public AeTraining training() {
        return new AeTraining(optimizer.updater(learningRate), lambdaRec, lambdaSim);
    }

    /**
     * @param lowPass the accumulators' low-pass factor ({@code compressor.lowPass})
     * @return the drift guard, reconstruction feedback, exact-innovation and ablation settings with it
     */
    public LgcControl control(double lowPass) {
        return new LgcControl(driftBound, driftWindow, checkEvery, checkSample, reconstructionFeedback,
                exactInnovation, lowPass, ablation);
    }

    /** @return the settings of {@code compressor: {type: lgc}} with this section and the compressor's keys */
    public LgcSettings settings(CompressorKeys compressor) {
        return new LgcSettings(compressor.ratio(), spec(), training(), control(compressor.lowPass()), linearLatent);
    }

    /** @return this section with {@code ablation} replaced */
    public AutoencoderSection withAblation(LgcAblation newAblation) {
        return new AutoencoderSection(encoderFilters, encoderStride, kernel, latentChannels, decoderFilters,
                decoderStrides, leakyAlpha, innovationShare, optimizer, learningRate, lambdaRec, lambdaSim,
                reconstructionFeedback, exactInnovation, driftBound, driftWindow, checkEvery, checkSample,
                newAblation, linearLatent);
    }

    /** @return this section with {@code lambdaSim} replaced */
    public AutoencoderSection withLambdaSim(double newLambdaSim) {
        return new AutoencoderSection(encoderFilters, encoderStride, kernel, latentChannels, decoderFilters,
                decoderStrides, leakyAlpha, innovationShare, optimizer, learningRate, lambdaRec, newLambdaSim,
                reconstructionFeedback, exactInnovation, driftBound, driftWindow, checkEvery, checkSample, ablation,
                linearLatent);
    }

    private static AutoencoderSection defaults() {
        AutoencoderSpec p = AutoencoderSpec.PAPER;
        LgcControl c = LgcControl.DEFAULT;
        return new AutoencoderSection(p.encoderFilters(), p.encoderStride(), p.kernel(), p.latentChannels(),
                p.decoderFilters(), p.decoderStrides(), p.leakyAlpha(), DEFAULT_INNOVATION_SHARE, DEFAULT_OPTIMIZER,
                DEFAULT_LEARNING_RATE, AeTraining.DEFAULT.lambdaRec(), AeTraining.DEFAULT.lambdaSim(),
                c.reconstructionFeedback(), c.exactInnovation(), c.driftBound(), c.driftWindow(), c.checkEvery(),
                c.checkSample(), c.ablation(), 0);
    }
}

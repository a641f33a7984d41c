package io.lgc4j.runner.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.lgc4j.lgc.autoencoder.AeTraining;
import io.lgc4j.lgc.autoencoder.AutoencoderSpec;
import io.lgc4j.lgc.LgcAblation;
import io.lgc4j.lgc.LgcControl;
import org.nd4j.linalg.learning.config.Sgd;

import java.util.List;

/**
 * The {@code autoencoder} section: the gradient autoencoders' architecture and online training (seeds/003 Tables I
 * and II, eqs. 5–11). The defaults are the paper's architecture and λs; the optimizer defaults to Adam at 1e-3
 * ({@link AeTraining#DEFAULT} says why), {@code optimizer: sgd} gives the paper's SGD.
 *
 * <pre>{@code
 * autoencoder:
 *   encoderFilters: [64, 128, 256, 64]   # strided 1x3 convolutions (Table I)
 *   encoderStride: 2
 *   kernel: 3
 *   latentChannels: 4                    # the closing 1x1 convolution: latent = 4 * L/16 floats
 *   decoderFilters: [4, 32, 64, 128, 32] # 1x3 transposed convolutions (Table II)
 *   decoderStrides: [2, 2, 2, 2, 1]      # [2, 2, 2, 2, 2] = Table II literally (output cropped)
 *   leakyAlpha: 0.01
 *   innovationShare: 0.1                 # PS: top share of the compact vector sent as innovation
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
 * @param encoderFilters  filters of the strided encoder convolutions
 * @param encoderStride   their stride
 * @param kernel          kernel width of the strided and transposed convolutions
 * @param latentChannels  channels of the latent
 * @param decoderFilters  filters of the transposed convolutions
 * @param decoderStrides  their strides
 * @param leakyAlpha      negative slope of the leaky ReLU
 * @param innovationShare the share of the compact vector kept as innovation (PS)
 * @param optimizer       the autoencoder's optimizer
 * @param learningRate    its learning rate
 * @param lambdaRec       λ1
 * @param lambdaSim       λ2
 * @param reconstructionFeedback whether the ranks feed the reconstruction error back into their residuals
 * @param exactInnovation whether the PS server keeps the received innovation values over its decoders' output
 * @param driftBound      the drift guard's bound, 0 = off
 * @param driftWindow     checks the guard's mean covers
 * @param checkEvery      compressed steps between checks
 * @param checkSample     positions sampled per check
 * @param ablation        the control run ({@link LgcAblation}); which ones a topology runs is its own check, made when
 *                        the whole config is
 * @param linearLatent    0: the convolutional autoencoder; f &gt; 0: LGC-RAR's linear code of f floats
 *                        ({@link io.lgc4j.lgc.autoencoder.LinearRingCode}); LGC-PS refuses it when the whole config is
 *                        checked
 */
@JsonPropertyOrder({"encoderFilters", "encoderStride", "kernel", "latentChannels", "decoderFilters",
        "decoderStrides", "leakyAlpha", "innovationShare", "optimizer", "learningRate", "lambdaRec", "lambdaSim",
        "reconstructionFeedback", "exactInnovation", "driftBound", "driftWindow", "checkEvery", "checkSample",
        "ablation", "linearLatent"})
public record AutoencoderConfig(List<Integer> encoderFilters, int encoderStride, int kernel, int latentChannels,
                                List<Integer> decoderFilters, List<Integer> decoderStrides, double leakyAlpha,
                                double innovationShare, UpdaterType optimizer, double learningRate,
                                double lambdaRec, double lambdaSim, boolean reconstructionFeedback,
                                boolean exactInnovation, double driftBound, int driftWindow, int checkEvery,
                                int checkSample, LgcAblation ablation, int linearLatent) {

    /** Default of {@code autoencoder.innovationShare} (seeds/003 Algorithm 1). */
    public static final double DEFAULT_INNOVATION_SHARE = 0.1;
    /** Default of {@code autoencoder.optimizer}. */
    public static final UpdaterType DEFAULT_OPTIMIZER = UpdaterType.ADAM;
    /** Default of {@code autoencoder.learningRate}. */
    public static final double DEFAULT_LEARNING_RATE = 1e-3;

    /**
     * Checks every component; an architecture the autoencoders cannot build is reported with the reason.
     *
     * @throws ConfigException if a component is missing or out of range
     */
    public AutoencoderConfig {
        Checks.required("autoencoder.encoderFilters", encoderFilters);
        Checks.required("autoencoder.decoderFilters", decoderFilters);
        Checks.required("autoencoder.decoderStrides", decoderStrides);
        Checks.required("autoencoder.optimizer", optimizer);
        Checks.required("autoencoder.ablation", ablation);
        encoderFilters = List.copyOf(encoderFilters);
        decoderFilters = List.copyOf(decoderFilters);
        decoderStrides = List.copyOf(decoderStrides);
        Checks.positive("autoencoder.innovationShare", innovationShare);
        Checks.atMostDouble("autoencoder.innovationShare", innovationShare, 1.0);
        Checks.positive("autoencoder.learningRate", learningRate);
        Checks.atLeastDouble("autoencoder.lambdaRec", lambdaRec, 0.0);
        Checks.atLeastDouble("autoencoder.lambdaSim", lambdaSim, 0.0);
        Checks.atLeastDouble("autoencoder.driftBound", driftBound, 0.0);
        Checks.positive("autoencoder.driftWindow", driftWindow);
        Checks.positive("autoencoder.checkEvery", checkEvery);
        Checks.positive("autoencoder.checkSample", checkSample);
        Checks.atLeast("autoencoder.linearLatent", linearLatent, 0);
        try {
            new AutoencoderSpec(encoderFilters, encoderStride, kernel, latentChannels, decoderFilters,
                    decoderStrides, leakyAlpha);
            new AeTraining(new Sgd(learningRate), lambdaRec, lambdaSim);
        } catch (IllegalArgumentException e) {
            throw ConfigException.forKey("autoencoder", "cannot be built: " + e.getMessage());
        }
    }

    /** @return the section with every key at its default: the paper's architecture and λs, Adam at 1e-3 */
    public static AutoencoderConfig defaults() {
        AutoencoderSpec p = AutoencoderSpec.PAPER;
        return new AutoencoderConfig(p.encoderFilters(), p.encoderStride(), p.kernel(), p.latentChannels(),
                p.decoderFilters(), p.decoderStrides(), p.leakyAlpha(), DEFAULT_INNOVATION_SHARE, DEFAULT_OPTIMIZER,
                DEFAULT_LEARNING_RATE, AeTraining.DEFAULT.lambdaRec(), AeTraining.DEFAULT.lambdaSim(),
                LgcControl.DEFAULT.reconstructionFeedback(), LgcControl.DEFAULT.exactInnovation(),
                LgcControl.DEFAULT.driftBound(),
                LgcControl.DEFAULT.driftWindow(), LgcControl.DEFAULT.checkEvery(), LgcControl.DEFAULT.checkSample(),
                LgcControl.DEFAULT.ablation(), 0);
    }

    /** @return the architecture */
    public AutoencoderSpec spec() {
        return new AutoencoderSpec(encoderFilters, encoderStride, kernel, latentChannels, decoderFilters,
                decoderStrides, leakyAlpha);
    }

    /** @return the online training settings */
    public AeTraining training() {
        return AeTraining.named(optimizer.toString(), learningRate, lambdaRec, lambdaSim);
    }

    /**
     * @return the drift guard, reconstruction feedback, exact-innovation and ablation settings, with the
     *         accumulators' low-pass factor of {@link LgcControl#DEFAULT} (the runner takes it from
     *         {@code compressor.lowPass})
     */
    public LgcControl control() {
        return new LgcControl(driftBound, driftWindow, checkEvery, checkSample, reconstructionFeedback,
                exactInnovation, LgcControl.DEFAULT.lowPass(), ablation);
    }

    /**
     * @param newAblation the control run
     * @return this section with {@code ablation} replaced
     */
    public AutoencoderConfig withAblation(LgcAblation newAblation) {
        return new AutoencoderConfig(encoderFilters, encoderStride, kernel, latentChannels, decoderFilters,
                decoderStrides, leakyAlpha, innovationShare, optimizer, learningRate, lambdaRec, lambdaSim,
                reconstructionFeedback, exactInnovation, driftBound, driftWindow, checkEvery, checkSample,
                newAblation, linearLatent);
    }

    /**
     * @param newLambdaSim λ2
     * @return this section with {@code lambdaSim} replaced
     */
    public AutoencoderConfig withLambdaSim(double newLambdaSim) {
        return new AutoencoderConfig(encoderFilters, encoderStride, kernel, latentChannels, decoderFilters,
                decoderStrides, leakyAlpha, innovationShare, optimizer, learningRate, lambdaRec, newLambdaSim,
                reconstructionFeedback, exactInnovation, driftBound, driftWindow, checkEvery, checkSample, ablation,
                linearLatent);
    }

    @JsonCreator
    private static AutoencoderConfig fromYaml(@JsonProperty("encoderFilters") List<Integer> encoderFilters,
                                              @JsonProperty("encoderStride") Integer encoderStride,
                                              @JsonProperty("kernel") Integer kernel,
                                              @JsonProperty("latentChannels") Integer latentChannels,
                                              @JsonProperty("decoderFilters") List<Integer> decoderFilters,
                                              @JsonProperty("decoderStrides") List<Integer> decoderStrides,
                                              @JsonProperty("leakyAlpha") Double leakyAlpha,
                                              @JsonProperty("innovationShare") Double innovationShare,
                                              @JsonProperty("optimizer") UpdaterType optimizer,
                                              @JsonProperty("learningRate") Double learningRate,
                                              @JsonProperty("lambdaRec") Double lambdaRec,
                                              @JsonProperty("lambdaSim") Double lambdaSim,
                                              @JsonProperty("reconstructionFeedback") Boolean feedback,
                                              @JsonProperty("exactInnovation") Boolean exactInnovation,
                                              @JsonProperty("driftBound") Double driftBound,
                                              @JsonProperty("driftWindow") Integer driftWindow,
                                              @JsonProperty("checkEvery") Integer checkEvery,
                                              @JsonProperty("checkSample") Integer checkSample,
                                              @JsonProperty("ablation") LgcAblation ablation,
                                              @JsonProperty("linearLatent") Integer linearLatent) {
        AutoencoderConfig d = defaults();
        return new AutoencoderConfig(Checks.orDefault(encoderFilters, d.encoderFilters()),
                Checks.orDefault(encoderStride, d.encoderStride()), Checks.orDefault(kernel, d.kernel()),
                Checks.orDefault(latentChannels, d.latentChannels()),
                Checks.orDefault(decoderFilters, d.decoderFilters()),
                Checks.orDefault(decoderStrides, d.decoderStrides()), Checks.orDefault(leakyAlpha, d.leakyAlpha()),
                Checks.orDefault(innovationShare, DEFAULT_INNOVATION_SHARE),
                Checks.orDefault(optimizer, DEFAULT_OPTIMIZER), Checks.orDefault(learningRate, DEFAULT_LEARNING_RATE),
                Checks.orDefault(lambdaRec, d.lambdaRec()), Checks.orDefault(lambdaSim, d.lambdaSim()),
                Checks.orDefault(feedback, d.reconstructionFeedback()),
                Checks.orDefault(exactInnovation, d.exactInnovation()), Checks.orDefault(driftBound, d.driftBound()),
                Checks.orDefault(driftWindow, d.driftWindow()), Checks.orDefault(checkEvery, d.checkEvery()),
                Checks.orDefault(checkSample, d.checkSample()), Checks.orDefault(ablation, d.ablation()),
                Checks.orDefault(linearLatent, d.linearLatent()));
    }
}

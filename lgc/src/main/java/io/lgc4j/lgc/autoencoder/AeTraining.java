package io.lgc4j.lgc.autoencoder;

import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Nesterovs;
import org.nd4j.linalg.learning.config.Sgd;

import java.util.Arrays;
import java.util.Locale;

/**
 * How an autoencoder trains online: its optimizer and the weights of its two losses, L = λ1·L_rec + λ2·L_sim
 * (seeds/003 eqs. 5–7 and 11).
 *
 * <p>Both losses are the paper's sums divided by the number of terms: L_rec by K·μ (the parameter server's K
 * reconstructions) or μ (the ring's one), L_sim by K·(K−1)·(latent size). A mean keeps the learning rate meaningful
 * whatever μ and K are; with the paper's plain sums the gradient grows with μ and SGD at 1e-3 diverges for a large
 * model.
 *
 * @param updater   the optimizer (the paper: SGD, learning rate 1e-3)
 * @param lambdaRec λ1, weight of the reconstruction loss
 * @param lambdaSim λ2, weight of the similarity loss between the ranks' latents
 */
public record AeTraining(IUpdater updater, double lambdaRec, double lambdaSim) {

    /** The paper's settings: SGD with learning rate 1e-3, λ1 = 1, λ2 = 0.5. */
    public static final AeTraining PAPER = new AeTraining(new Sgd(1e-3), 1.0, 0.5);

    /**
     * The default: Adam at learning rate 1e-3, λ1 = 1 and λ2 = 0.
     * <ul>
     *   <li>Adam, not SGD: on unit-scale compact vectors (see {@link Scale}) and mean losses, the paper's SGD at
     *       1e-3 barely moves in the 300 iterations the TOP_K stage lasts (synthetic correlated gradients, μ = 1000,
     *       K = 4: the PS reconstruction loss goes 0.98 → 0.94; SGD at 1e-2: 0.98 → 0.68), while Adam at 1e-3
     *       reaches 0.13 in the same 300 steps.</li>
     *   <li>λ2 = 0, not 0.5: on real compact vectors (small CNN, Fashion-MNIST, K = 4, 250 recorded TOP_K steps to
     *       train, 50 held out) the similarity term collapses the latent. Ring: the decoded mean's relative error is
     *       1.00 at λ2 = 0.5 (a constant output, cosine with the truth 0.01) against 0.63 (cosine 0.61) at λ2 = 0.
     *       PS, mean of the K reconstructions with the exact innovation: 0.57 against 0.46 (docs/results/lgc).</li>
     * </ul>
     */
    public static final AeTraining DEFAULT = new AeTraining(new Adam(1e-3), 1.0, 0.0);

    public AeTraining {
        if (updater == null) {
            throw new IllegalArgumentException("updater must be given");
        }
        if (!(lambdaRec >= 0) || !(lambdaSim >= 0) || lambdaRec + lambdaSim == 0 || Double.isInfinite(lambdaRec)
                || Double.isInfinite(lambdaSim)) {
            throw new IllegalArgumentException("lambdaRec and lambdaSim must be finite, non-negative and not both 0, "
                    + "got " + lambdaRec + " and " + lambdaSim);
        }
    }

    /** The optimizers a configuration names ({@code autoencoder.optimizer}). */
    public enum Optimizer {
        /** Adam. */
        ADAM,
        /** Nesterov momentum, 0.9. */
        NESTEROVS,
        /** Plain SGD, the paper's. */
        SGD;

        /** This optimizer at {@code learningRate}. */
        public IUpdater updater(double learningRate) {
            return switch (this) {
                case ADAM -> new Adam(learningRate);
                case NESTEROVS -> new Nesterovs(learningRate, 0.9);
                case SGD -> new Sgd(learningRate);
            };
        }
    }

    /**
     * Settings with the optimizer given by name, as configurations write it: {@code adam}, {@code sgd} or
     * {@code nesterovs} (momentum 0.9), any case.
     *
     * <pre>{@code
     * AeTraining t = AeTraining.named("adam", 1e-3, 1.0, 0.0);   // equals DEFAULT's settings
     * }</pre>
     *
     * @throws IllegalArgumentException for another optimizer name, listing the known ones
     */
    public static AeTraining named(String optimizer, double learningRate, double lambdaRec, double lambdaSim) {
        Optimizer named = Arrays.stream(Optimizer.values())
                .filter(o -> o.name().equals(optimizer.strip().toUpperCase(Locale.ROOT))).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("optimizer must be one of [adam, nesterovs, sgd],"
                        + " found '" + optimizer + "'"));
        return new AeTraining(named.updater(learningRate), lambdaRec, lambdaSim);
    }

    /** The same settings with λ2 = {@code lambdaSim}. */
    public AeTraining withLambdaSim(double lambdaSim) {
        return new AeTraining(updater, lambdaRec, lambdaSim);
    }

    /** The same settings with another optimizer. */
    public AeTraining withUpdater(IUpdater updater) {
        return new AeTraining(updater, lambdaRec, lambdaSim);
    }
}

package io.lgc4j.autoencoders;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Online training of an autoencoder, one set of K compact vectors per iteration (batch 1), with the losses of every
 * step kept for reports.
 *
 * <p>For the parameter server the common latent comes from a rank drawn at random each step (seeds/003 Fig. 6); for
 * the ring the scale reference is the step's leader when the caller knows it, else a rank drawn the same way. The
 * draw comes from a {@link SplittableRandom} seeded at construction, so the same seed trains the same weights.
 *
 * <pre>{@code
 * AutoencoderTrainer trainer = AutoencoderTrainer.ps(new PsAutoencoder(spec, mu, 4, 0.1, training, seed), seed);
 * for (float[][] compacts : topKStage) {
 *     AeLosses losses = trainer.step(compacts);
 * }
 * }</pre>
 */
public final class AutoencoderTrainer {

    private final GradientAutoencoder autoencoder;
    private final SplittableRandom random;
    private final List<AeLosses> history = new ArrayList<>();

    private AutoencoderTrainer(GradientAutoencoder autoencoder, long seed) {
        this.autoencoder = autoencoder;
        this.random = new SplittableRandom(seed);
    }

    /** Trains the parameter server's autoencoder. */
    public static AutoencoderTrainer ps(PsAutoencoder autoencoder, long seed) {
        return new AutoencoderTrainer(autoencoder, seed);
    }

    /** Trains the ring's autoencoder. */
    public static AutoencoderTrainer ring(RingAutoencoder autoencoder, long seed) {
        return new AutoencoderTrainer(autoencoder, seed);
    }

    /** The autoencoder being trained. */
    public GradientAutoencoder autoencoder() {
        return autoencoder;
    }

    /** One step on this iteration's compact vectors, the common (or reference) rank drawn at random. */
    public AeLosses step(float[][] compacts) {
        return step(compacts, random.nextInt(autoencoder.ranks()));
    }

    /** One step with rank {@code reference} as the common latent (PS) or the scale reference (ring). */
    public AeLosses step(float[][] compacts, int reference) {
        AeLosses losses = autoencoder instanceof PsAutoencoder ps
                ? ps.trainStep(compacts, reference)
                : ((RingAutoencoder) autoencoder).trainStep(compacts, reference);
        history.add(losses);
        return losses;
    }

    /** The losses of every step so far, in order. */
    public List<AeLosses> history() {
        return Collections.unmodifiableList(history);
    }
}

package io.lgc4j.lgc.autoencoder;

/**
 * The losses of one training step, before the update.
 *
 * @param reconstruction L_rec (mean squared error over the real positions of the compact vectors, normalized)
 * @param similarity     L_sim (mean squared distance between the ranks' latents)
 * @param total          λ1·L_rec + λ2·L_sim
 */
public record AeLosses(double reconstruction, double similarity, double total) {
}

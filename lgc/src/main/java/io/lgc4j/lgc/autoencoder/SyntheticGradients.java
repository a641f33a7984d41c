package io.lgc4j.lgc.autoencoder;

import java.util.SplittableRandom;

/**
 * Correlated "gradients" for tests and benchmarks: every step, K vectors that share a common part and differ by a
 * small per-rank innovation, g_k = c + ε·n_k. The common part is a smooth random signal (a random walk, so
 * neighbouring positions correlate as in a compact vector of a convolutional layer) scaled like gradients (1e-3).
 */
public final class SyntheticGradients {

    private final int mu;
    private final int ranks;
    private final double innovation;
    private final SplittableRandom random;

    /**
     * @param mu         length of each vector
     * @param ranks      K, vectors per step
     * @param innovation size of the per-rank part relative to the common part
     * @param seed       seed of the generator
     */
    public SyntheticGradients(int mu, int ranks, double innovation, long seed) {
        this.mu = mu;
        this.ranks = ranks;
        this.innovation = innovation;
        this.random = new SplittableRandom(seed);
    }

    /** The next step's K vectors. */
    public float[][] next() {
        double[] common = new double[mu];
        double walk = 0;
        for (int i = 0; i < mu; i++) {
            walk = 0.9 * walk + random.nextGaussian();
            common[i] = walk;
        }
        float[][] g = new float[ranks][mu];
        for (int k = 0; k < ranks; k++) {
            for (int i = 0; i < mu; i++) {
                g[k][i] = (float) (1e-3 * (common[i] + innovation * random.nextGaussian()));
            }
        }
        return g;
    }
}

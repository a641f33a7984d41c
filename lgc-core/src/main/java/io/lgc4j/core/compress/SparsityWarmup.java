package io.lgc4j.core.compress;

/**
 * DGC's exponential warm-up of sparsity (Lin et al. 2018): over {@code warmupSteps} split in four equal phases the
 * density falls 25%, 6.25%, 1.5625%, 0.4%, then stays at the target. Shared by {@link DgcCompressor} and
 * {@link TopKCompressor}, so the schedule can be compared on its own (seeds/003 Fig. 13).
 */
final class SparsityWarmup {
    private static final double[] DENSITIES = {0.25, 0.0625, 0.015625, 0.004};

    private SparsityWarmup() {
    }

    /** The density at {@code step}: the warm-up's, never below {@code ratio}, then {@code ratio}. */
    static double density(double ratio, int warmupSteps, int step) {
        if (step >= warmupSteps) {
            return ratio;
        }
        int phase = (int) ((long) step * DENSITIES.length / warmupSteps);
        return Math.max(ratio, DENSITIES[phase]);
    }
}

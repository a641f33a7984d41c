package io.lgc4j.autoencoders;

/**
 * What the LGC topologies do beyond the paper to keep the learned compression honest.
 *
 * @param driftBound           the {@link DriftGuard} bound on the mean relative reconstruction error; 0 turns the
 *                             guard off
 * @param driftWindow          how many checks the guard's mean covers
 * @param checkEvery           check the reconstruction every this many compressed steps (a check costs a small
 *                             extra exchange of the true values at a sample of positions, counted)
 * @param checkSample          positions of the compact vector sampled per check
 * @param reconstructionFeedback whether each rank puts the reconstruction's error back into its residual, so the
 *                             sum of residuals keeps what the autoencoder lost (error feedback through the AE)
 */
public record LgcControl(double driftBound, int driftWindow, int checkEvery, int checkSample,
                         boolean reconstructionFeedback) {

    /** The guard on (bound 1, window 5, a 32-position check every 10 steps) and reconstruction feedback on. */
    public static final LgcControl DEFAULT = new LgcControl(1.0, 5, 10, 32, true);

    /** The paper's behaviour: no guard, no reconstruction feedback. */
    public static final LgcControl PAPER = new LgcControl(0, 5, 10, 32, false);

    public LgcControl {
        if (!(driftBound >= 0) || Double.isInfinite(driftBound) || driftWindow < 1 || checkEvery < 1
                || checkSample < 1) {
            throw new IllegalArgumentException("driftBound must be finite and >= 0 and driftWindow, checkEvery, "
                    + "checkSample at least 1; got " + driftBound + ", " + driftWindow + ", " + checkEvery + ", "
                    + checkSample);
        }
    }

    /** Whether the drift guard is on. */
    public boolean guarded() {
        return driftBound > 0;
    }

    /** A guard for these settings, or null when it is off. */
    public DriftGuard newGuard() {
        return guarded() ? new DriftGuard(driftBound, driftWindow) : null;
    }
}

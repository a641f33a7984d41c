package io.lgc4j.lgc;

import io.lgc4j.core.compress.CompressorKeys;
import io.lgc4j.core.settings.Require;

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
 * @param exactInnovation      LGC-PS: the server puts each rank's innovation values, which it receives exactly, over
 *                             its decoder's output at those positions (the paper uses the decoder's output)
 * @param lowPass              the accumulators' low-pass factor β in (0, 1] (ScaleCom's filtered memory); 1 = the
 *                             paper's plain error accumulation
 * @param ablation             a control run: what COMPRESSED steps apply at the LEARNED positions instead, every byte
 *                             sent unchanged ({@link LgcAblation}; its Javadoc says how it meets the guard and the
 *                             feedback); {@link LgcAblation#NONE} for the method itself
 */
public record LgcControl(double driftBound, int driftWindow, int checkEvery, int checkSample,
                         boolean reconstructionFeedback, boolean exactInnovation, double lowPass,
                         LgcAblation ablation) {

    /**
     * The guard on (bound 0.9, window 5, a 32-position check every 10 steps), exact innovation on, reconstruction
     * feedback off, accumulators low-pass filtered with β = 0.1.
     * <ul>
     *   <li>Bound 0.9: a well-trained ring autoencoder's decoded mean has a relative error about 0.6 on real compact
     *       vectors, LGC-PS's mean with the exact innovation about 0.45; a collapsed one (constant output) 1.0.</li>
     *   <li>β = 0.1: with plain error accumulation (β = 1) the small CNN's test accuracy fell from 84.9% to 82.1%
     *       over the TOP_K stage (steps 200–399, K = 4, 0.1%); with β = 0.1 it rose to 86.8% (docs/results/lgc),
     *       as ScaleCom's did (88.99% against 87.06% after 3 epochs).</li>
     *   <li>Feedback off: on LGC-PS (K = 4, 3 epochs) it lowered the final accuracy (88.56% with it, 88.85% without)
     *       and raised the sampled reconstruction error (0.72 against 0.44), which tripped the guard 4 times; on
     *       LGC-RAR 88.74% with it, 89.16% without.</li>
     * </ul>
     */
    public static final LgcControl DEFAULT = new LgcControl(0.9, 5, 10, 32, false, true, 0.1);

    /** The paper's behaviour: no guard, no reconstruction feedback, the decoders' output as is, plain accumulation. */
    public static final LgcControl PAPER = new LgcControl(0, 5, 10, 32, false, false, 1.0);

    /**
     * Checks every component, naming the first that is out of range; the ablation is checked against the topology by
     * the topology.
     */
    public LgcControl {
        Require.required("ablation", ablation);
        requireGuard(driftBound, driftWindow, checkEvery, checkSample);
        CompressorKeys.requireLowPass(lowPass);
    }

    /**
     * The drift guard's settings: a finite bound {@code >= 0} (0: off) and a positive window, interval and sample.
     *
     * @throws io.lgc4j.core.settings.SettingsException naming the first that is out of range
     */
    public static void requireGuard(double driftBound, int driftWindow, int checkEvery, int checkSample) {
        Require.atLeast("driftBound", driftBound, 0.0);
        Require.positive("driftWindow", driftWindow);
        Require.positive("checkEvery", checkEvery);
        Require.positive("checkSample", checkSample);
    }

    /** The controls without an ablation ({@link LgcAblation#NONE}). */
    public LgcControl(double driftBound, int driftWindow, int checkEvery, int checkSample,
                      boolean reconstructionFeedback, boolean exactInnovation, double lowPass) {
        this(driftBound, driftWindow, checkEvery, checkSample, reconstructionFeedback, exactInnovation, lowPass,
                LgcAblation.NONE);
    }

    /** These controls with the accumulators' low-pass factor β replaced. */
    public LgcControl withLowPass(double beta) {
        return new LgcControl(driftBound, driftWindow, checkEvery, checkSample, reconstructionFeedback,
                exactInnovation, beta, ablation);
    }

    /** These controls as the control run {@code newAblation} ({@link LgcAblation#NONE}: the method itself). */
    public LgcControl withAblation(LgcAblation newAblation) {
        return new LgcControl(driftBound, driftWindow, checkEvery, checkSample, reconstructionFeedback,
                exactInnovation, lowPass, newAblation);
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

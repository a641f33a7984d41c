package io.lgc4j.lgc.autoencoder;

import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.checkpoint.Persistent;
import io.lgc4j.core.checkpoint.SectionReader;
import io.lgc4j.core.checkpoint.SectionWriter;

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
 * <p>Its state between steps (see {@link #save}) is the draws made and the losses kept; the autoencoder it trains
 * belongs to its owner, which saves it.
 *
 * <pre>{@code
 * AutoencoderTrainer trainer = AutoencoderTrainer.ps(new PsAutoencoder(spec, mu, 4, 0.1, training, seed), seed);
 * for (float[][] compacts : topKStage) {
 *     AeLosses losses = trainer.step(compacts);
 * }
 * }</pre>
 */
public final class AutoencoderTrainer implements Persistent {

    private final GradientAutoencoder autoencoder;
    private final long seed;
    private SplittableRandom random;
    /** How many ranks {@link #random} has drawn: all a checkpoint needs to put it back where it is. */
    private long draws;
    private final List<AeLosses> history = new ArrayList<>();

    private AutoencoderTrainer(GradientAutoencoder autoencoder, long seed) {
        this.autoencoder = autoencoder;
        this.seed = seed;
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
        int reference = random.nextInt(autoencoder.ranks());
        draws++;
        return step(compacts, reference);
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

    /**
     * Saves the trainer's state:
     * <ul>
     *   <li>{@code prefix/random}: the seed (int64) and the number of ranks drawn so far (int64). A
     *       {@link SplittableRandom} does not expose its state; every draw is {@code nextInt(K)}, so a restore
     *       re-seeds and draws as many again, which leaves the generator exactly where it was (the draws before the
     *       checkpoint cost a few nanoseconds each).</li>
     *   <li>{@code prefix/history}: the number of steps taken N (int32), then each step's losses (reconstruction,
     *       similarity, total: three float64s), so that {@link #history()} of a resumed run lists every step of the
     *       run, as an uninterrupted run's does (24 bytes a step).</li>
     * </ul>
     */
    @Override
    public void save(CheckpointPart.Builder part, String prefix) {
        part.section(prefix + "/random").putLong(seed).putLong(draws);
        SectionWriter w = part.section(prefix + "/history").putInt(history.size());
        for (AeLosses l : history) {
            w.putDouble(l.reconstruction()).putDouble(l.similarity()).putDouble(l.total());
        }
    }

    /**
     * Restores what {@link #save} wrote into a trainer built with the same seed.
     *
     * @throws CheckpointException naming the section when one is missing, of the wrong length, or written by a
     *                             trainer of another seed
     */
    @Override
    public void restore(CheckpointPart part, String prefix) throws CheckpointException {
        String randomSection = prefix + "/random";
        SectionReader r = part.section(randomSection);
        long savedSeed = r.getLong();
        long savedDraws = r.getLong();
        r.end();
        if (savedSeed != seed) {
            throw SectionChecks.refuse(part, randomSection, "drawn from seed " + savedSeed + ", this trainer's seed is "
                    + seed);
        }
        String historySection = prefix + "/history";
        SectionReader h = part.section(historySection);
        int steps = h.getInt();
        if (steps < 0 || (long) steps * 3 * Double.BYTES != h.remaining()) {
            throw SectionChecks.refuse(part, historySection, "expected the losses of " + SectionChecks.count(steps)
                    + " steps (" + SectionChecks.count(Math.max(0, steps) * 3L * Double.BYTES) + " bytes after the "
                    + "count), found " + SectionChecks.count(h.remaining()) + " bytes");
        }
        List<AeLosses> losses = new ArrayList<>(steps);
        for (int i = 0; i < steps; i++) {
            losses.add(new AeLosses(h.getDouble(), h.getDouble(), h.getDouble()));
        }
        h.end();
        if (savedDraws < 0 || savedDraws > steps) {
            // every draw picks the reference of one step; the bound also keeps a corrupt count from a long replay
            throw SectionChecks.refuse(part, randomSection, SectionChecks.count(savedDraws) + " draws for "
                    + SectionChecks.count(steps) + " steps in '" + historySection + "'; a step draws at most once");
        }
        SplittableRandom replayed = new SplittableRandom(seed);
        for (long i = 0; i < savedDraws; i++) {
            replayed.nextInt(autoencoder.ranks());
        }
        random = replayed;
        draws = savedDraws;
        history.clear();
        history.addAll(losses);
    }
}

package io.lgc4j.lgc;

import io.lgc4j.lgc.autoencoder.SectionChecks;
import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.checkpoint.Persistent;
import io.lgc4j.core.checkpoint.SectionReader;
import io.lgc4j.core.stage.Stage;

/**
 * What an LGC step does beyond its stage, as every endpoint derives it: whether it is compressed or a fallback
 * TOP_K step, whether the drift guard checks it, whether a stage flag follows it, and whether the autoencoder's
 * weights ship first. Workers, the parameter server and every ring rank each keep one of these and feed it the same
 * events in the same order — the steps, and the flags that end a check or a fallback step — so they agree without
 * exchanging counters: the same code on both sides of every link.
 *
 * <pre>{@code
 * LgcProtocolState.Plan plan = state.plan(tag.stage());   // once per non-FULL step, on every endpoint
 * if (plan.shipWeights()) { ... ; state.weightsShipped(); }
 * ...
 * if (plan.flag()) state.nextStepCompressed(flag);         // the flag the server (or ring trainer) sent
 * }</pre>
 */
public final class LgcProtocolState implements Persistent {

    /**
     * One step's plan.
     *
     * @param compressed  the LEARNED blocks travel encoded (COMPRESSED stage, no fallback)
     * @param check       the drift guard measures this step (every {@code checkEvery} compressed steps)
     * @param flag        a stage flag ends this step: after a check, and after every fallback step
     * @param shipWeights the autoencoder's weights ship before this step's payload (the first compressed step, and
     *                    the first after a fallback)
     */
    public record Plan(boolean compressed, boolean check, boolean flag, boolean shipWeights) {
    }

    private final int checkEvery;
    private final boolean guarded;
    private boolean fallback;
    private boolean weightsShipped;
    private int compressedSteps;

    /** A fresh state: no step run, no weights shipped, no fallback. */
    public LgcProtocolState(LgcControl control) {
        this.checkEvery = control.checkEvery();
        this.guarded = control.guarded();
    }

    /** The plan of the next non-FULL step, of {@code stage}; counts the step. */
    public Plan plan(Stage stage) {
        boolean compressed = stage == Stage.COMPRESSED && !fallback;
        boolean check = compressed && guarded && compressedSteps++ % checkEvery == 0;
        boolean flag = check || (stage == Stage.COMPRESSED && fallback);
        return new Plan(compressed, check, flag, compressed && !weightsShipped);
    }

    /** Whether COMPRESSED steps currently run as TOP_K steps (the guard tripped and has not recovered). */
    public boolean fallback() {
        return fallback;
    }

    /** The weights shipped (or, on a receiver, were loaded) this step. */
    public void weightsShipped() {
        weightsShipped = true;
    }

    /**
     * Saves {@code prefix/state}: whether a fallback is under way, whether the weights have shipped since the last
     * (re)start of the compressed stage (two booleans), and the compressed steps planned so far (int32), which
     * places the next check. The check period and whether a guard runs are the configuration's.
     */
    @Override
    public void save(CheckpointPart.Builder part, String prefix) {
        part.section(prefix + "/state").putBoolean(fallback).putBoolean(weightsShipped).putInt(compressedSteps);
    }

    /**
     * Restores what {@link #save} wrote.
     *
     * @throws CheckpointException naming the section when it is missing or not two booleans and a count >= 0
     */
    @Override
    public void restore(CheckpointPart part, String prefix) throws CheckpointException {
        String section = prefix + "/state";
        SectionReader r = part.section(section);
        boolean savedFallback = r.getBoolean();
        boolean savedShipped = r.getBoolean();
        int savedSteps = r.getInt();
        r.end();
        if (savedSteps < 0) {
            throw SectionChecks.refuse(part, section, "a negative count of compressed steps, " + savedSteps);
        }
        fallback = savedFallback;
        weightsShipped = savedShipped;
        compressedSteps = savedSteps;
    }

    /**
     * The flag that ended a check or fallback step: whether the next step is compressed. {@code false} starts (or
     * continues) a fallback; {@code true} after a fallback ends it, and the weights ship again.
     */
    public void nextStepCompressed(boolean compressed) {
        if (fallback && compressed) {
            weightsShipped = false;
        }
        fallback = !compressed;
    }
}

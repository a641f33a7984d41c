package io.lgc4j.core.stage;

import java.util.EnumSet;
import java.util.Set;

/**
 * Which stage each step is in: {@link Stage#FULL} for the first {@code fullIterations} steps, then
 * {@link Stage#TOP_K} for {@code topKIterations} steps, then {@link Stage#COMPRESSED} (seeds/003, Section V-B).
 * A compressor without an autoencoder stays in TOP_K: use {@link #denseWarmup(int)}.
 *
 * @param fullIterations steps of dense updates, {@code >= 0}
 * @param topKIterations steps of top-k updates before the compressed stage, {@code >= 0}; {@link Integer#MAX_VALUE}
 *                       never leaves TOP_K
 */
public record StageSchedule(int fullIterations, int topKIterations) {

    /** Dense for every step (no compression). */
    public static final StageSchedule ALWAYS_FULL = new StageSchedule(Integer.MAX_VALUE, 0);

    /** Validates both counts. */
    public StageSchedule {
        if (fullIterations < 0) {
            throw new IllegalArgumentException("fullIterations must be >= 0, found " + fullIterations);
        }
        if (topKIterations < 0) {
            throw new IllegalArgumentException("topKIterations must be >= 0, found " + topKIterations);
        }
    }

    /** Dense for {@code steps} steps, then top-k for the rest of the run. */
    public static StageSchedule denseWarmup(int steps) {
        return new StageSchedule(steps, Integer.MAX_VALUE);
    }

    /**
     * The schedule of a method that goes through {@code stages}: {@code FULL} alone is {@link #ALWAYS_FULL};
     * {@code FULL, TOP_K} is {@link #denseWarmup denseWarmup(fullIterations)} (TOP_K for the rest of the run);
     * {@code FULL, TOP_K, COMPRESSED} is {@code new StageSchedule(fullIterations, topKIterations)}.
     *
     * <pre>{@code
     * StageSchedule.through(EnumSet.of(Stage.FULL, Stage.TOP_K), 200, 300);   // denseWarmup(200)
     * }</pre>
     *
     * @throws IllegalArgumentException for any other set of stages, naming it
     */
    public static StageSchedule through(Set<Stage> stages, int fullIterations, int topKIterations) {
        if (stages.equals(EnumSet.of(Stage.FULL))) {
            return ALWAYS_FULL;
        }
        if (stages.equals(EnumSet.of(Stage.FULL, Stage.TOP_K))) {
            return denseWarmup(fullIterations);
        }
        if (stages.equals(EnumSet.of(Stage.FULL, Stage.TOP_K, Stage.COMPRESSED))) {
            return new StageSchedule(fullIterations, topKIterations);
        }
        throw new IllegalArgumentException("a schedule goes through [FULL], [FULL, TOP_K] or [FULL, TOP_K,"
                + " COMPRESSED], found " + stages);
    }

    /** The stage of 0-based {@code step}. */
    public Stage stageAt(int step) {
        if (step < fullIterations) {
            return Stage.FULL;
        }
        return (long) step - fullIterations < topKIterations ? Stage.TOP_K : Stage.COMPRESSED;
    }
}

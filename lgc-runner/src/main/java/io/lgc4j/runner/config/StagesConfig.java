package io.lgc4j.runner.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The {@code stages} section: how many steps are dense before the compressor takes over, and (LGC) how many
 * top-k steps train the autoencoder before the compressed stage (seeds/003, Section V-B).
 *
 * <pre>{@code
 * stages:
 *   fullIterations: 200         # dense steps first; >= 0
 *   aeTrainingIterations: 300   # lgc: top-k steps while the autoencoder trains, then COMPRESSED; >= 0
 * }</pre>
 *
 * @param fullIterations       dense steps at the start of training
 * @param aeTrainingIterations top-k steps of autoencoder training (compressor {@code lgc} only)
 */
public record StagesConfig(int fullIterations, int aeTrainingIterations) {

    /** Default of {@code stages.fullIterations}. */
    public static final int DEFAULT_FULL_ITERATIONS = 200;
    /** Default of {@code stages.aeTrainingIterations}. */
    public static final int DEFAULT_AE_TRAINING_ITERATIONS = 300;

    /**
     * Checks the component.
     *
     * @param fullIterations       dense steps at the start of training
     * @param aeTrainingIterations top-k steps of autoencoder training
     * @throws ConfigException if either is negative
     */
    public StagesConfig {
        Checks.atLeast("stages.fullIterations", fullIterations, 0);
        Checks.atLeast("stages.aeTrainingIterations", aeTrainingIterations, 0);
    }

    /**
     * A stages section with the default autoencoder training length.
     *
     * @param fullIterations dense steps at the start of training
     */
    public StagesConfig(int fullIterations) {
        this(fullIterations, DEFAULT_AE_TRAINING_ITERATIONS);
    }

    /** @return the stages section with every key at its default */
    public static StagesConfig defaults() {
        return new StagesConfig(DEFAULT_FULL_ITERATIONS, DEFAULT_AE_TRAINING_ITERATIONS);
    }

    @JsonCreator
    private static StagesConfig fromYaml(@JsonProperty("fullIterations") Integer fullIterations,
                                         @JsonProperty("aeTrainingIterations") Integer aeTrainingIterations) {
        return new StagesConfig(Checks.orDefault(fullIterations, DEFAULT_FULL_ITERATIONS),
                Checks.orDefault(aeTrainingIterations, DEFAULT_AE_TRAINING_ITERATIONS));
    }
}

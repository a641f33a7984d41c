package io.lgc4j.experiments.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The {@code stages} section: how many steps are dense before the compressor takes over (seeds/003, Section V-B).
 *
 * <pre>{@code
 * stages:
 *   fullIterations: 200   # dense steps first; >= 0
 * }</pre>
 *
 * @param fullIterations dense steps at the start of training
 */
public record StagesConfig(int fullIterations) {

    /** Default of {@code stages.fullIterations}. */
    public static final int DEFAULT_FULL_ITERATIONS = 200;

    /**
     * Checks the component.
     *
     * @param fullIterations dense steps at the start of training
     * @throws ConfigException if it is negative
     */
    public StagesConfig {
        Checks.atLeast("stages.fullIterations", fullIterations, 0);
    }

    /** @return the stages section with every key at its default */
    public static StagesConfig defaults() {
        return new StagesConfig(DEFAULT_FULL_ITERATIONS);
    }

    @JsonCreator
    private static StagesConfig fromYaml(@JsonProperty("fullIterations") Integer fullIterations) {
        return new StagesConfig(Checks.orDefault(fullIterations, DEFAULT_FULL_ITERATIONS));
    }
}

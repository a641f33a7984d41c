package io.lgc4j.advise.config;

import io.lgc4j.runner.config.ExperimentConfig;

import java.util.Objects;

/**
 * One method the advisor compares: the user's config with the candidate's method sections in place of its own.
 *
 * @param id     a short name, unique in its list ({@code dense-fp16})
 * @param label  what the table prints ({@code Dense fp16 (ring)})
 * @param config the user's config with this method
 */
public record AdviseCandidate(String id, String label, ExperimentConfig config) {
    /** Rejects nulls. */
    public AdviseCandidate {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(label, "label");
        Objects.requireNonNull(config, "config");
    }
}

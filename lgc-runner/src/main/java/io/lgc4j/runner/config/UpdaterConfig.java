package io.lgc4j.runner.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * The {@code model.updater} section: the optimiser applied to the aggregated gradient on every replica.
 *
 * <pre>{@code
 * model:
 *   updater:
 *     type: nesterovs      # nesterovs | sgd | adam
 *     learningRate: 0.05   # > 0
 *     momentum: 0.9        # [0, 1); checked and kept for every type, used by nesterovs only
 * }</pre>
 *
 * <pre>{@code
 * UpdaterConfig adam = new UpdaterConfig(UpdaterType.ADAM, 1e-3, UpdaterConfig.DEFAULT_MOMENTUM);
 * }</pre>
 *
 * @param type         the optimiser
 * @param learningRate the step size, finite and {@code > 0}
 * @param momentum     the Nesterov momentum, in {@code [0, 1)}
 */
@JsonPropertyOrder({"type", "learningRate", "momentum"})
public record UpdaterConfig(UpdaterType type, double learningRate, double momentum) {

    /** Default of {@code model.updater.type}. */
    public static final UpdaterType DEFAULT_TYPE = UpdaterType.NESTEROVS;
    /** Default of {@code model.updater.learningRate}. */
    public static final double DEFAULT_LEARNING_RATE = 0.05;
    /** Default of {@code model.updater.momentum}. */
    public static final double DEFAULT_MOMENTUM = 0.9;

    /**
     * Checks every component; the first bad one is reported by its key.
     *
     * @param type         the optimiser
     * @param learningRate the step size, finite and {@code > 0}
     * @param momentum     the Nesterov momentum, in {@code [0, 1)}
     * @throws ConfigException if a component is missing or out of range
     */
    public UpdaterConfig {
        // Checked here rather than in the loader so that records built in code are held to the same rules.
        Checks.required("model.updater.type", type);
        Checks.positive("model.updater.learningRate", learningRate);
        Checks.inUnitInterval("model.updater.momentum", momentum);
    }

    /** @return the updater section with every key at its default */
    public static UpdaterConfig defaults() {
        return new UpdaterConfig(DEFAULT_TYPE, DEFAULT_LEARNING_RATE, DEFAULT_MOMENTUM);
    }

    @JsonCreator
    private static UpdaterConfig fromYaml(@JsonProperty("type") UpdaterType type,
                                          @JsonProperty("learningRate") Double learningRate,
                                          @JsonProperty("momentum") Double momentum) {
        return new UpdaterConfig(
                Checks.orDefault(type, DEFAULT_TYPE),
                Checks.orDefault(learningRate, DEFAULT_LEARNING_RATE),
                Checks.orDefault(momentum, DEFAULT_MOMENTUM));
    }
}

package io.lgc4j.experiments.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * The {@code model} section: which network from the zoo, and its optimiser.
 *
 * <pre>{@code
 * model:
 *   name: small-cnn        # small-cnn | small-resnet | tiny-cnn
 *   updater:               # see UpdaterConfig
 *     type: nesterovs
 * }</pre>
 *
 * <pre>{@code
 * ModelConfig resnet = new ModelConfig(ModelArchitecture.SMALL_RESNET, UpdaterConfig.defaults());
 * }</pre>
 *
 * @param name    the architecture
 * @param updater the optimiser
 */
@JsonPropertyOrder({"name", "updater"})
public record ModelConfig(ModelArchitecture name, UpdaterConfig updater) {

    /** Default of {@code model.name}. */
    public static final ModelArchitecture DEFAULT_NAME = ModelArchitecture.SMALL_CNN;

    /**
     * Checks every component; the first bad one is reported by its key.
     *
     * @param name    the architecture
     * @param updater the optimiser
     * @throws ConfigException if a component is missing or out of range
     */
    public ModelConfig {
        // Checked here rather than in the loader so that records built in code are held to the same rules.
        Checks.required("model.name", name);
        Checks.required("model.updater", updater);
    }

    /** @return the model section with every key at its default */
    public static ModelConfig defaults() {
        return new ModelConfig(DEFAULT_NAME, UpdaterConfig.defaults());
    }

    @JsonCreator
    private static ModelConfig fromYaml(@JsonProperty("name") ModelArchitecture name,
                                        @JsonProperty("updater") UpdaterConfig updater) {
        return new ModelConfig(
                Checks.orDefault(name, DEFAULT_NAME),
                updater == null ? UpdaterConfig.defaults() : updater);
    }
}

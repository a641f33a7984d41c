package io.lgc4j.runner.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.lgc4j.zoo.ModelSpec;

/**
 * The {@code model} section: which network from the zoo, its optimiser, and how its replicas compute.
 *
 * <pre>{@code
 * model:
 *   name: small-cnn        # small-cnn | small-resnet | tiny-cnn
 *   updater:               # see UpdaterConfig
 *     type: nesterovs
 *   compute:               # see ComputeConfig
 *     oneDnn: true
 * }</pre>
 * <pre>{@code
 * ModelConfig resnet = new ModelConfig(ModelSpec.SMALL_RESNET, UpdaterConfig.defaults());
 * }</pre>
 *
 * @param name    the architecture (the zoo builds it)
 * @param updater the optimiser
 * @param compute how the replicas compute (oneDNN helpers, cache mode)
 */
@JsonPropertyOrder({"name", "updater", "compute"})
public record ModelConfig(ModelSpec name, UpdaterConfig updater, ComputeConfig compute) {

    /** Default of {@code model.name}. */
    public static final ModelSpec DEFAULT_NAME = ModelSpec.SMALL_CNN;

    /**
     * Checks every component; the first bad one is reported by its key.
     *
     * @param name    the architecture (the zoo builds it)
     * @param updater the optimiser
     * @param compute how the replicas compute
     * @throws ConfigException if a component is missing or out of range
     */
    public ModelConfig {
        // Checked here rather than in the loader so that records built in code are held to the same rules.
        Checks.required("model.name", name);
        Checks.required("model.updater", updater);
        Checks.required("model.compute", compute);
    }

    /**
     * A model section with the default {@code compute} (the fast path).
     *
     * @param name    the architecture (the zoo builds it)
     * @param updater the optimiser
     */
    public ModelConfig(ModelSpec name, UpdaterConfig updater) {
        this(name, updater, ComputeConfig.defaults());
    }

    /** @return the model section with every key at its default */
    public static ModelConfig defaults() {
        return new ModelConfig(DEFAULT_NAME, UpdaterConfig.defaults());
    }

    /**
     * @param newCompute how the replicas compute
     * @return this section with {@code compute} replaced
     */
    public ModelConfig withCompute(ComputeConfig newCompute) {
        return new ModelConfig(name, updater, newCompute);
    }

    @JsonCreator
    private static ModelConfig fromYaml(@JsonProperty("name") ModelSpec name,
                                        @JsonProperty("updater") UpdaterConfig updater,
                                        @JsonProperty("compute") ComputeConfig compute) {
        return new ModelConfig(
                Checks.orDefault(name, DEFAULT_NAME),
                updater == null ? UpdaterConfig.defaults() : updater,
                compute == null ? ComputeConfig.defaults() : compute);
    }
}

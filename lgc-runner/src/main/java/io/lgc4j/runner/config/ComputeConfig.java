package io.lgc4j.runner.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.lgc4j.core.compute.ComputeSettings;
import org.deeplearning4j.nn.conf.CacheMode;

/**
 * The {@code model.compute} section: how every replica computes its forward and backward pass
 * ({@link ComputeSettings}).
 *
 * <pre>{@code
 * model:
 *   compute:
 *     oneDnn: true       # DL4J's oneDNN helpers on conv, pooling and batch-norm layers; false: DL4J's own path
 *     cacheMode: host    # host (keep the forward pass's im2col for the backward pass) | none (recompute it)
 * }</pre>
 *
 * <p>Both change how fast a step is, not what it computes beyond float rounding (oneDNN sums in another order; the
 * cache mode changes no bit). Runs before the fast path was on by default ran {@code oneDnn: false, cacheMode: none}.
 *
 * @param oneDnn    whether the replicas' layers get DL4J's oneDNN helpers
 * @param cacheMode what a layer keeps from its forward pass for its backward pass
 */
@JsonPropertyOrder({"oneDnn", "cacheMode"})
public record ComputeConfig(boolean oneDnn, CacheMode cacheMode) {

    /**
     * Checks every component.
     *
     * @param oneDnn    whether the replicas' layers get DL4J's oneDNN helpers
     * @param cacheMode what a layer keeps from its forward pass for its backward pass
     * @throws ConfigException if {@code cacheMode} is missing
     */
    public ComputeConfig {
        Checks.required("model.compute.cacheMode", cacheMode);
    }

    /** @return the section at its defaults, {@link ComputeSettings#DEFAULT} */
    public static ComputeConfig defaults() {
        return of(ComputeSettings.DEFAULT);
    }

    /**
     * @param settings the library's settings
     * @return the same as a config section
     */
    public static ComputeConfig of(ComputeSettings settings) {
        return new ComputeConfig(settings.oneDnn(), settings.cacheMode());
    }

    /** @return the library's settings */
    public ComputeSettings settings() {
        return new ComputeSettings(oneDnn, cacheMode);
    }

    @JsonCreator
    private static ComputeConfig fromYaml(@JsonProperty("oneDnn") Boolean oneDnn,
                                          @JsonProperty("cacheMode") CacheMode cacheMode) {
        return new ComputeConfig(Checks.orDefault(oneDnn, ComputeSettings.DEFAULT.oneDnn()),
                Checks.orDefault(cacheMode, ComputeSettings.DEFAULT.cacheMode()));
    }
}

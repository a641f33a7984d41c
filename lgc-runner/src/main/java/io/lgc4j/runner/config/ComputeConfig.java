package io.lgc4j.runner.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.lgc4j.core.compute.ComputeSettings;
import io.lgc4j.core.compute.ComputeThreads;
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
 *     threads: 1         # ND4J's OpenMP threads per process: a count, or auto (the cores the process really has)
 * }</pre>
 * <p>{@code oneDnn} and {@code cacheMode} change speed, not results beyond float rounding. {@code threads}
 * ({@link ComputeThreads}) is resolved per process before ND4J loads and changes bits, so it is part of the run's
 * identity.
 *
 * @param oneDnn    whether the replicas' layers get DL4J's oneDNN helpers
 * @param cacheMode what a layer keeps from its forward pass for its backward pass
 * @param threads   {@code auto} or a count of OpenMP threads per process
 */
@JsonPropertyOrder({"oneDnn", "cacheMode", "threads"})
public record ComputeConfig(boolean oneDnn, CacheMode cacheMode, @JsonIgnore String threads) {

    /** The threads a process computes with unless the config says otherwise: one, as every launcher ran before. */
    public static final String DEFAULT_THREADS = "1";

    /**
     * Checks every component.
     *
     * @param oneDnn    whether the replicas' layers get DL4J's oneDNN helpers
     * @param cacheMode what a layer keeps from its forward pass for its backward pass
     * @throws ConfigException if {@code cacheMode} is missing
     */
    public ComputeConfig {
        Checks.required("model.compute.cacheMode", cacheMode);
        threads = threads == null ? DEFAULT_THREADS : threads;
        String problem = ComputeThreads.problem(threads);
        if (problem != null) {
            throw ConfigException.forKey("model.compute.threads", problem);
        }
        threads = ComputeThreads.parse("model.compute.threads", threads);
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
        return new ComputeConfig(settings.oneDnn(), settings.cacheMode(), DEFAULT_THREADS);
    }

    /** {@code threads} as the YAML spells it: a count unquoted, or {@code auto}. */
    @JsonProperty("threads")
    Object threadsAsWritten() {
        return threads.equals(ComputeThreads.AUTO) ? threads : Integer.valueOf(threads);
    }

    /** @return the library's settings */
    public ComputeSettings settings() {
        return new ComputeSettings(oneDnn, cacheMode);
    }

    @JsonCreator
    private static ComputeConfig fromYaml(@JsonProperty("oneDnn") Boolean oneDnn,
                                          @JsonProperty("cacheMode") CacheMode cacheMode,
                                          @JsonProperty("threads") Object threads) {
        return new ComputeConfig(Checks.orDefault(oneDnn, ComputeSettings.DEFAULT.oneDnn()),
                Checks.orDefault(cacheMode, ComputeSettings.DEFAULT.cacheMode()),
                threads == null ? DEFAULT_THREADS : String.valueOf(threads));
    }
}

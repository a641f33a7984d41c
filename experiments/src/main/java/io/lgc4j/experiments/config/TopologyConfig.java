package io.lgc4j.experiments.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The {@code topology} section: how gradients travel between the workers.
 *
 * <pre>{@code
 * topology:
 *   type: ring   # ring | ps
 * }</pre>
 *
 * <pre>{@code
 * TopologyConfig ps = new TopologyConfig(TopologyType.PS);
 * }</pre>
 *
 * @param type ring allreduce or parameter server
 */
public record TopologyConfig(TopologyType type) {

    /** Default of {@code topology.type}. */
    public static final TopologyType DEFAULT_TYPE = TopologyType.RING;

    /**
     * Checks every component; the first bad one is reported by its key.
     *
     * @param type ring allreduce or parameter server
     * @throws ConfigException if a component is missing or out of range
     */
    public TopologyConfig {
        // Checked here rather than in the loader so that records built in code are held to the same rules.
        Checks.required("topology.type", type);
    }

    /** @return the topology section with every key at its default */
    public static TopologyConfig defaults() {
        return new TopologyConfig(DEFAULT_TYPE);
    }

    @JsonCreator
    private static TopologyConfig fromYaml(@JsonProperty("type") TopologyType type) {
        return new TopologyConfig(Checks.orDefault(type, DEFAULT_TYPE));
    }
}

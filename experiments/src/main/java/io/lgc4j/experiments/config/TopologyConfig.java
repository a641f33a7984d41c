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

    /** Checks every component; throws {@link ConfigException} naming the key. */
    public TopologyConfig {
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

package io.lgc4j.experiments.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * The {@code topology} section: how gradients travel between the workers.
 *
 * <pre>{@code
 * topology:
 *   type: ring        # ring | ps
 *   support: leader   # lgc on ps: leader (the leader's top-k, relayed) | own (each rank its own, paper-literal)
 *                     # own is accepted only with type ps and compressor.type lgc; leader is ignored elsewhere
 * }</pre>
 *
 * <pre>{@code
 * TopologyConfig ps = new TopologyConfig(TopologyType.PS);
 * }</pre>
 *
 * @param type    ring allreduce or parameter server
 * @param support how LGC on the parameter server picks the support
 */
@JsonPropertyOrder({"type", "support"})
public record TopologyConfig(TopologyType type, SupportPolicyType support) {

    /** Default of {@code topology.type}. */
    public static final TopologyType DEFAULT_TYPE = TopologyType.RING;
    /** Default of {@code topology.support}. */
    public static final SupportPolicyType DEFAULT_SUPPORT = SupportPolicyType.LEADER;

    /**
     * Checks every component; the first bad one is reported by its key.
     *
     * @param type    ring allreduce or parameter server
     * @param support how LGC on the parameter server picks the support
     * @throws ConfigException if a component is missing or out of range
     */
    public TopologyConfig {
        // Checked here rather than in the loader so that records built in code are held to the same rules.
        Checks.required("topology.type", type);
        Checks.required("topology.support", support);
    }

    /**
     * A topology section with the default support policy.
     *
     * @param type ring allreduce or parameter server
     */
    public TopologyConfig(TopologyType type) {
        this(type, DEFAULT_SUPPORT);
    }

    /** @return the topology section with every key at its default */
    public static TopologyConfig defaults() {
        return new TopologyConfig(DEFAULT_TYPE, DEFAULT_SUPPORT);
    }

    @JsonCreator
    private static TopologyConfig fromYaml(@JsonProperty("type") TopologyType type,
                                           @JsonProperty("support") SupportPolicyType support) {
        return new TopologyConfig(Checks.orDefault(type, DEFAULT_TYPE), Checks.orDefault(support, DEFAULT_SUPPORT));
    }
}

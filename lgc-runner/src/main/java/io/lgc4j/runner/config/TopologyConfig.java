package io.lgc4j.runner.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.lgc4j.core.shard.FusionPlan;
import io.lgc4j.lgc.ps.LgcPsTopology.SupportPolicy;

/**
 * The {@code topology} section: how gradients travel between the workers.
 *
 * <pre>{@code
 * topology:
 *   type: ring                   # ring | ps
 *   support: leader              # lgc on ps: leader (the leader's top-k, relayed) | own (each rank its own,
 *                                # paper-literal); own is accepted only with type ps and compressor.type lgc
 *   servers: 1                   # ps: S server shards, each an even share of every fusion buffer (seeds/002)
 *   fusionBufferBytes: 1048576   # ps: a fusion buffer's bytes, a positive multiple of 4
 *   shardBy: buffers             # ps: buffers (Herring's) | blocks (every block split evenly) | layers (each layer
 *                                # whole on one shard, the contrast)
 * }</pre>
 *
 * <pre>{@code
 * TopologyConfig ps = new TopologyConfig(TopologyType.PS);
 * }</pre>
 *
 * @param type              ring allreduce or parameter server
 * @param support           how LGC on the parameter server picks the support
 * @param servers           the parameter server's shards, 1..1024 (1 with a ring)
 * @param fusionBufferBytes the fusion buffers the shards split, in bytes: a positive multiple of 4
 * @param shardBy           how the shards share the gradient
 */
@JsonPropertyOrder({"type", "support", "servers", "fusionBufferBytes", "shardBy"})
public record TopologyConfig(TopologyType type, SupportPolicy support, int servers, int fusionBufferBytes,
                             FusionPlan.Placement shardBy) {

    /** Default of {@code topology.type}. */
    public static final TopologyType DEFAULT_TYPE = TopologyType.RING;
    /** Default of {@code topology.support}. */
    public static final SupportPolicy DEFAULT_SUPPORT = SupportPolicy.LEADER;
    /** Default of {@code topology.servers}. */
    public static final int DEFAULT_SERVERS = 1;
    /** Most server shards. */
    public static final int MAX_SERVERS = FusionPlan.MAX_SHARDS;
    /** Default of {@code topology.fusionBufferBytes}: 1 MiB. */
    public static final int DEFAULT_FUSION_BUFFER_BYTES = FusionPlan.DEFAULT_BUFFER_BYTES;
    /** Default of {@code topology.shardBy}. */
    public static final FusionPlan.Placement DEFAULT_SHARD_BY = FusionPlan.Placement.BUFFERS;

    /**
     * Checks every component; the first bad one is reported by its key.
     *
     * @throws ConfigException if a component is missing or out of range
     */
    public TopologyConfig {
        // Checked here rather than in the loader so that records built in code are held to the same rules.
        Checks.required("topology.type", type);
        Checks.required("topology.support", support);
        Checks.required("topology.shardBy", shardBy);
        Checks.atLeast("topology.servers", servers, 1);
        Checks.atMost("topology.servers", servers, MAX_SERVERS);
        Checks.positive("topology.fusionBufferBytes", fusionBufferBytes);
        if (fusionBufferBytes % Float.BYTES != 0) {
            throw ConfigException.forKey("topology.fusionBufferBytes", "must be a multiple of " + Float.BYTES
                    + " (float32 elements), found " + fusionBufferBytes);
        }
    }

    /**
     * A topology section with the default support policy and one server.
     *
     * @param type ring allreduce or parameter server
     */
    public TopologyConfig(TopologyType type) {
        this(type, DEFAULT_SUPPORT);
    }

    /**
     * A topology section with one server.
     *
     * @param type    ring allreduce or parameter server
     * @param support how LGC on the parameter server picks the support
     */
    public TopologyConfig(TopologyType type, SupportPolicy support) {
        this(type, support, DEFAULT_SERVERS, DEFAULT_FUSION_BUFFER_BYTES, DEFAULT_SHARD_BY);
    }

    /** @return the topology section with every key at its default */
    public static TopologyConfig defaults() {
        return new TopologyConfig(DEFAULT_TYPE, DEFAULT_SUPPORT);
    }

    /** The same section with {@code count} server shards. */
    public TopologyConfig withServers(int count) {
        return new TopologyConfig(type, support, count, fusionBufferBytes, shardBy);
    }

    @JsonCreator
    private static TopologyConfig fromYaml(@JsonProperty("type") TopologyType type,
                                           @JsonProperty("support") SupportPolicy support,
                                           @JsonProperty("servers") Integer servers,
                                           @JsonProperty("fusionBufferBytes") Integer fusionBufferBytes,
                                           @JsonProperty("shardBy") FusionPlan.Placement shardBy) {
        return new TopologyConfig(Checks.orDefault(type, DEFAULT_TYPE), Checks.orDefault(support, DEFAULT_SUPPORT),
                Checks.orDefault(servers, DEFAULT_SERVERS),
                Checks.orDefault(fusionBufferBytes, DEFAULT_FUSION_BUFFER_BYTES),
                Checks.orDefault(shardBy, DEFAULT_SHARD_BY));
    }
}

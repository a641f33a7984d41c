package io.lgc4j.ps.topology;

import io.lgc4j.core.settings.Section;
import io.lgc4j.core.settings.SettingsException;
import io.lgc4j.core.shard.FusionPlan;

/**
 * How the parameter server is sharded ({@code topology.servers}, {@code topology.fusionBufferBytes}; seeds/002):
 * S server shards, each serving an even share of every fusion buffer of {@code fusionBufferBytes} bytes.
 *
 * <pre>{@code
 * topology:
 *   type: ps
 *   servers: 4                   # S server shards (default 1: one server)
 *   fusionBufferBytes: 1048576   # a fusion buffer, split evenly over the shards (default 1 MiB)
 *   shardBy: buffers             # buffers (Herring) | blocks (every block split evenly) | layers (each layer whole
 *                                # on one shard: the contrast)
 * }</pre>
 *
 * @param servers           S, from 1 to 1024
 * @param fusionBufferBytes a positive multiple of 4 (one float32 element)
 * @param shardBy           how elements are placed on the shards
 */
public record Shards(int servers, int fusionBufferBytes, FusionPlan.Placement shardBy) {
    /** Default of {@code topology.servers}. */
    public static final int DEFAULT_SERVERS = 1;
    /** Most shards a server may have. */
    public static final int MAX_SERVERS = FusionPlan.MAX_SHARDS;

    /** Checks each, naming the one that is wrong. */
    public Shards {
        SettingsException.required(shardBy, "shardBy");
        SettingsException.require(servers >= 1 && servers <= MAX_SERVERS, "servers",
                "must be between 1 and " + MAX_SERVERS + ", found " + servers);
        SettingsException.require(fusionBufferBytes >= FusionPlan.ELEMENT_BYTES
                        && fusionBufferBytes % FusionPlan.ELEMENT_BYTES == 0, "fusionBufferBytes",
                "must be a positive multiple of " + FusionPlan.ELEMENT_BYTES + " (float32 elements), found "
                        + fusionBufferBytes);
    }

    /** The plan of {@code layout} these settings make. */
    public FusionPlan plan(io.lgc4j.core.layout.GradientLayout layout) {
        return switch (shardBy) {
            case LAYERS -> FusionPlan.byLayer(layout, servers);
            case BLOCKS -> FusionPlan.byBlock(layout, servers);
            case BUFFERS -> FusionPlan.of(layout, servers, fusionBufferBytes);
        };
    }

    /** One server. */
    public static Shards single() {
        return new Shards(DEFAULT_SERVERS, FusionPlan.DEFAULT_BUFFER_BYTES, FusionPlan.Placement.BUFFERS);
    }

    /** From the {@code topology} section; an absent key takes its default; a bad value is named under the section. */
    public static Shards of(Section topology) {
        try {
            return new Shards(topology.has("servers") ? topology.integer("servers") : DEFAULT_SERVERS,
                    topology.has("fusionBufferBytes") ? topology.integer("fusionBufferBytes")
                            : FusionPlan.DEFAULT_BUFFER_BYTES,
                    topology.has("shardBy") ? topology.choice("shardBy", FusionPlan.Placement.class)
                            : FusionPlan.Placement.BUFFERS);
        } catch (SettingsException e) {
            throw e.under(topology.path());
        }
    }
}

package io.lgc4j.ps.topology;

import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.settings.Require;
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
    /** One server, 1 MiB buffers placed by Herring's rule: every key at its default. */
    public static final Shards DEFAULT = new Shards(DEFAULT_SERVERS, FusionPlan.DEFAULT_BUFFER_BYTES,
            FusionPlan.Placement.BUFFERS);

    /** Checks each, naming the first that is wrong. */
    public Shards {
        Require.required("shardBy", shardBy);
        Require.atLeast("servers", servers, 1);
        Require.atMost("servers", servers, MAX_SERVERS);
        Require.positive("fusionBufferBytes", fusionBufferBytes);
        SettingsException.require(fusionBufferBytes % FusionPlan.ELEMENT_BYTES == 0, "fusionBufferBytes",
                "must be a multiple of " + FusionPlan.ELEMENT_BYTES + " (float32 elements), found "
                        + fusionBufferBytes);
    }

    /** The plan of {@code layout} these settings make. */
    public FusionPlan plan(GradientLayout layout) {
        return switch (shardBy) {
            case LAYERS -> FusionPlan.byLayer(layout, servers);
            case BLOCKS -> FusionPlan.byBlock(layout, servers);
            case BUFFERS -> FusionPlan.of(layout, servers, fusionBufferBytes);
        };
    }

    /** One server: {@link #DEFAULT}. */
    public static Shards single() {
        return DEFAULT;
    }

    /** From the {@code topology} section; an absent key takes its default; a bad value is named under the section. */
    public static Shards of(Section topology) {
        return topology.bind(Shards.class, DEFAULT);
    }
}

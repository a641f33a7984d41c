package io.lgc4j.runner.config;

/**
 * How the parameter server's shards share the gradient ({@code topology.shardBy}; seeds/002): {@code buffers},
 * Herring's balanced fusion buffers (every buffer split evenly over the shards), {@code blocks}, every parameter block
 * split evenly (so compressed steps' small DENSE blocks and sparse entries spread too), or {@code layers}, each layer
 * whole on one shard (the classic placement, kept as the contrast Herring argues against).
 */
public enum ShardPlacementType {
    /** Every fusion buffer split evenly over the shards. */
    BUFFERS,
    /** Every layer whole on one shard, round-robin. */
    LAYERS,
    /** Every parameter block split evenly over the shards (balances compressed steps too). */
    BLOCKS;

    @Override
    public String toString() {
        return ConfigEnums.yamlName(this);
    }
}

/**
 * The parameter server's shards (seeds/002, Herring): {@link io.lgc4j.core.shard.FusionPlan} splits every fusion
 * buffer of the flattened gradient evenly over S shards, {@link io.lgc4j.core.shard.ShardView} is one shard's pieces
 * of a set of blocks, with the split and merge of supports and sparse sets.
 */
package io.lgc4j.core.shard;

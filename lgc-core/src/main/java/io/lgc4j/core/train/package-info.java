/**
 * The library API: {@link io.lgc4j.core.train.DistributedTrainer} trains any DL4J model on K ranks through a
 * {@link io.lgc4j.core.train.Topology}; {@link io.lgc4j.core.train.ReplicaModel} splits gradient computation from
 * update application.
 */
package io.lgc4j.core.train;

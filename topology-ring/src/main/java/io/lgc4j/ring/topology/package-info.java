/**
 * The ring-allreduce {@link io.lgc4j.core.train.Topology}, and local SGD
 * ({@link io.lgc4j.ring.topology.LocalSgdTopology}): the ring's allreduce averaging the models every few local steps
 * instead of the gradients every step.
 */
package io.lgc4j.ring.topology;

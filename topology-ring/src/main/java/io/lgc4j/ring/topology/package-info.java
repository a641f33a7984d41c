/** The ring-allreduce {@link io.lgc4j.core.train.Topology}. */
package io.lgc4j.ring.topology;

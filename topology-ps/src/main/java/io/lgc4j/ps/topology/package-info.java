/** The parameter-server {@link io.lgc4j.core.train.Topology}. */
package io.lgc4j.ps.topology;

package io.lgc4j.spark;

import io.lgc4j.core.train.Topology;

import java.io.Serializable;

/**
 * Builds the topology (and with it the compressor) of an {@link LgcEstimator}'s run: called once on the driver (to
 * learn how many service endpoints it has) and once per endpoint in every barrier task, since a topology holds one
 * run's state. It travels inside the task, so it must be serializable.
 *
 * <pre>{@code
 * estimator.setTopologyFactory(() -> new RingTopology(new TopKCompressor(0.01)));
 * estimator.setTopologyFactory(() -> new ParameterServerTopology(new DgcCompressor(...)));
 * }</pre>
 *
 * The other way to name the method is a YAML snippet of lgc-runner's sections ({@link LgcEstimator#setMethod}).
 */
@FunctionalInterface
public interface TopologyFactory extends Serializable {

    /** A new topology for one endpoint of one run. */
    Topology create();
}

package io.lgc4j.ring.topology;

import io.lgc4j.core.train.Topology;
import io.lgc4j.core.train.TopologyContract;

/** The ring runs the topology contract. */
class RingTopologyTest extends TopologyContract {
    @Override
    protected Topology topology() {
        return new RingTopology();
    }
}

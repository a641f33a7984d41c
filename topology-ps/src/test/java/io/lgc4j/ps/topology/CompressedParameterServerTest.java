package io.lgc4j.ps.topology;

import io.lgc4j.core.compress.Compressor;
import io.lgc4j.core.train.CompressedTopologyContract;
import io.lgc4j.core.train.Topology;

/** The parameter server runs the compressed-topology contract. */
class CompressedParameterServerTest extends CompressedTopologyContract {
    @Override
    protected Topology topology(Compressor compressor) {
        return new ParameterServerTopology(compressor);
    }

    @Override
    protected Topology denseTopology() {
        return new ParameterServerTopology();
    }
}

package io.lgc4j.ps.topology;

import io.lgc4j.core.compress.TopKCompressor;
import io.lgc4j.core.train.Topology;
import io.lgc4j.core.train.WarmupContract;
import io.lgc4j.core.warmup.Warmup;

/** The parameter server (Sparse GD at 5% after the FULL stage) runs the compressed warm-up's contract. */
class ParameterServerWarmupTest extends WarmupContract {
    @Override
    protected Topology topology(Warmup warmup) {
        return new ParameterServerTopology(new TopKCompressor(0.05)).withWarmup(warmup, null);
    }
}

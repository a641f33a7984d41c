package io.lgc4j.ring.topology;

import io.lgc4j.core.compress.ScaleComCompressor;
import io.lgc4j.core.train.Topology;
import io.lgc4j.core.train.WarmupContract;
import io.lgc4j.core.warmup.Warmup;

/** The ring (ScaleCom at 5%, β = 0.1, after the FULL stage) runs the compressed warm-up's contract. */
class RingWarmupTest extends WarmupContract {
    @Override
    protected Topology topology(Warmup warmup) {
        return new RingTopology(new ScaleComCompressor(0.05, 0.1)).withWarmup(warmup, null);
    }
}

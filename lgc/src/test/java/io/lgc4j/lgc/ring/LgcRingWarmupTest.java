package io.lgc4j.lgc.ring;

import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.core.train.Topology;
import io.lgc4j.core.train.WarmupContract;
import io.lgc4j.core.warmup.Warmup;
import io.lgc4j.lgc.autoencoder.AeTraining;

/**
 * LGC-RAR runs the compressed warm-up's contract: its FULL steps through the generic compressed ring, then TOP_K
 * (rank 0 training the small autoencoder) from step 8, the warm-up's residual in its support memory.
 */
class LgcRingWarmupTest extends WarmupContract {
    @Override
    protected Topology topology(Warmup warmup) {
        return new LgcRingTopology(0.05, IndexCodecs.defaultCodec(), LgcRingTopologyContractTest.SMALL,
                AeTraining.DEFAULT, 42, LgcRingTopologyContractTest.LENIENT).withWarmup(warmup);
    }

    @Override
    protected boolean ownsWarmupExchange() {
        return false;
    }

    @Override
    protected StageSchedule stages() {
        return new StageSchedule(FULL_STEPS, 8);
    }
}

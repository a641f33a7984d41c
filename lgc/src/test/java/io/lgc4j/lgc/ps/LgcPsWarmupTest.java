package io.lgc4j.lgc.ps;

import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.core.train.Topology;
import io.lgc4j.core.train.WarmupContract;
import io.lgc4j.core.warmup.Warmup;
import io.lgc4j.lgc.ps.LgcPsTopology.SupportPolicy;

/**
 * LGC-PS runs the compressed warm-up's contract: its FULL steps through the generic compressed worker and server,
 * then TOP_K (the small autoencoder training) from step 8, the warm-up's residual in its support memory.
 */
class LgcPsWarmupTest extends WarmupContract {
    @Override
    protected Topology topology(Warmup warmup) {
        return LgcPsTopology.builder().ratio(LgcPsTopologyContractTest.RATIO).spec(LgcPsTopologyContractTest.SMALL)
                .support(SupportPolicy.LEADER).seed(LgcPsTopologyContractTest.SEED)
                .control(LgcPsTopologyContractTest.LENIENT).warmup(warmup).build();
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

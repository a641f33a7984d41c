package io.lgc4j.ring.topology;

import io.lgc4j.core.train.DryRun;
import io.lgc4j.core.comm.Direction;
import io.lgc4j.core.comm.StepTag;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.train.Topology;
import io.lgc4j.core.train.TopologyContract;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The ring runs the topology contract, and a dry run counts its dense step as the formula says. */
class RingTopologyTest extends TopologyContract {
    @Override
    protected Topology topology() {
        return new RingTopology();
    }

    /** A reduce-scatter and an all-gather: 2(K − 1) chunk frames of n/K floats per rank, 2(K − 1) legs in a row. */
    @ParameterizedTest(name = "K={0}")
    @ValueSource(ints = {2, 3, 4})
    void dryRunShouldCountTwoKMinusOneChunksAndLegsPerRank(int k) throws Exception {
        int n = 1200;
        GradientLayout layout = meanLayout(n);
        try (DryRun run = new DryRun(topology(), k, layout)) {
            run.step(new StepTag(0, Stage.FULL), gaussianInputs(k, n));
            DryRun.Cost cost = run.lastCost();
            assertEquals(2 * (k - 1), cost.legs());
            for (int r = 0; r < k; r++) {
                assertEquals(2L * (k - 1) * (n / k) * 4,
                        cost.bytes().bytes(r, Direction.SENT, Stage.FULL, TrafficKind.VALUES), "rank " + r);
                assertEquals(2L * (k - 1), cost.bytes().frames(r, Direction.SENT), "rank " + r);
            }
        }
    }
}

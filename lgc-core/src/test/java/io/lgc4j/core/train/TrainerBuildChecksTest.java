package io.lgc4j.core.train;

import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.stage.StageSchedule;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What {@link DistributedTrainer.Builder#build()} rejects before anything runs: too little data for one global
 * batch, and what a topology's {@link Topology#check} refuses (the LGC checks of {@link TopologyChecks}).
 */
class TrainerBuildChecksTest {

    /** Records what build() handed to check(), and applies the LGC checks, as the LGC topologies do. */
    private static final class LgcLike implements Topology {
        final List<StageSchedule> seen = new ArrayList<>();
        final List<GradientLayout> layouts = new ArrayList<>();

        @Override
        public String name() {
            return "lgc-like";
        }

        @Override
        public java.util.Optional<io.lgc4j.core.compress.Compressor> compressor() {
            return java.util.Optional.of(new io.lgc4j.core.compress.TopKCompressor(0.1));
        }

        @Override
        public void check(GradientLayout layout, StageSchedule stages, boolean stagesGiven) {
            layouts.add(layout);
            seen.add(stages);
            TopologyChecks.requireLearnedBlock(layout);
            TopologyChecks.requireCompressedStage(stages, stagesGiven);
        }

        @Override
        public GradientExchange worker(int rank, int workers, Transport transport, GradientLayout layout) {
            return (tag, gradient, clock) -> { };
        }
    }

    private static DistributedTrainer.Builder builder(Topology topology) {
        return DistributedTrainer.builder().model(TestModels.mlp(1)).data(TestModels.data(64, 1)).workers(2)
                .batchSizePerWorker(8).topology(topology);
    }

    @Test
    void shardPlanShouldNameTheGlobalBatchAndHowItIsComputed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ShardPlan(100, 4, 32, 1));
        assertEquals("100 examples are fewer than one global batch: workers × batchSize = 4 × 32 = 128 (every rank"
                + " reads one batch per step)", e.getMessage());
    }

    @Test
    void shouldNameABadRuntimeSetting() {
        assertEquals("computeConcurrency must be >= 1, found 0", assertThrows(IllegalArgumentException.class,
                () -> TrainingRuntime.inProcess().computeConcurrency(0)).getMessage());
        assertEquals("runtime", assertThrows(NullPointerException.class,
                () -> DistributedTrainer.builder().runtime(null)).getMessage());
        assertEquals("connector", assertThrows(NullPointerException.class,
                () -> TrainingRuntime.cluster(null)).getMessage());
        assertEquals("in-process", DistributedTrainer.builder().model(TestModels.mlp(1)).data(TestModels.data(64, 1))
                .workers(2).batchSizePerWorker(8).topology(TestModels.ownGradient()).build().runtime().name());
    }

    @Test
    void shouldHandTheLayoutAndTheScheduleInForceToTheTopology() {
        LgcLike topology = new LgcLike();
        builder(topology).stages(new StageSchedule(2, 3)).build();
        assertEquals(List.of(new StageSchedule(2, 3)), topology.seen);
        assertEquals(GradientLayout.of(TestModels.mlp(1)).blocks(), topology.layouts.get(0).blocks());
    }

    @Test
    void shouldRejectAnLgcTopologyWithoutStagesNamingTheFix() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> builder(new LgcLike()).build());
        assertEquals("an LGC topology needs .stages(new StageSchedule(full, aeTraining)) — without it training never"
                + " leaves TOP_K (the default when .stages is not called: StageSchedule[fullIterations=0,"
                + " topKIterations=2147483647]); a schedule that stays in FULL or TOP_K on purpose (a control run)"
                + " must be given with .stages too", e.getMessage());
    }

    @Test
    void shouldAcceptAnExplicitScheduleThatStaysInFullOrTopKAsAControl() {
        LgcLike topology = new LgcLike();
        builder(topology).stages(StageSchedule.denseWarmup(5)).build();
        builder(topology).stages(StageSchedule.ALWAYS_FULL).build();
        assertEquals(List.of(StageSchedule.denseWarmup(5), StageSchedule.ALWAYS_FULL), topology.seen);
    }

    @Test
    void shouldRejectAnLgcTopologyOnAModelWithoutALearnedBlockListingItsBlocks() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> builder(new LgcLike()).stages(new StageSchedule(2, 3))
                        .layerPolicy(b -> b.policy() == LayerPolicy.LEARNED ? LayerPolicy.TOP_K : b.policy())
                        .build());
        assertEquals("LGC needs at least one LEARNED block (a layer between the first and the last, or one a"
                + " layerPolicy marks LEARNED); this model has 6 blocks: layer0/W (DENSE), layer0/b (DENSE),"
                + " layer1/W (TOP_K), layer1/b (TOP_K), layer2/W (TOP_K), layer2/b (TOP_K)", e.getMessage());
    }

    @Test
    void shouldListAtMostTwelveBlocks() {
        List<io.lgc4j.core.layout.ParamBlock> blocks = new ArrayList<>();
        for (int i = 0; i < 14; i++) {
            blocks.add(new io.lgc4j.core.layout.ParamBlock(i, i, "l" + i, "W", i, 1, new long[] {1},
                    LayerPolicy.DENSE));
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TopologyChecks.requireLearnedBlock(GradientLayout.ofBlocks(blocks)));
        assertTrue(e.getMessage().endsWith("l11/W (DENSE), ... (2 more)"), e.getMessage());
        assertTrue(e.getMessage().contains("this model has 14 blocks: l0/W (DENSE), "), e.getMessage());
    }

    @Test
    void aTopologyWithoutChecksShouldBuildWithTheDefaultSchedule() {
        Topology plain = TestModels.ownGradient();
        assertDoesNotThrow(() -> builder(plain).build());
    }
}

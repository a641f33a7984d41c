package io.lgc4j.lgc.ps;

import io.lgc4j.lgc.LgcControl;
import io.lgc4j.core.checkpoint.Checkpoint;
import io.lgc4j.core.checkpoint.CheckpointDirectory;
import io.lgc4j.core.comm.Direction;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.metrics.StepMetrics;
import io.lgc4j.core.shard.FusionPlan;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.train.DistributedTrainer;
import io.lgc4j.core.train.TestModels;
import io.lgc4j.core.train.TrainingResult;
import io.lgc4j.lgc.ps.LgcPsTopology.SupportPolicy;
import io.lgc4j.ps.topology.Shards;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.nd4j.linalg.learning.config.Sgd;

import java.nio.file.Path;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * LGC-PS on a sharded server: shard 0 serves the compressible blocks whole (support, values, code, innovation, the
 * autoencoder, the guard, the flags), every shard its slices of the dense gradient and its pieces of the DENSE blocks.
 * Through FULL, TOP_K and COMPRESSED, and through a drift guard that trips, the run is the one-server run bit for bit:
 * replicas, every step's loss and every note (the autoencoder's losses, the drift, the fallbacks).
 */
class ShardedLgcPsTest {
    private static final int K = 3;
    private static final int STEPS = 24;
    /** A guard that trips at its first check and recovers at once after one fallback step, checking often. */
    private static final LgcControl FLAPPING = new LgcControl(0.05, 1, 2, 4, true, true, 0.1);

    private static LgcPsTopology lgc(SupportPolicy policy, LgcControl control, Shards shards) {
        return LgcPsTopology.builder().ratio(LgcPsTopologyContractTest.RATIO).spec(LgcPsTopologyContractTest.SMALL)
                .support(policy).seed(LgcPsTopologyContractTest.SEED).control(control).shards(shards).build();
    }

    private static TrainingResult train(LgcPsTopology topology) {
        return DistributedTrainer.builder().model(TestModels.mlp(5, new Sgd(0.1)))
                .data(TestModels.data(K * 8 * STEPS, 3)).workers(K).batchSizePerWorker(8).topology(topology).seed(5)
                .stages(LgcPsTopologyContractTest.STAGES).build().fit(1);
    }

    @ParameterizedTest(name = "{0}, S = {1}, guard {2}")
    @CsvSource({"LEADER, 2, lenient", "LEADER, 3, flapping", "OWN, 3, lenient"})
    void shouldTrainWhatOneServerTrainsBitForBit(SupportPolicy policy, int servers, String guard) {
        LgcControl control = guard.equals("lenient") ? LgcPsTopologyContractTest.LENIENT : FLAPPING;
        TrainingResult one = train(lgc(policy, control, Shards.single()));
        TrainingResult many = train(lgc(policy, control, new Shards(servers, 64, FusionPlan.Placement.BUFFERS)));
        assertEquals(one.replicaChecksums(), many.replicaChecksums());
        assertEquals(1, many.replicaChecksums().stream().distinct().count(), "replicas differ");
        for (int s = 0; s < STEPS; s++) {
            StepMetrics a = one.steps().get(s);
            StepMetrics b = many.steps().get(s);
            assertEquals(a.stage(), b.stage(), "stage of step " + s);
            assertEquals(a.loss(), b.loss(), "loss of step " + s);
            assertEquals(a.notes(), b.notes(), "notes of step " + s);
        }
        assertEquals(Stage.COMPRESSED, many.steps().get(STEPS - 1).stage());
        assertEquals(K + servers, many.traffic().endpoints());
        // every shard serves DENSE pieces; only shard 0 the latent and the innovation
        for (int s = 0; s < servers; s++) {
            assertTrue(many.traffic().bytes(K + s, Direction.RECEIVED, Stage.COMPRESSED, TrafficKind.VALUES) > 0,
                    "shard " + s);
            assertEquals(s == 0, many.traffic().bytes(K + s, Direction.RECEIVED, TrafficKind.INNOVATION) > 0,
                    "innovation at shard " + s);
        }
        if (guard.equals("flapping")) {
            assertTrue(many.steps().stream().anyMatch(m -> m.notes().containsKey(
                    io.lgc4j.core.metrics.StepNotes.LGC_FALLBACK)), "the guard tripped");
        }
    }

    /**
     * LGC-PS keeps its state on shard 0 and shard 0 is always there, so a run of S = 3 resumed at S' = 1 and 2 after a
     * checkpoint in COMPRESSED (with {@code allowResize}) is the uninterrupted run bit for bit: replicas, losses,
     * notes.
     */
    @Test
    void aResumeAtAnotherNumberOfShardsShouldKeepShardZerosStateAndTheBits(@TempDir Path dir) throws Exception {
        Function<Integer, DistributedTrainer.Builder> run = servers -> DistributedTrainer.builder()
                .model(TestModels.mlp(5, new Sgd(0.1))).data(TestModels.data(K * 8 * STEPS, 3)).workers(K)
                .batchSizePerWorker(8).seed(5).stages(LgcPsTopologyContractTest.STAGES)
                .topology(lgc(SupportPolicy.LEADER, LgcPsTopologyContractTest.LENIENT,
                        new Shards(servers, 64, FusionPlan.Placement.BUFFERS)));
        TrainingResult whole = run.apply(3).checkpoints(dir, 8).build().fit(1);
        Checkpoint after16 = CheckpointDirectory.in(dir).load(16);
        assertEquals(Stage.COMPRESSED, after16.manifest().stage());
        for (int servers : new int[] {1, 2}) {
            TrainingResult resumed = run.apply(servers).resumeFrom(after16).allowResize(true).build().fit(1);
            assertEquals(whole.replicaChecksums(), resumed.replicaChecksums(), "S = 3 → " + servers);
            for (int s = 0; s < STEPS; s++) {
                assertEquals(whole.steps().get(s).loss(), resumed.steps().get(s).loss(), "loss of step " + s);
                assertEquals(whole.steps().get(s).notes(), resumed.steps().get(s).notes(), "notes of step " + s);
            }
        }
    }

    @Test
    void shouldDescribeItsShards() {
        LgcPsTopology sharded = lgc(SupportPolicy.LEADER, LgcPsTopologyContractTest.LENIENT,
                new Shards(2, 1024, FusionPlan.Placement.BUFFERS));
        assertEquals(new LgcPsTopology.ShardedSettings(SupportPolicy.LEADER, 0.1,
                new Shards(2, 1024, FusionPlan.Placement.BUFFERS)), sharded.describe().topologySettings());
        assertEquals(2, sharded.serviceEndpoints(K));
    }
}

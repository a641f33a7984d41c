package io.lgc4j.ps.topology;

import org.junit.jupiter.api.Assumptions;
import io.lgc4j.core.checkpoint.Checkpoint;
import io.lgc4j.core.checkpoint.CheckpointDirectory;
import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.comm.Direction;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.TrafficMeter;
import io.lgc4j.core.compress.Compressor;
import io.lgc4j.core.compress.DgcCompressor;
import io.lgc4j.core.compress.LowRankCompressor;
import io.lgc4j.core.compress.PowerSgdCompressor;
import io.lgc4j.core.compress.RandomKCompressor;
import io.lgc4j.core.compress.S2SketchCompressor;
import io.lgc4j.core.compress.ScaleComCompressor;
import io.lgc4j.core.compress.SketchCompressor;
import io.lgc4j.core.compress.TopKCompressor;
import io.lgc4j.core.link.Shortcuts;
import io.lgc4j.core.settings.SettingsException;
import io.lgc4j.core.shard.FusionPlan;
import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.core.train.CheckpointMismatchException;
import io.lgc4j.core.train.CompressedTopologyContract;
import io.lgc4j.core.train.DistributedTrainer;
import io.lgc4j.core.train.TestModels;
import io.lgc4j.core.train.Topology;
import io.lgc4j.core.train.TrainingResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.nd4j.linalg.learning.config.Sgd;

import java.nio.file.Path;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The parameter server split into S shards by balanced fusion buffers runs the whole compressed-topology contract
 * (3 shards, buffers of 64 bytes, so every block is cut into many pieces), and computes what the unsharded server
 * computes, bit for bit: each element is still summed over the workers in rank order.
 */
class ShardedParameterServerTest extends CompressedTopologyContract {
    /** Small buffers: 16 elements, so the test layouts' blocks are cut into pieces of 5 and 6. */
    private static final int BUFFER_BYTES = 64;

    @Override
    protected Topology topology(Compressor compressor) {
        assumeTrue(!(compressor instanceof SketchCompressor) && !(compressor instanceof LowRankCompressor),
                "a sharded server carries no sketch and no PowerSGD factors (refused; see shouldRefuse...)");
        return new ParameterServerTopology(compressor, IndexCodecs.defaultCodec(), 3, BUFFER_BYTES);
    }

    /** A leader's support goes to the workers directly (the server relays nothing); other compressors: skipped. */
    @Override
    protected Topology routedTopology(Compressor compressor) {
        Assumptions.assumeTrue(leaderChoosesSupport(compressor),
                "only a leader's support has a shortcut on the parameter server");
        return ((ParameterServerTopology) topology(compressor))
                .withShortcuts(new Shortcuts(Shortcuts.SupportPath.DIRECT, 0));
    }

    @Override
    protected Topology denseTopology() {
        return new ParameterServerTopology(null, null, 3, BUFFER_BYTES);
    }

    static Stream<Arguments> shardable() {
        return Stream.<Supplier<Compressor>>of(() -> null, () -> new TopKCompressor(0.05),
                        () -> new DgcCompressor(0.05, 0.9, 0, 2), () -> new ScaleComCompressor(0.05, 0.5),
                        () -> new RandomKCompressor(new RandomKCompressor.Settings(0.05, 0.1), 42),
                        () -> new TopKCompressor(new TopKCompressor.Settings(0.05, 0, 0.01)))
                .flatMap(c -> Stream.of(2, 3, 4).flatMap(s -> Stream.of(64, 1 << 20)
                        .map(b -> Arguments.of(c, s, b))));
    }

    /**
     * Six hand-driven steps (each compressor's memory carried across them) on the layout of every policy: what every
     * rank holds after each step equals the unsharded server's, bit for bit, at S = 2, 3, 4 and several buffer sizes.
     */
    @ParameterizedTest(name = "{0}, S = {1}, buffers of {2} bytes")
    @MethodSource("shardable")
    void shouldComputeWhatTheUnshardedServerComputesBitForBit(Supplier<Compressor> compressor, int shards,
                                                               int bufferBytes) throws Exception {
        float[][][] inputs = gaussianSteps(6, 3, POLICIES.length(), 31);
        Steps one = exchangeSteps(new ParameterServerTopology(compressor.get(), null, 1, bufferBytes), POLICIES,
                inputs);
        Steps many = exchangeSteps(new ParameterServerTopology(compressor.get(), null, shards, bufferBytes),
                POLICIES, inputs);
        for (int step = 0; step < inputs.length; step++) {
            for (int r = 0; r < 3; r++) {
                assertArrayEquals(one.outputs()[step][r], many.outputs()[step][r], "step " + step + ", rank " + r);
            }
        }
        for (int s = 0; s < shards; s++) {
            assertTrue(many.traffic().bytes(3 + s, Direction.RECEIVED, TrafficKind.VALUES) > 0, "shard " + s);
        }
    }

    /**
     * A trained model: dense and DGC, K = 4, 5 dense steps then compressed, S = 1 against S = 3 — the same parameters
     * on every replica, the same losses.
     */
    @Test
    void shouldTrainTheSameModelSharded() {
        for (Supplier<Compressor> c : java.util.List.<Supplier<Compressor>>of(() -> null,
                () -> new DgcCompressor(0.05, 0.9, 0, 10))) {
            TrainingResult one = train(new ParameterServerTopology(c.get(), null, 1, BUFFER_BYTES));
            TrainingResult three = train(new ParameterServerTopology(c.get(), null, 3, BUFFER_BYTES));
            assertEquals(one.replicaChecksums(), three.replicaChecksums());
            for (int s = 0; s < one.steps().size(); s++) {
                assertEquals(one.steps().get(s).loss(), three.steps().get(s).loss(), "loss of step " + s);
            }
            assertEquals(7, three.traffic().endpoints(), "4 workers and 3 shards metered");
        }
    }

    /**
     * A resume at another S (and another K): the servers hold nothing but their counters, and a sharded server
     * computes the unsharded one's bits, so a DGC run of K = 4, S = 3 resumed after step 8 at S' = 1 and 2 (with
     * {@code allowResize}; refused without, naming S) goes on as the uninterrupted run, bit for bit, and at K' = 3,
     * S' = 2 as the resume at K' = 3 keeping S = 3. Every byte counted before the resume is still counted.
     */
    @Test
    void aResumeAtAnotherNumberOfShardsShouldComputeWhatTheRunComputes(@TempDir Path dir) throws Exception {
        Function<Integer, DistributedTrainer.Builder> run = shards -> DistributedTrainer.builder()
                .model(TestModels.mlp(13, new Sgd(0.1))).data(TestModels.data(4 * 8 * 12, 7)).batchSizePerWorker(8)
                .topology(new ParameterServerTopology(new DgcCompressor(0.05, 0.9, 0, 2), null, shards, BUFFER_BYTES))
                .seed(2).stages(StageSchedule.denseWarmup(5));
        TrainingResult whole = run.apply(3).workers(4).checkpoints(dir.resolve("s3"), 4).build().fit(2);
        Checkpoint after8 = CheckpointDirectory.in(dir.resolve("s3")).load(8);
        CheckpointMismatchException refused = assertThrows(CheckpointMismatchException.class,
                () -> run.apply(1).workers(4).resumeFrom(after8).build());
        assertTrue(refused.getMessage().contains("the checkpoint was written with S = 3 services, this run has S = 1"),
                refused.getMessage());
        assertTrue(refused.getMessage().contains("to go on at K = 4 and S = 1 from this checkpoint, allow a resize"),
                refused.getMessage());
        long before = 0;
        for (int s = 0; s < 3; s++) {
            before += LongStream.of(after8.serverPart(s).longs("traffic", TrafficMeter.ROW_LENGTH)).sum();
        }
        for (int shards : new int[] {1, 2}) {
            TrainingResult resumed = run.apply(shards).workers(4).resumeFrom(after8).allowResize(true).build().fit(2);
            assertSameBits(whole, resumed, "S = 3 → " + shards);
            assertEquals(4 + shards, resumed.traffic().endpoints());
            assertTrue(LongStream.of(resumed.traffic().row(4)).sum() >= before,
                    "shard 0 counts what the shards no longer there did");
        }
        TrainingResult threeOfThree = run.apply(3).workers(3).resumeFrom(after8).allowResize(true).build().fit(2);
        TrainingResult threeOfTwo = run.apply(2).workers(3).resumeFrom(after8).allowResize(true).build().fit(2);
        assertSameBits(threeOfThree, threeOfTwo, "K = 4 → 3, S = 3 → 2");
    }

    private static void assertSameBits(TrainingResult expected, TrainingResult actual, String label) {
        assertEquals(expected.steps().size(), actual.steps().size(), label + ": steps");
        for (int s = 0; s < expected.steps().size(); s++) {
            assertEquals(expected.steps().get(s).loss(), actual.steps().get(s).loss(), label + ": loss of step " + s);
        }
        assertEquals(expected.replicaChecksums(), actual.replicaChecksums(), label + ": replicas");
    }

    private static TrainingResult train(Topology topology) {
        return DistributedTrainer.builder().model(TestModels.mlp(13, new Sgd(0.1)))
                .data(TestModels.data(4 * 8 * 12, 7)).workers(4).batchSizePerWorker(8).topology(topology).seed(2)
                .stages(StageSchedule.denseWarmup(5)).build().fit(1);
    }

    /** Dense bytes per shard: every shard receives the same bytes of every step, within one element per buffer. */
    @Test
    void shouldSendEveryShardTheSameDenseBytes() throws Exception {
        for (int shards = 2; shards <= 4; shards++) {
            Steps run = exchangeSteps(new ParameterServerTopology(null, null, shards, 64), POLICIES,
                    gaussianSteps(2, 3, POLICIES.length(), 3));
            long min = Long.MAX_VALUE;
            long max = 0;
            for (int s = 0; s < shards; s++) {
                long bytes = run.traffic().bytes(3 + s, Direction.RECEIVED, TrafficKind.VALUES);
                min = Math.min(min, bytes);
                max = Math.max(max, bytes);
            }
            FusionPlan plan = FusionPlan.of(POLICIES, shards, 64);
            assertTrue(max - min <= 2L * 3 * 4 * plan.buffers(), "S = " + shards + ": " + min + " to " + max);
        }
    }

    /**
     * The contrast: layers placed whole on shards (round-robin) compute the same, but their loads differ as the layers
     * do — on the test layout (layers of 40, 317 and 120 elements) one shard of two takes 317 values a step, the other
     * 160 — where the buffers split every layer evenly.
     */
    @Test
    void layerPlacementShouldComputeTheSameButLoadTheShardsUnevenly() throws Exception {
        float[][][] inputs = gaussianSteps(3, 3, POLICIES.length(), 8);
        Steps one = exchangeSteps(new ParameterServerTopology(null, null, 1, 64), POLICIES, inputs);
        Steps layers = exchangeSteps(new ParameterServerTopology(null, null, new Shards(2, 64,
                FusionPlan.Placement.LAYERS)), POLICIES, inputs);
        Steps buffers = exchangeSteps(new ParameterServerTopology(null, null, 2, 64), POLICIES, inputs);
        for (int r = 0; r < 3; r++) {
            assertArrayEquals(one.outputs()[2][r], layers.outputs()[2][r], "rank " + r);
        }
        long perStep = 3L * 3 * Float.BYTES; // three workers, three steps, a float each
        assertEquals(160 * perStep, layers.traffic().bytes(3, Direction.RECEIVED, TrafficKind.VALUES));
        assertEquals(317 * perStep, layers.traffic().bytes(4, Direction.RECEIVED, TrafficKind.VALUES));
        assertEquals(238 * perStep, buffers.traffic().bytes(3, Direction.RECEIVED, TrafficKind.VALUES));
        assertEquals(239 * perStep, buffers.traffic().bytes(4, Direction.RECEIVED, TrafficKind.VALUES));
    }

    @Test
    void shouldRefuseTheCompressorsThatAreNoSumOfElements() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ParameterServerTopology(
                new S2SketchCompressor(0.05, 5, 4.0, 8), null, 2, 1024));
        assertEquals("topology.servers must be 1 with compressor s2, found 2: a sharded server sums elements"
                + " of its slices, and a sketch's counters are not elements of the gradient", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new ParameterServerTopology(
                new PowerSgdCompressor(new PowerSgdCompressor.Settings(1), 3), null, 4, 1024));
        assertEquals("topology.servers must be 1 with compressor powersgd, found 4: a sharded server sums"
                + " elements of its slices, and PowerSGD's factors are not elements of the gradient", e.getMessage());
        SettingsException bad = assertThrows(SettingsException.class,
                () -> new ParameterServerTopology(null, null, 0, 1024));
        assertEquals("topology.servers", bad.key());
        bad = assertThrows(SettingsException.class, () -> new ParameterServerTopology(null, null, 2, 6));
        assertEquals("topology.fusionBufferBytes", bad.key());
    }

    /**
     * Backward overlap on shards: each worker pushes a shard its slices as soon as every one of them is final, the
     * shard of the last layers first (only {@code shardBy: layers} has shards without the first layers' elements);
     * the frames are the synchronous step's, so every replica ends with the same bits and every endpoint sends the
     * same bytes, a dense step and a compressed method's FULL steps alike.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "S={0}, {1}, {2}")
    @org.junit.jupiter.params.provider.CsvSource({"3, LAYERS, none", "2, LAYERS, topk", "3, BUFFERS, none",
            "2, BLOCKS, topk"})
    void backwardOverlapShouldChangeNoBitOnShards(int servers, FusionPlan.Placement placement, String method) {
        boolean dense = method.equals("none");
        java.util.function.Function<io.lgc4j.core.train.Overlap, DistributedTrainer> build = overlap -> {
            DistributedTrainer.Builder b = DistributedTrainer.builder().model(TestModels.mlp(17))
                    .data(TestModels.data(3 * 8 * 8, 5)).workers(3).batchSizePerWorker(8).seed(2).overlap(overlap)
                    .bucketBytes(4).topology(new ParameterServerTopology(dense ? null : new TopKCompressor(0.2),
                            dense ? null : IndexCodecs.defaultCodec(), new Shards(servers, 64, placement)));
            if (!dense) {
                b.stages(StageSchedule.denseWarmup(3)); // 3 dense steps that stream, then top-k, which does not
            }
            return b.build();
        };
        DistributedTrainer synchronous = build.apply(io.lgc4j.core.train.Overlap.NONE);
        TrainingResult expected = synchronous.fit(1);
        DistributedTrainer overlapped = build.apply(io.lgc4j.core.train.Overlap.BACKWARD);
        TrainingResult actual = overlapped.fit(1);
        assertEquals(expected.replicaChecksums(), actual.replicaChecksums());
        for (int r = 0; r < 3; r++) {
            assertArrayEquals(synchronous.replicas().get(0).params().toFloatVector(),
                    overlapped.replicas().get(r).params().toFloatVector(), "replica " + r);
        }
        for (int e = 0; e < 3 + servers; e++) {
            for (TrafficKind kind : TrafficKind.values()) {
                assertEquals(expected.traffic().bytes(e, Direction.SENT, kind),
                        actual.traffic().bytes(e, Direction.SENT, kind), "endpoint " + e + ", " + kind);
            }
        }
    }
}

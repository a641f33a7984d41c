package io.lgc4j.core.train;

import io.lgc4j.core.comm.Direction;
import io.lgc4j.core.comm.InProcessCluster;
import io.lgc4j.core.comm.StepTag;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.TrafficMeter;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.comm.TransportClosedException;
import io.lgc4j.core.compress.BlockRegion;
import io.lgc4j.core.compress.Compressor;
import io.lgc4j.core.compress.DgcCompressor;
import io.lgc4j.core.compress.LowRankCompressor;
import io.lgc4j.core.compress.PowerSgdCompressor;
import io.lgc4j.core.compress.RandomKCompressor;
import io.lgc4j.core.compress.ScaleComCompressor;
import io.lgc4j.core.compress.SeededSupportCompressor;
import io.lgc4j.core.compress.TopKCompressor;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.metrics.PhaseClock;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.stage.StageSchedule;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.learning.config.Sgd;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The contract every topology keeps with every compressor: sending everything (ratio 1) trains like the dense
 * topology (PowerSGD: at full rank); sparse training keeps replicas bit-identical, in fp32 and in half precision
 * (whose values cost half the bytes); indices and values are metered apart; random-k and PowerSGD send no indices;
 * random-k's ranks apply the mean of the values the ranks sent.
 *
 * <p>A topology that carries only some kinds of compressor (the LGC topologies bring their own support compressor)
 * aborts the others in {@link #topology(Compressor)} with a JUnit assumption, so the report shows them skipped, with
 * the reason; every test asks for the topology before it trains anything.
 */
public abstract class CompressedTopologyContract {

    /** A TOP_K block outside any layout: for asking a compressor its ratio ({@link Compressor#density}). */
    public static final ParamBlock TOP_K_BLOCK = new ParamBlock(0, 2, "out", "W", 0, 100, new long[] {100},
            LayerPolicy.TOP_K);

    /**
     * A layout with every policy, for exchanges driven by hand: a DENSE first layer of 40 elements, two LEARNED
     * blocks of 300 and 17, a TOP_K last layer of 120 (477 in all).
     */
    protected static final GradientLayout POLICIES = GradientLayout.ofBlocks(List.of(
            new ParamBlock(0, 0, "in", "W", 0, 40, new long[] {40}, LayerPolicy.DENSE),
            new ParamBlock(1, 1, "mid", "W", 40, 300, new long[] {300}, LayerPolicy.LEARNED),
            new ParamBlock(2, 1, "mid", "b", 340, 17, new long[] {17}, LayerPolicy.LEARNED),
            new ParamBlock(3, 2, "out", "W", 357, 120, new long[] {120}, LayerPolicy.TOP_K)));

    /** How long a hand-driven run may take before the test fails instead of hanging. */
    private static final long TIMEOUT_SECONDS = 60;

    /**
     * The topology under test carrying {@code compressor}; a topology that cannot carry it aborts the test with
     * {@link org.junit.jupiter.api.Assumptions#assumeTrue(boolean, String)}.
     */
    protected abstract Topology topology(Compressor compressor);

    /** The same topology without compression. */
    protected abstract Topology denseTopology();

    /**
     * The topology under test carrying {@code compressor} and taking every shortcut it has for it ({@link Shortcuts}:
     * the leader's support sent directly, small allreduces in one leg); by default it has none, and the shortcut test
     * is skipped.
     */
    protected Topology routedTopology(Compressor compressor) {
        org.junit.jupiter.api.Assumptions.assumeTrue(false, "this topology takes no shortcuts");
        return null;
    }

    /** Whether {@code compressor}'s step leader chooses a support that travels (the direct support path's case). */
    protected static boolean leaderChoosesSupport(Compressor compressor) {
        return compressor instanceof io.lgc4j.core.compress.SharedSupportCompressor
                && !(compressor instanceof SeededSupportCompressor);
    }

    /**
     * The shortcuts keep the math: on K = 3 and 4 ranks, through 6 steps with memory, every rank holds the same bits
     * after every step with and without them; and every worker receives as many support bytes (the same indices, from
     * another endpoint).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("sparse")
    void shortcutsShouldChangeNoBit(Compressor compressor) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeFalse(compressor instanceof LowRankCompressor,
                "PowerSGD factors no block of the hand-driven layout (its vectors); the fingerprint's runs cover it");
        Topology routed = routedTopology(compressor);
        for (int k = 3; k <= 4; k++) {
            float[][][] inputs = gaussianSteps(6, k, POLICIES.length(), 40 + k);
            Steps plain = exchangeSteps(topology(compressor), POLICIES, inputs);
            Steps shortcut = exchangeSteps(routed, POLICIES, inputs);
            assertSameOutputs(plain, shortcut, k);
            for (int r = 0; r < k; r++) {
                assertEquals(plain.traffic().bytes(r, Direction.RECEIVED, TrafficKind.INDICES),
                        shortcut.traffic().bytes(r, Direction.RECEIVED, TrafficKind.INDICES), "K=" + k + ", rank " + r);
            }
        }
    }

    /** Every rank's output after every step of {@code a} equals {@code b}'s, bit for bit. */
    private static void assertSameOutputs(Steps a, Steps b, int k) {
        for (int step = 0; step < a.outputs().length; step++) {
            for (int r = 0; r < k; r++) {
                assertArrayEquals(a.outputs()[step][r], b.outputs()[step][r],
                        "K=" + k + ", step " + step + ", rank " + r);
            }
        }
    }

    /**
     * A layout whose middle and last layers PowerSGD factors (16 × 12 and 3 × 16 matrix views), with a DENSE first layer
     * and a plain bias between: every kind of block a low-rank step carries, three layers for three pieces.
     */
    protected static final GradientLayout MATRICES = GradientLayout.ofBlocks(List.of(
            new ParamBlock(0, 0, "in", "W", 0, 20, new long[] {4, 5}, LayerPolicy.DENSE),
            new ParamBlock(1, 1, "mid", "W", 20, 192, new long[] {12, 16}, LayerPolicy.LEARNED),
            new ParamBlock(2, 1, "mid", "b", 212, 16, new long[] {1, 16}, LayerPolicy.LEARNED),
            new ParamBlock(3, 2, "out", "W", 228, 48, new long[] {16, 3}, LayerPolicy.TOP_K)));

    /**
     * A compressed step beside the backward pass keeps the bits: on K = 3 and 4 ranks, through 6 steps with memory,
     * every rank holds after every step what the whole-gradient step gives it, with each layer a piece of its own
     * ({@link GradientExchange#allReduceMean(StepTag, float[], PhaseClock, io.lgc4j.core.link.GradientPieces)}),
     * and sends as many value bytes. PowerSGD streams; a method that does not waits for the whole gradient.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("sparse")
    void aStepInPiecesShouldChangeNoBit(Compressor compressor) throws Exception {
        Topology topology = topology(compressor);
        GradientLayout layout = compressor instanceof LowRankCompressor ? MATRICES : POLICIES;
        for (int k = 3; k <= 4; k++) {
            float[][][] inputs = gaussianSteps(6, k, layout.length(), 60 + k);
            Steps whole = exchangeSteps(topology, layout, inputs);
            Steps pieces = exchangeSteps(topology(compressor), layout, inputs, 4);
            assertSameOutputs(whole, pieces, k);
            for (int r = 0; r < k; r++) {
                assertEquals(whole.traffic().bytes(r, Direction.SENT, TrafficKind.VALUES),
                        pieces.traffic().bytes(r, Direction.SENT, TrafficKind.VALUES),
                        "K=" + k + ", rank " + r + ": the values' bytes");
            }
        }
    }

    /**
     * The same through the trainer: backward overlap ({@link Overlap#BACKWARD}, every layer a piece) after a dense
     * warm-up of 2 steps gives every replica the synchronous run's parameters after every epoch, and the same losses.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("sparse")
    void backwardOverlapShouldChangeNoBitOfACompressedStep(Compressor compressor) {
        java.util.function.Function<Overlap, DistributedTrainer> build = overlap -> DistributedTrainer.builder()
                .model(TestModels.mlp(13, new Sgd(0.1))).data(TestModels.data(3 * 8 * 12, 7)).workers(3)
                .batchSizePerWorker(8).topology(topology(compressor)).seed(2).stages(StageSchedule.denseWarmup(2))
                .overlap(overlap).bucketBytes(4).build();
        DistributedTrainer synchronous = build.apply(Overlap.NONE);
        TrainingResult expected = synchronous.fit(2);
        DistributedTrainer overlapped = build.apply(Overlap.BACKWARD);
        TrainingResult actual = overlapped.fit(2);
        for (int s = 0; s < expected.steps().size(); s++) {
            assertEquals(expected.steps().get(s).loss(), actual.steps().get(s).loss(), "loss of step " + s);
        }
        float[] params = synchronous.replicas().get(0).params().toFloatVector();
        for (int r = 0; r < 3; r++) {
            assertArrayEquals(params, overlapped.replicas().get(r).params().toFloatVector(), "replica " + r);
        }
    }

    static Stream<Arguments> lossless() {
        return Stream.of(Arguments.of(new TopKCompressor(1.0)), Arguments.of(new ScaleComCompressor(1.0, 1.0)),
                Arguments.of(new DgcCompressor(1.0, 0.0, 0, 0)), Arguments.of(new RandomKCompressor(1.0, 3)),
                // full rank: every matrix of the test MLP (12 × 16, 3 × 12) factored at its smaller side
                Arguments.of(new PowerSgdCompressor(new PowerSgdCompressor.Settings(12, 0, true, true), 3)));
    }

    static Stream<Arguments> sparse() {
        return Stream.of(Arguments.of(new TopKCompressor(0.05)), Arguments.of(new ScaleComCompressor(0.05, 1.0)),
                Arguments.of(new DgcCompressor(0.05, 0.9, 0, 10)),
                Arguments.of(new io.lgc4j.core.compress.S2SketchCompressor(0.05, 5, 4.0, 8)),
                Arguments.of(new RandomKCompressor(0.05, 3)),
                Arguments.of(new PowerSgdCompressor(new PowerSgdCompressor.Settings(1), 3)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("lossless")
    void shouldTrainLikeTheDenseTopologyWhenEverythingIsSent(Compressor compressor) {
        Topology topology = topology(compressor);
        DataSet data = TestModels.data(3 * 8 * 10, 6);
        float[] dense = train(denseTopology(), data, 3);
        float[] compressed = train(topology, data, 3);
        for (int i = 0; i < dense.length; i++) {
            assertEquals(dense[i], compressed[i], 1e-5f * (1 + Math.abs(dense[i])), "parameter " + i);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("sparse")
    void shouldKeepReplicasBitIdenticalAndMeterIndicesApart(Compressor compressor) {
        Topology topology = topology(compressor);
        DataSet data = TestModels.data(4 * 8 * 30, 7);
        MultiLayerNetwork net = TestModels.mlp(13, new Sgd(0.1));
        DistributedTrainer trainer = DistributedTrainer.builder().model(net).data(data).workers(4)
                .batchSizePerWorker(8).topology(topology).seed(2)
                .stages(io.lgc4j.core.stage.StageSchedule.denseWarmup(5)).build();
        TrainingResult result = trainer.fit(1);
        for (int s = 0; s < 30; s++) {
            io.lgc4j.core.metrics.StepMetrics m = result.steps().get(s);
            assertEquals(s < 5 ? Stage.FULL : Stage.TOP_K, m.stage(), "stage of step " + s);
            if (s < 5) {
                assertEquals(0, m.traffic().bytes(0, Direction.SENT, TrafficKind.INDICES), "dense warm-up step " + s);
            }
        }
        float[] rank0 = trainer.replicas().get(0).params().toFloatVector();
        for (int r = 1; r < 4; r++) {
            assertArrayEquals(rank0, trainer.replicas().get(r).params().toFloatVector(), "replica " + r);
        }
        long indices = result.traffic().bytes(0, Direction.SENT, TrafficKind.INDICES);
        long values = result.traffic().bytes(0, Direction.SENT, Stage.TOP_K, TrafficKind.VALUES);
        assertTrue(values > 0, "values sent");
        if (compressor instanceof SeededSupportCompressor || compressor instanceof LowRankCompressor) {
            for (int e = 0; e < result.traffic().endpoints(); e++) {
                assertEquals(0, result.traffic().bytes(e, Direction.SENT, TrafficKind.INDICES), "endpoint " + e);
            }
        } else if (!(compressor instanceof ScaleComCompressor)) {
            assertTrue(indices > 0, "indices sent");
        }
        assertTrue(result.steps().get(29).loss() < result.steps().get(0).loss(), "loss should fall");
        // the result records the topology's description of itself, with the codec its indices went through
        assertEquals(topology.describe(), result.method());
        assertTrue(result.method().codec() != null && !result.method().codec().isEmpty(), result.method().toString());
    }

    /**
     * Checkpoints: each compressor's memory (residuals, DGC's u and v, S2's, PowerSGD's memory and warm-start Q)
     * travels in the rank parts, so a K = 3 run (5 dense steps, then compressed; 24 steps) resumed after steps 4, 8
     * and 16 ends exactly where it ends uninterrupted.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("sparse")
    void shouldResumeFromACheckpointExactlyWhereTheUninterruptedRunEnds(Compressor compressor, @TempDir Path dir)
            throws Exception {
        topology(compressor); // aborts the test when the topology cannot carry the compressor
        ResumeCheck.run(() -> DistributedTrainer.builder().model(TestModels.mlp(13, new Sgd(0.1)))
                .data(TestModels.data(3 * 8 * 24, 7)).workers(3).batchSizePerWorker(8).topology(topology(compressor))
                .seed(2).stages(StageSchedule.denseWarmup(5)).evaluation(TopologyContract.evalData(), 5),
                1, 4, dir, 4, 8, 16);
    }

    /**
     * A resume at another K with each compressor's memory: a K = 4 run (5 dense steps, then compressed; 12 steps an
     * epoch, two epochs) resumed after step 8 at K' = 3 and 5 goes on as {@link ResizeCheck} says, and every memory's
     * mean over the ranks is kept by the regroup.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("sparse")
    void shouldResumeAtAnotherNumberOfWorkersKeepingTheMemoriesMean(Compressor compressor, @TempDir Path dir)
            throws Exception {
        topology(compressor); // aborts the test when the topology cannot carry the compressor
        java.util.function.Supplier<DistributedTrainer.Builder> run = () -> DistributedTrainer.builder()
                .model(TestModels.mlp(13, new Sgd(0.1))).data(TestModels.data(4 * 8 * 12, 7)).batchSizePerWorker(8)
                .topology(topology(compressor)).seed(2).stages(StageSchedule.denseWarmup(5));
        int[] resumes = IntStream.of(3, 5).filter(k -> resizeRefusal(k) == null).toArray();
        if (resumes.length > 0) {
            ResizeCheck.assertMeansKept(ResizeCheck.run(run, 4, 2, 4, dir.resolve("resumes"), 8, resumes),
                    compressor.name());
        }
        for (int k : IntStream.of(3, 5).filter(k -> resizeRefusal(k) != null).toArray()) {
            ResizeCheck.assertRefused(run, 4, 4, dir.resolve("refused-" + k), 8, k, resizeRefusal(k));
        }
    }

    /**
     * How a resume of a K = 4 checkpoint at {@code to} workers is refused by a topology whose state cannot change to
     * that size (the message's start), or null when it resumes.
     */
    protected String resizeRefusal(int to) {
        return null;
    }

    /**
     * A checkpoint is complete when its step ends, with compressed steps (the checkpoint after step 5 in TOP_K): a
     * run that fails in the step after it leaves it for a restart.
     */
    @Test
    void aCheckpointShouldBeCompleteWhenItsStepEnds(@TempDir Path dir) throws Exception {
        ResumeCheck.assertCompleteWhenItsStepEnds(DistributedTrainer.builder().model(TestModels.mlp(13, new Sgd(0.1)))
                .topology(topology(new TopKCompressor(0.05))).stages(StageSchedule.denseWarmup(5)), dir);
    }

    static Stream<Arguments> halfPrecision() {
        return Stream.of(Arguments.of(new TopKCompressor(0.05)), Arguments.of(new ScaleComCompressor(0.05, 0.1)),
                Arguments.of(new DgcCompressor(0.05, 0.9, 0, 10)), Arguments.of(new RandomKCompressor(0.05, 3)),
                Arguments.of(new PowerSgdCompressor(new PowerSgdCompressor.Settings(1), 3)));
    }

    /**
     * The same sparse run (K = 4, 5 dense steps then 25 compressed) in fp32, bf16 and fp16: in both half formats the
     * replicas stay bit-identical and the loss falls, and the values the workers send cost exactly half their fp32
     * bytes in bf16 (as many values each step whatever the gradients: the counts are the compressor's) and half plus
     * the 2-byte scale of each frame in fp16.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("halfPrecision")
    void shouldKeepReplicasBitIdenticalWithHalfPrecisionValuesAtHalfTheBytes(Compressor compressor) {
        long fp32 = valuesSent(sparseRun(compressor, ValueEncoding.FP32));
        long bf16 = valuesSent(sparseRun(compressor, ValueEncoding.BF16));
        TrainingResult fp16Run = sparseRun(compressor, ValueEncoding.FP16);
        long fp16 = valuesSent(fp16Run);
        assertEquals(fp32 / 2, bf16, "bf16 values bytes, workers' sends in the compressed steps");
        assertTrue(fp16 > fp32 / 2 && fp16 <= fp32 / 2 + 2 * framesSent(fp16Run), "fp16: " + fp16 + " of " + fp32);
        assertEquals("fp16", fp16Run.method().toMap().get("values"));
    }

    /** The workers' VALUES payload bytes sent in TOP_K steps. */
    private static long valuesSent(TrainingResult result) {
        long sum = 0;
        for (int w = 0; w < 4; w++) {
            sum += result.traffic().bytes(w, Direction.SENT, Stage.TOP_K, TrafficKind.VALUES);
        }
        return sum;
    }

    /** Every frame the workers sent (an upper bound on their VALUES frames). */
    private static long framesSent(TrainingResult result) {
        long sum = 0;
        for (int w = 0; w < 4; w++) {
            sum += result.traffic().frames(w, Direction.SENT);
        }
        return sum;
    }

    /** The run of {@link #shouldKeepReplicasBitIdenticalWithHalfPrecisionValuesAtHalfTheBytes}: replicas checked. */
    private TrainingResult sparseRun(Compressor compressor, ValueEncoding values) {
        Topology topology = topology(compressor);
        DistributedTrainer trainer = DistributedTrainer.builder().model(TestModels.mlp(13, new Sgd(0.1)))
                .data(TestModels.data(4 * 8 * 30, 7)).workers(4).batchSizePerWorker(8).topology(topology).seed(2)
                .stages(io.lgc4j.core.stage.StageSchedule.denseWarmup(5)).values(values).build();
        TrainingResult result = trainer.fit(1);
        float[] rank0 = trainer.replicas().get(0).params().toFloatVector();
        for (int r = 1; r < 4; r++) {
            assertArrayEquals(rank0, trainer.replicas().get(r).params().toFloatVector(), values + ", replica " + r);
        }
        assertTrue(result.steps().get(29).loss() < result.steps().get(0).loss(), values + ": loss should fall");
        assertEquals(topology.describe().withValues(values), result.method());
        return result;
    }

    /**
     * Random-k on every policy (ratio 5% on the TOP_K block, learnedRatio 10% on the LEARNED ones), K = 3, three steps
     * through one cluster: no endpoint sends or receives an index byte; every rank holds the same bits; on each step's
     * seeded support every rank applies the mean of what the ranks sent (their memory-compensated values, the memory
     * keeping the rest), zero elsewhere in the compressible blocks, and the dense mean on the DENSE block.
     */
    @Test
    void randomKShouldSendNoIndicesAndApplyTheMeanOfTheValuesTheRanksSent() throws Exception {
        RandomKCompressor randomk = new RandomKCompressor(new RandomKCompressor.Settings(0.05, 0.1), 42);
        Topology topology = topology(randomk);
        int k = 3;
        float[][][] inputs = gaussianSteps(3, k, POLICIES.length(), 8);
        Steps run = exchangeSteps(topology, POLICIES, inputs);

        List<ParamBlock> blocks = POLICIES.compressibleBlocks();
        BlockRegion region = new BlockRegion(blocks);
        BlockRegion dense = new BlockRegion(POLICIES.blocks(LayerPolicy.DENSE));
        float[][] memory = new float[k][region.length()];
        for (int step = 0; step < inputs.length; step++) {
            float[][] out = run.outputs()[step];
            for (int r = 1; r < k; r++) {
                assertArrayEquals(out[0], out[r], "step " + step + ", rank " + r);
            }
            int[][] support = randomk.support(step, blocks);
            float[] sum = new float[region.length()];
            boolean[] sent = new boolean[region.length()];
            for (int r = 0; r < k; r++) {
                float[] g = new float[region.length()];
                region.gather(inputs[step][r], g);
                int at = 0;
                for (int b = 0; b < blocks.size(); b++) {
                    for (int i = 0; i < blocks.get(b).length(); i++) {
                        memory[r][at + i] += g[at + i];
                    }
                    for (int i : support[b]) {
                        sum[at + i] += memory[r][at + i];
                        memory[r][at + i] = 0f; // sent: the memory keeps the rest
                        sent[at + i] = true;
                    }
                    at += blocks.get(b).length();
                }
            }
            float[] applied = new float[region.length()];
            region.gather(out[0], applied);
            for (int i = 0; i < applied.length; i++) {
                if (sent[i]) {
                    float mean = sum[i] / k;
                    assertEquals(mean, applied[i], 1e-6f * (1 + Math.abs(mean)), "step " + step + ", element " + i);
                } else {
                    assertEquals(0f, applied[i], "step " + step + ", element " + i + " is off the support");
                }
            }
            float[] denseMean = new float[dense.length()];
            float[] part = new float[dense.length()];
            for (int r = 0; r < k; r++) {
                dense.gather(inputs[step][r], part);
                for (int i = 0; i < part.length; i++) {
                    denseMean[i] += part[i] / k;
                }
            }
            dense.gather(out[0], part);
            assertArrayEquals(denseMean, part, 1e-5f, "DENSE block, step " + step);
        }
        for (int e = 0; e < run.traffic().endpoints(); e++) {
            for (Direction d : Direction.values()) {
                assertEquals(0, run.traffic().bytes(e, d, TrafficKind.INDICES), "endpoint " + e + ", " + d);
            }
        }
    }

    /**
     * Compressors with a {@code learnedRatio} and the values one rank sends per step of {@link #POLICIES} (TOP_K block
     * of 120, LEARNED blocks of 300 and 17): ratio 5% with learnedRatio 10% sends 6 + 30 + 2 = 38; without a
     * learnedRatio, every block at 5%, 6 + 15 + 1 = 22 (the counts from before learnedRatio existed); learnedRatio 1%
     * sends 6 + 3 + 1 = 10; and in the first phase of DGC's warm-up (steps 0 and 1 of 8) the TOP_K block sends 25%
     * and the LEARNED ones twice that, 50%: 30 + 150 + 9 = 189.
     */
    protected static Stream<Arguments> learnedRatios() {
        return Stream.of(
                Arguments.of(new TopKCompressor(new TopKCompressor.Settings(0.05, 0, 0.1)), 38),
                Arguments.of(new DgcCompressor(new DgcCompressor.Settings(0.05, 0.9, 0, 0, 0.1)), 38),
                Arguments.of(new ScaleComCompressor(new ScaleComCompressor.Settings(0.05, 1.0, 0.1)), 38),
                Arguments.of(new RandomKCompressor(new RandomKCompressor.Settings(0.05, 0.1), 42), 38),
                Arguments.of(new TopKCompressor(0.05), 22),
                Arguments.of(new DgcCompressor(0.05, 0.9, 0, 0), 22),
                Arguments.of(new ScaleComCompressor(0.05, 1.0), 22),
                Arguments.of(new RandomKCompressor(0.05, 42), 22),
                Arguments.of(new TopKCompressor(new TopKCompressor.Settings(0.05, 0, 0.01)), 10),
                Arguments.of(new DgcCompressor(new DgcCompressor.Settings(0.05, 0.9, 0, 8, 0.1)), 189));
    }

    /** What every rank held after each step ({@code outputs[step][rank]}), and the traffic of the whole run. */
    protected record Steps(float[][][] outputs, TrafficMeter.Snapshot traffic) {
    }

    /** {@code steps} × {@code k} inputs of {@code n} Gaussian floats. */
    protected static float[][][] gaussianSteps(int steps, int k, int n, long seed) {
        Random random = new Random(seed);
        float[][][] inputs = new float[steps][k][n];
        for (float[][] step : inputs) {
            for (float[] rank : step) {
                for (int i = 0; i < n; i++) {
                    rank[i] = (float) random.nextGaussian();
                }
            }
        }
        return inputs;
    }

    /**
     * Consecutive TOP_K steps 0, 1, ... through {@code topology} on one fresh in-process cluster: rank r contributes
     * {@code inputs[step][r]} (copied) to step {@code step}, each rank keeping its exchange (and so its compressor's
     * memory) from step to step. Fails, rather than hangs, after a minute.
     */
    protected static Steps exchangeSteps(Topology topology, GradientLayout layout, float[][][] inputs)
            throws Exception {
        return exchangeSteps(topology, layout, inputs, 0);
    }

    /**
     * {@link #exchangeSteps(Topology, GradientLayout, float[][][])}, each step handed over in the pieces of
     * {@code bucketBytes} (every piece final at once) when that is above 0.
     */
    protected static Steps exchangeSteps(Topology topology, GradientLayout layout, float[][][] inputs,
                                         int bucketBytes) throws Exception {
        List<io.lgc4j.core.link.GradientPieces.Piece> plan = bucketBytes > 0
                ? io.lgc4j.core.link.GradientPieces.plan(layout, bucketBytes) : List.of();
        io.lgc4j.core.link.GradientPieces ready = new io.lgc4j.core.link.GradientPieces() {
            @Override
            public List<Piece> pieces() {
                return plan;
            }

            @Override
            public void await(Piece piece) {
            }
        };
        int k = inputs[0].length;
        int services = topology.serviceEndpoints(k);
        float[][][] outputs = new float[inputs.length][k][];
        TrafficMeter meter = new TrafficMeter(k + services);
        ExecutorService pool = Executors.newFixedThreadPool(k + services);
        InProcessCluster cluster = new InProcessCluster(k + services, meter);
        try {
            List<Transport> serviceTransports = new ArrayList<>();
            for (int s = 0; s < services; s++) {
                serviceTransports.add(cluster.transport(k + s));
            }
            List<Future<?>> serviceLoops = new ArrayList<>();
            for (ServiceLoop loop : topology.services(k, serviceTransports, layout)) {
                serviceLoops.add(pool.submit(() -> {
                    try {
                        loop.run();
                    } catch (TransportClosedException expected) {
                        // end of test
                    }
                }));
            }
            List<Future<?>> ranks = new ArrayList<>();
            for (int r = 0; r < k; r++) {
                int rank = r;
                ranks.add(pool.submit(() -> {
                    Transport transport = cluster.transport(rank);
                    GradientExchange exchange = topology.worker(rank, k, transport, layout);
                    for (int step = 0; step < inputs.length; step++) {
                        float[] g = inputs[step][rank].clone();
                        StepTag tag = new StepTag(step, Stage.TOP_K);
                        if (bucketBytes > 0) {
                            exchange.allReduceMean(tag, g, new PhaseClock(), ready);
                        } else {
                            exchange.allReduceMean(tag, g, new PhaseClock());
                        }
                        transport.releaseReceived();
                        outputs[step][rank] = g;
                    }
                    return null;
                }));
            }
            for (Future<?> rank : ranks) {
                rank.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            }
            // a sender counts a frame once its transport took it, which may be after the receiver has it: the
            // services' last counts are in once their loops have ended
            cluster.close();
            for (Future<?> loop : serviceLoops) {
                loop.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            }
            return new Steps(outputs, meter.snapshot());
        } finally {
            cluster.close(); // the service loops end when the cluster closes
            pool.shutdownNow();
        }
    }

    @Test
    void shouldRefuseDgcWithAMomentumUpdaterInTheModel() {
        Topology dgc = topology(new DgcCompressor(0.01, 0.9, 0, 0));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DistributedTrainer.builder().model(TestModels.mlp(1)).data(TestModels.data(64, 1)).workers(2)
                        .batchSizePerWorker(8).topology(dgc).build());
        assertEquals("compressor 'dgc' applies momentum itself, so the model's updater must be plain SGD; layer"
                + " 'layer0' uses Nesterovs", e.getMessage());
    }

    private static float[] train(Topology topology, DataSet data, int k) {
        // the compressed stage from step 0, given explicitly (the LGC topologies accept no default schedule)
        DistributedTrainer trainer = DistributedTrainer.builder().model(TestModels.mlp(17, new Sgd(0.1))).data(data)
                .stages(StageSchedule.denseWarmup(0))
                .workers(k).batchSizePerWorker(8).topology(topology).seed(4).build();
        trainer.fit(1);
        return trainer.replicas().get(0).params().toFloatVector();
    }
}

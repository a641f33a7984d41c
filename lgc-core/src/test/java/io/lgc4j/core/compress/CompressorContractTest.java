package io.lgc4j.core.compress;

import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.comm.FrameDescriptor;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.sparse.SparseVector;
import io.lgc4j.core.sparse.TopK;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.train.StepTag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What every compressor keeps: wire round trip, memory = compensated input − sent, and a bound on its bytes. */
class CompressorContractTest {
    private static final List<ParamBlock> BLOCKS = List.of(
            new ParamBlock(0, 1, "conv2", "W", 100, 5000, new long[] {5000}, LayerPolicy.LEARNED),
            new ParamBlock(1, 1, "conv2", "b", 5100, 50, new long[] {50}, LayerPolicy.LEARNED),
            new ParamBlock(2, 2, "out", "W", 5150, 3000, new long[] {3000}, LayerPolicy.TOP_K));
    private static final int FLAT = 8150;

    static Stream<Arguments> compressors() {
        return Stream.of(Arguments.of(new TopKCompressor(0.01)), Arguments.of(new DgcCompressor(0.01, 0.0, 0, 0)),
                Arguments.of(new DgcCompressor(0.01, 0.9, 0, 0)), Arguments.of(new ScaleComCompressor(0.01, 1.0)),
                Arguments.of(new LgcSupportCompressor(0.01, 42)));
    }

    private static float[] gradient(Random random) {
        float[] g = new float[FLAT];
        for (int i = 0; i < g.length; i++) {
            g[i] = (float) random.nextGaussian();
        }
        return g;
    }

    /** One step of any compressor: what it sent, per block. */
    private static SparseSet step(Object state, Compressor c, float[] g, int step) {
        if (state instanceof GatherCompressor.State s) {
            return s.compress(g, step);
        }
        SharedSupportCompressor.State s = (SharedSupportCompressor.State) state;
        s.compensate(g, step);
        int[][] support = s.chooseSupport(step);
        float[] values = s.take(support);
        List<SparseVector> out = new ArrayList<>();
        int at = 0;
        for (int b = 0; b < BLOCKS.size(); b++) {
            out.add(new SparseVector(BLOCKS.get(b).length(), support[b],
                    java.util.Arrays.copyOfRange(values, at, at + support[b].length)));
            at += support[b].length;
        }
        return new SparseSet(out);
    }

    private static Object newState(Compressor c) {
        return c instanceof GatherCompressor g ? g.newRank(BLOCKS) : ((SharedSupportCompressor) c).newRank(BLOCKS);
    }

    private static float[] residual(Object state) {
        return state instanceof GatherCompressor.State s ? s.residual()
                : ((SharedSupportCompressor.State) state).residual();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("compressors")
    void shouldRoundTripItsPayloadThroughTheWire(Compressor c) {
        Object state = newState(c);
        SparseSet sent = step(state, c, gradient(new Random(1)), 0);
        byte[][] frames = SparseFrames.encode(sent, BLOCKS, IndexCodecs.defaultCodec(), new StepTag(0, Stage.TOP_K));
        int[] max = BLOCKS.stream().mapToInt(b -> TopK.countFor(b.length(), c.density(0))).toArray();
        int[][] supports = SparseFrames.decodeIndices(FrameCodec.decode(frames[0]), BLOCKS,
                IndexCodecs.defaultCodec(), max);
        assertEquals(sent, SparseFrames.decode(supports, FrameCodec.decode(frames[1]), BLOCKS));
        for (int b = 0; b < BLOCKS.size(); b++) {
            assertEquals(TopK.countFor(BLOCKS.get(b).length(), c.density(0)), sent.blocks().get(b).nnz());
        }
        // Byte bound: 4 bytes per value, at most 4 per index plus a small per-block header, two frames.
        int k = sent.nnz();
        assertTrue(frames[1].length == 4 * k + FrameDescriptor.OVERHEAD);
        assertTrue(frames[0].length <= 4 * k + 64 * BLOCKS.size() + FrameDescriptor.OVERHEAD,
                "indices frame of " + frames[0].length + " bytes for " + k + " indices");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("compressors")
    void shouldKeepExactlyWhatItDidNotSendInItsMemory(Compressor c) {
        if (c instanceof DgcCompressor dgc && dgc.momentumFactor() > 0) {
            return; // with momentum the memory is v, checked in shouldAccumulateMomentumLikeDgc
        }
        Object state = newState(c);
        Random random = new Random(2);
        float[] memory = new float[8050];
        for (int step = 0; step < 5; step++) {
            float[] g = gradient(random);
            float[] expected = memory.clone();
            int at = 0;
            for (ParamBlock b : BLOCKS) {
                for (int i = 0; i < b.length(); i++) {
                    expected[at + i] += g[b.offset() + i];
                }
                at += b.length();
            }
            SparseSet sent = step(state, c, g, step);
            at = 0;
            for (int b = 0; b < BLOCKS.size(); b++) {
                SparseVector v = sent.blocks().get(b);
                for (int i = 0; i < v.nnz(); i++) {
                    assertEquals(expected[at + v.indices()[i]], v.values()[i], "sent value = compensated input");
                    expected[at + v.indices()[i]] = 0f;
                }
                at += BLOCKS.get(b).length();
            }
            memory = residual(state);
            assertArrayEquals(expected, memory, "memory = compensated input - sent, step " + step);
        }
    }

    @Test
    void shouldAccumulateMomentumLikeDgc() {
        DgcCompressor dgc = new DgcCompressor(0.01, 0.9, 0, 0);
        GatherCompressor.State state = dgc.newRank(BLOCKS);
        Random random = new Random(3);
        float[] u = new float[8050];
        float[] v = new float[8050];
        for (int step = 0; step < 4; step++) {
            float[] g = gradient(random);
            int at = 0;
            for (ParamBlock b : BLOCKS) {
                for (int i = 0; i < b.length(); i++) {
                    u[at + i] = 0.9f * u[at + i] + g[b.offset() + i];
                    v[at + i] += u[at + i];
                }
                at += b.length();
            }
            SparseSet sent = state.compress(g, step);
            at = 0;
            for (int b = 0; b < BLOCKS.size(); b++) {
                for (int i : sent.blocks().get(b).indices()) {
                    u[at + i] = 0f;
                    v[at + i] = 0f;
                }
                at += BLOCKS.get(b).length();
            }
            assertArrayEquals(v, state.residual(), "step " + step);
        }
    }

    @Test
    void shouldWarmUpDgcSparsityExponentially() {
        DgcCompressor dgc = new DgcCompressor(0.001, 0.9, 0, 400);
        assertEquals(0.25, dgc.density(0));
        assertEquals(0.0625, dgc.density(100));
        assertEquals(0.015625, dgc.density(200));
        assertEquals(0.004, dgc.density(399));
        assertEquals(0.001, dgc.density(400));
    }

    @Test
    void shouldWarmUpTopKSparsityOnDgcsSchedule() {
        TopKCompressor topk = new TopKCompressor(0.001, 400);
        DgcCompressor dgc = new DgcCompressor(0.001, 0.9, 0, 400);
        for (int step : new int[] {0, 99, 100, 250, 399, 400, 1000}) {
            assertEquals(dgc.density(step), topk.density(step), "step " + step);
        }
        assertEquals(0.001, new TopKCompressor(0.001).density(0));
        assertEquals("warmupSteps must be >= 0, found -1", assertThrows(IllegalArgumentException.class,
                () -> new TopKCompressor(0.001, -1)).getMessage());
    }

    @Test
    void shouldRotateTheScaleComLeaderCyclically() {
        ScaleComCompressor s = new ScaleComCompressor(0.001, 1.0);
        assertEquals(List.of(0, 1, 2, 0, 1), Stream.of(0, 1, 2, 3, 4).map(t -> s.leader(t, 3)).toList());
    }

    @Test
    void lgcLeaderShouldBeAFunctionOfSeedAndStepCoveringEveryRank() {
        LgcSupportCompressor a = new LgcSupportCompressor(0.001, 7);
        LgcSupportCompressor b = new LgcSupportCompressor(0.001, 7);
        int[] counts = new int[4];
        for (int t = 0; t < 4000; t++) {
            assertEquals(a.leader(t, 4), b.leader(t, 4));
            counts[a.leader(t, 4)]++;
        }
        for (int c : counts) {
            assertTrue(c > 850 && c < 1150, "leader counts over 4000 steps " + java.util.Arrays.toString(counts));
        }
        assertTrue(Stream.iterate(0, t -> t + 1).limit(50)
                .anyMatch(t -> a.leader(t, 4) != new LgcSupportCompressor(0.001, 8).leader(t, 4)),
                "another seed must draw other leaders");
    }

    /**
     * With a low-pass factor β the LGC memory is ScaleCom's filter: m ← (1−β)m + β(m + g − sent), i.e. on the support
     * (where m + g − sent = 0) it decays to (1−β)m, elsewhere it takes in β·g; β = 1 is plain error feedback.
     */
    @Test
    void lgcLowPassMemoryShouldFilterLikeScaleCom() {
        ParamBlock block = new ParamBlock(0, 1, "fc", "W", 0, 8, new long[] {8}, LayerPolicy.LEARNED);
        float beta = 0.25f;
        SharedSupportCompressor.State state = new LgcSupportCompressor(0.25, 1, beta).newRank(List.of(block));
        float[] g1 = {1, -8, 2, 0, 3, 0, 0, 7};
        state.compensate(g1, 0);
        int[][] support = state.chooseSupport(0);
        assertArrayEquals(new int[] {1, 7}, support[0]);
        assertArrayEquals(new float[] {-8, 7}, state.take(support));
        float[] m1 = state.residual();
        for (int i = 0; i < 8; i++) {
            float expected = i == 1 || i == 7 ? 0 : beta * g1[i]; // m was 0
            assertEquals(expected, m1[i], 1e-7, "position " + i);
        }
        float[] g2 = {0, 1, 0, 0, 0, 0, 0, 0};
        state.compensate(g2, 1);
        int[][] second = state.chooseSupport(1);
        assertArrayEquals(new int[] {1, 4}, second[0]); // |m+g|: 1 at 1, 0.75 at 4, 0.5 at 2, 0.25 at 0
        state.take(second);
        float[] m2 = state.residual();
        for (int i = 0; i < 8; i++) {
            float expected = i == 1 || i == 4 ? (1 - beta) * m1[i] : m1[i] + beta * g2[i];
            assertEquals(expected, m2[i], 1e-7, "position " + i);
        }
    }

    /**
     * Feedback of what a lossy stage lost goes through the same filter: after take and feedBack(lost) the memory on
     * the support is (1−β)m + β(m + g − applied), with applied = sent − lost — and with β = 1 exactly m + g − applied.
     */
    @Test
    void feedbackShouldPassTheLowPassFilterAsIfTheAppliedValueHadBeenSent() {
        ParamBlock block = new ParamBlock(0, 1, "fc", "W", 0, 4, new long[] {4}, LayerPolicy.LEARNED);
        for (float beta : new float[] {1f, 0.1f}) {
            SharedSupportCompressor.State state = new LgcSupportCompressor(0.25, 1, beta).newRank(List.of(block));
            state.compensate(new float[] {0, 0, 1, 4}, 0);
            state.take(state.chooseSupport(0)); // sends 4 at position 3; position 2 keeps β·1
            float m = state.residual()[2];
            assertEquals(beta, m, 1e-7);
            state.compensate(new float[] {0, 0, 2, 0}, 1);
            int[][] support = state.chooseSupport(1);
            assertArrayEquals(new int[] {2}, support[0]);
            float[] sent = state.take(support);
            assertEquals(m + 2, sent[0], 1e-6);
            float applied = 0.5f;
            state.feedBack(support, new float[] {sent[0] - applied});
            float expected = (1 - beta) * m + beta * (m + 2 - applied);
            assertEquals(expected, state.residual()[2], 1e-6, "β = " + beta);
        }
    }

    @Test
    void shouldRejectOutOfRangeSettingsNamingThem() {
        assertEquals("lowPass must be in (0, 1], found 1.5",
                assertThrows(IllegalArgumentException.class, () -> new LgcSupportCompressor(0.01, 1, 1.5))
                        .getMessage());
        assertEquals("ratio must be in (0, 1], found 0.0",
                assertThrows(IllegalArgumentException.class, () -> new TopKCompressor(0)).getMessage());
        assertEquals("momentum must be in [0, 1), found 1.0",
                assertThrows(IllegalArgumentException.class, () -> new DgcCompressor(0.01, 1, 0, 0)).getMessage());
        assertEquals("lowPass must be in (0, 1], found 0.0",
                assertThrows(IllegalArgumentException.class, () -> new ScaleComCompressor(0.01, 0)).getMessage());
    }
}

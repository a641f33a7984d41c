package io.lgc4j.core.compress;

import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.protocol.SparseSet;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.sparse.SparseVector;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.Arguments;

import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link CompressorContract} on every compressor of the core (gather, shared support, seeded support, sketch), in
 * every value encoding; and what each kind does besides: DGC's momentum correction, the sparsity warm-ups, ScaleCom's
 * leader, the settings' ranges.
 */
class CompressorContractTest extends CompressorContract {

    @Override
    protected Stream<Arguments> fp32Subjects() {
        return Stream.of(
                subject(new TopKCompressor(0.01), MemoryRule::errorFeedback),
                subject(new TopKCompressor(0.01, 4), MemoryRule::errorFeedback), // 25%, 6.25%, ... then 1%
                subject(new TopKCompressor(new TopKCompressor.Settings(0.01, 0, 0.03)), MemoryRule::errorFeedback),
                subject(new DgcCompressor(0.01, 0.0, 0, 0), () -> MemoryRule.momentum(0.0f)),
                subject(new DgcCompressor(0.01, 0.9, 0, 0), () -> MemoryRule.momentum(0.9f)),
                subject(new DgcCompressor(0.01, 0.9, 0, 4), () -> MemoryRule.momentum(0.9f)),
                subject(new DgcCompressor(new DgcCompressor.Settings(0.01, 0.9, 0, 4, 0.005)),
                        () -> MemoryRule.momentum(0.9f)),
                subject(new ScaleComCompressor(0.01, 1.0), () -> MemoryRule.lowPass(1.0f)),
                subject(new ScaleComCompressor(0.01, 0.1), () -> MemoryRule.lowPass(0.1f)),
                subject(new ScaleComCompressor(new ScaleComCompressor.Settings(0.01, 0.1, 0.03)),
                        () -> MemoryRule.lowPass(0.1f)),
                subject(new S2SketchCompressor(0.01, 5, 4.0, 8), MemoryRule::errorFeedback),
                subject(new RandomKCompressor(0.01, SEED), MemoryRule::errorFeedback),
                subject(new RandomKCompressor(new RandomKCompressor.Settings(0.01, 0.03), SEED),
                        MemoryRule::errorFeedback),
                subject(new RandomKCompressor(new RandomKCompressor.Settings(0.01, 0.03, 0.1), SEED),
                        () -> MemoryRule.lowPass(0.1f)));
    }

    /**
     * DGC's momentum correction and masking on four elements, by hand (momentum 0.5, one element of four sent per
     * step; every value is a dyadic fraction, so the float arithmetic is exact):
     * <pre>
     * step 0: g = (1, −3, 2, 0.5):  u = g, v = g;                     sends −3 at 1;  v = (1, 0, 2, 0.5), u = v
     * step 1: g = (1, 1, 0, 0):     u = 0.5·u + g = (1.5, 1, 1, 0.25)
     *                               v = v + u = (2.5, 1, 3, 0.75);     sends 3 at 2;   v = (2.5, 1, 0, 0.75)
     * step 2: g = 0:                u = 0.5·(1.5, 1, 0, 0.25) = (0.75, 0.5, 0, 0.125)
     *                               v = (3.25, 1.5, 0, 0.875);        sends 3.25 at 0; v = (0, 1.5, 0, 0.875)
     * </pre>
     * Without masking u where it sent, step 1 would leave v[1] = 0 + 0.5·(−3) + 1 = −0.5 instead of 1.
     */
    @Test
    void dgcShouldCorrectMomentumAndMaskItWhereItSent() {
        ParamBlock block = new ParamBlock(0, 1, "fc", "W", 0, 4, new long[] {4}, LayerPolicy.LEARNED);
        GatherCompressor.State state = new DgcCompressor(0.25, 0.5, 0, 0).newRank(List.of(block));
        assertEquals(new SparseVector(4, new int[] {1}, new float[] {-3}),
                state.compress(new float[] {1, -3, 2, 0.5f}, 0).blocks().get(0));
        assertArrayEquals(new float[] {1, 0, 2, 0.5f}, state.residual());
        assertEquals(new SparseVector(4, new int[] {2}, new float[] {3}),
                state.compress(new float[] {1, 1, 0, 0}, 1).blocks().get(0));
        assertArrayEquals(new float[] {2.5f, 1, 0, 0.75f}, state.residual());
        assertEquals(new SparseVector(4, new int[] {0}, new float[] {3.25f}),
                state.compress(new float[4], 2).blocks().get(0));
        assertArrayEquals(new float[] {0, 1.5f, 0, 0.875f}, state.residual());
    }

    /** Without a learnedRatio every block, LEARNED or TOP_K, follows the one schedule. */
    @Test
    void shouldWarmUpDgcSparsityExponentially() {
        DgcCompressor dgc = new DgcCompressor(0.001, 0.9, 0, 400);
        for (ParamBlock block : BLOCKS) {
            assertEquals(0.25, dgc.density(0, block));
            assertEquals(0.0625, dgc.density(100, block));
            assertEquals(0.015625, dgc.density(200, block));
            assertEquals(0.004, dgc.density(399, block));
            assertEquals(0.001, dgc.density(400, block));
        }
    }

    @Test
    void shouldWarmUpTopKSparsityOnDgcsSchedule() {
        TopKCompressor topk = new TopKCompressor(0.001, 400);
        DgcCompressor dgc = new DgcCompressor(0.001, 0.9, 0, 400);
        for (ParamBlock block : BLOCKS) {
            for (int step : new int[] {0, 99, 100, 250, 399, 400, 1000}) {
                assertEquals(dgc.density(step, block), topk.density(step, block), "step " + step);
            }
            assertEquals(0.001, new TopKCompressor(0.001).density(0, block));
        }
        assertEquals("warmupSteps must be >= 0, found -1", assertThrows(IllegalArgumentException.class,
                () -> new TopKCompressor(0.001, -1)).getMessage());
    }

    /**
     * With a learnedRatio the LEARNED blocks' warm-up is the TOP_K blocks' times learnedRatio / ratio, at most 1; from
     * the end of the warm-up each policy sends exactly its ratio (not ratio × (learnedRatio / ratio), which could
     * round a count up by one).
     */
    @Test
    void shouldWarmUpTheLearnedBlocksInProportionAndEndOnTheirOwnRatio() {
        ParamBlock learned = BLOCKS.get(0);
        ParamBlock topK = BLOCKS.get(2);
        DgcCompressor twice = new DgcCompressor(new DgcCompressor.Settings(0.001, 0.9, 0, 400, 0.002));
        assertEquals(0.25, twice.density(0, topK));
        assertEquals(0.5, twice.density(0, learned));
        assertEquals(0.03125, twice.density(200, learned));
        assertEquals(0.008, twice.density(399, learned));
        assertEquals(0.001, twice.density(400, topK));
        assertEquals(0.002, twice.density(400, learned));
        TopKCompressor eightfold = new TopKCompressor(new TopKCompressor.Settings(0.01, 400, 0.08));
        assertEquals(1.0, eightfold.density(0, learned), "capped at every entry");
        assertEquals(0.5, eightfold.density(100, learned));
        assertEquals(0.08, eightfold.density(400, learned));
        // 0.001 × (0.009 / 0.001) is 0.009000000000000001: 10 entries of a block of 1,000 instead of 9
        TopKCompressor nine = new TopKCompressor(new TopKCompressor.Settings(0.001, 4, 0.009));
        ParamBlock block = new ParamBlock(0, 1, "fc", "W", 0, 1_000, new long[] {1_000}, LayerPolicy.LEARNED);
        assertEquals(9, nine.count(4, block));
    }

    /** Absent, learnedRatio is the ratio: every block's density is the one schedule's, step for step, bit for bit. */
    @Test
    void aCompressorWithoutALearnedRatioShouldSendWhatItSentBefore() {
        List<Compressor> plain = List.of(new TopKCompressor(0.003, 40), new DgcCompressor(0.003, 0.9, 0, 40),
                new ScaleComCompressor(0.003, 0.1), new RandomKCompressor(0.003, 1));
        for (Compressor c : plain) {
            for (int step = 0; step < 60; step++) {
                double schedule = c instanceof ScaleComCompressor || c instanceof RandomKCompressor ? 0.003
                        : SparsityWarmup.density(0.003, 40, step);
                for (ParamBlock block : BLOCKS) {
                    assertEquals(schedule, c.density(step, block), c + ", step " + step + ", " + block);
                }
            }
        }
    }

    @Test
    void shouldRotateTheScaleComLeaderCyclically() {
        ScaleComCompressor s = new ScaleComCompressor(0.001, 1.0);
        assertEquals(List.of(0, 1, 2, 0, 1), Stream.of(0, 1, 2, 3, 4).map(t -> s.leader(t, 3)).toList());
    }

    /**
     * Every state of the project takes a value encoding; a state that does not round what it sends (the interfaces'
     * default) refuses a half-precision one rather than send values its memory does not know of, and a sketch state
     * needs none (S2's counters travel in fp32).
     */
    @Test
    void aStateThatCannotRoundShouldRefuseHalfPrecisionValues() {
        GatherCompressor.State plain = new GatherCompressor.State() {
            @Override
            public SparseSet compress(float[] gradient, int step) {
                return new SparseSet(List.of());
            }

            @Override
            public void tap(OfferTap tap) {
            }

            @Override
            public float[] residual() {
                return new float[0];
            }

            @Override
            public void save(io.lgc4j.core.checkpoint.CheckpointPart.Builder part, String prefix) {
            }

            @Override
            public void restore(io.lgc4j.core.checkpoint.CheckpointPart part, String prefix) {
            }
        };
        plain.values(ValueEncoding.FP32);
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                () -> plain.values(ValueEncoding.BF16));
        assertTrue(e.getMessage().endsWith(" cannot send bf16 values: it does not round what it sends to what the"
                + " receivers decode, so its memory would lose the rounding; use compressor.values fp32, or override"
                + " values(ValueEncoding)"), e.getMessage());
        for (Arguments a : fp32Subjects().toList()) {
            Compressor c = ((Subject) a.get()[0]).compressor();
            for (ValueEncoding values : ValueEncoding.values()) {
                RankState.of(c, BLOCKS).values(values); // no kind of the project refuses
            }
        }
    }

    @Test
    void shouldRejectOutOfRangeSettingsNamingThem() {
        assertEquals("ratio must be > 0, found 0.0",
                assertThrows(IllegalArgumentException.class, () -> new TopKCompressor(0)).getMessage());
        assertEquals("momentum must be in [0, 1), found 1.0",
                assertThrows(IllegalArgumentException.class, () -> new DgcCompressor(0.01, 1, 0, 0)).getMessage());
        assertEquals("lowPass must be > 0, found 0.0",
                assertThrows(IllegalArgumentException.class, () -> new ScaleComCompressor(0.01, 0)).getMessage());
    }
}

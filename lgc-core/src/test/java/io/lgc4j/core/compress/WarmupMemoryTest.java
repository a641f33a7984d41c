package io.lgc4j.core.compress;

import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.protocol.SparseSet;
import io.lgc4j.core.sparse.SparseVector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code warmup.carryMemory}, pinned at the states: a warm-up compressor's residual after some steps, absorbed by a
 * fresh main state of any kind that keeps error feedback, is exactly that state's memory (and is what its next step
 * compensates with); a state without memory drops it.
 */
class WarmupMemoryTest {
    private static final List<ParamBlock> BLOCKS = List.of(
            new ParamBlock(0, 1, "mid", "W", 10, 300, new long[] {20, 15}, LayerPolicy.LEARNED),
            new ParamBlock(1, 2, "out", "W", 310, 120, new long[] {12, 10}, LayerPolicy.TOP_K));
    private static final int FLAT = 430;
    private static final int REGION = 420;

    static Stream<Arguments> mains() {
        return Stream.of(Arguments.of(new TopKCompressor(0.05)), Arguments.of(new DgcCompressor(0.05, 0.9, 0, 0)),
                Arguments.of(new ScaleComCompressor(0.05, 0.1)), Arguments.of(new RandomKCompressor(0.05, 3)),
                Arguments.of(new S2SketchCompressor(0.05, 5, 4.0, 8)),
                Arguments.of(new PowerSgdCompressor(new PowerSgdCompressor.Settings(1), 3)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("mains")
    void shouldHoldTheWarmupsResidualExactlyAfterAbsorbingIt(Compressor main) {
        float[] residual = warmupResidual();
        assertTrue(nonZero(residual) > 0, "the warm-up left something behind");
        RankState state = RankState.of(main, BLOCKS);
        assertTrue(state.absorb(residual), main + " keeps a memory");
        assertArrayEquals(residual, state.state().residual(), main + ": memory = the warm-up's residual");
    }

    /** The next step compensates with it: top-k's selection from c = m + 0 is the residual's largest entries. */
    @Test
    void shouldSelectFromTheAbsorbedResidualInTheNextStep() {
        float[] residual = warmupResidual();
        GatherCompressor.State main = new TopKCompressor(0.05).newRank(BLOCKS);
        main.absorb(residual);
        SparseSet sent = main.compress(new float[FLAT], 0);
        float[] after = main.residual();
        int at = 0;
        for (int b = 0; b < BLOCKS.size(); b++) {
            SparseVector v = sent.blocks().get(b);
            for (int j = 0; j < v.nnz(); j++) {
                assertEquals(residual[at + v.indices()[j]], v.values()[j], "block " + b + ", sent entry " + j);
                assertEquals(0f, after[at + v.indices()[j]], "block " + b + ": sent, so out of the memory");
            }
            at += BLOCKS.get(b).length();
        }
    }

    @Test
    void powerSgdWithoutErrorFeedbackShouldDropTheResidual() {
        RankState state = RankState.of(new PowerSgdCompressor(new PowerSgdCompressor.Settings(1, 0, true, false), 3),
                BLOCKS);
        assertFalse(state.absorb(warmupResidual()));
        assertEquals(0, nonZero(state.state().residual()));
    }

    /** Three steps of a PowerSGD rank-1 warm-up on one rank (its own mean): what they did not apply. */
    private static float[] warmupResidual() {
        LowRankCompressor.State warm = new PowerSgdCompressor(new PowerSgdCompressor.Settings(1), 3).newRank(BLOCKS);
        Random random = new Random(5);
        for (int step = 0; step < 3; step++) {
            float[] gradient = new float[FLAT];
            for (int i = 0; i < FLAT; i++) {
                gradient[i] = (float) random.nextGaussian();
            }
            float[] p = warm.project(gradient, step);
            float[] q = warm.back(p, step);
            warm.finish(q, step, gradient);
        }
        float[] residual = warm.residual();
        assertEquals(REGION, residual.length);
        return residual;
    }

    private static int nonZero(float[] v) {
        int n = 0;
        for (float x : v) {
            n += x != 0f ? 1 : 0;
        }
        return n;
    }
}

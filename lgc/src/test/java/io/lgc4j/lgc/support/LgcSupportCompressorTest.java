package io.lgc4j.lgc.support;

import io.lgc4j.core.compress.CompressorContract;
import io.lgc4j.core.compress.SharedSupportCompressor;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.settings.SettingsException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.Arguments;

import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * LGC's support under every compressor's contract ({@link CompressorContract}: its payload is exactly its selection
 * of its compensated input, its memory moves by the low-pass rule bit for bit, in fp32, fp16 and bf16); its leader,
 * its memory's filter and feedback by hand, its settings. Its memory is the core's
 * {@link SharedSupportCompressor#lowPassMemory}, whose checkpoint layout the core's {@code CompressorStateGoldenTest}
 * pins ({@code scalecom-lowpass-0.3}: the lines LGC's support had there, the same bits).
 */
class LgcSupportCompressorTest extends CompressorContract {

    @Override
    protected Stream<Arguments> fp32Subjects() {
        return Stream.of(
                subject(new LgcSupportCompressor(0.01, 42), () -> MemoryRule.lowPass(1.0f)),
                subject(new LgcSupportCompressor(0.01, 42, 0.1), () -> MemoryRule.lowPass(0.1f)));
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
        assertEquals("lowPass must be <= 1.0, found 1.5",
                assertThrows(IllegalArgumentException.class, () -> new LgcSupportCompressor(0.01, 1, 1.5))
                        .getMessage());
        SettingsException e = assertThrows(SettingsException.class, () -> new LgcSupportCompressor.Settings(0.1, 1, 0));
        assertEquals("lowPass", e.key());
        assertEquals("lowPass must be > 0, found 0.0", e.getMessage());
    }

    @Test
    void shouldKeepTheSettingsItWasBuiltWith() {
        assertEquals(new LgcSupportCompressor.Settings(0.01, 42, 0.1), new LgcSupportCompressor(0.01, 42, 0.1)
                .settings());
    }
}

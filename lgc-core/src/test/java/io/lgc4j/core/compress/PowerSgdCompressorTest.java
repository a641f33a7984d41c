package io.lgc4j.core.compress;

import io.lgc4j.core.comm.FrameDescriptor;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.settings.SettingsException;
import io.lgc4j.core.protocol.Values;
import io.lgc4j.core.protocol.LowRankPlan;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.comm.StepTag;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.lossfunctions.LossFunctions;

import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The low-rank kind's contract, on PowerSGD: K ranks driven as a topology drives them (each round's payloads averaged
 * in rank order, the same mean handed to every rank) write the same bits on every rank; at full rank they apply the
 * ranks' mean; the memory is exactly the compensated input minus what was applied, so what was applied plus the
 * memory adds up to the gradients; each round's payload has the plan's length and 4 bytes a float on the wire; the
 * same seed gives the same bits; bad settings and misuse are refused with their messages.
 */
class PowerSgdCompressorTest {
    /** LeNet-5's compressible blocks as DL4J lays them out (conv1 is DENSE and never reaches the compressor). */
    private static final List<ParamBlock> LENET = List.of(
            block(0, "conv2", "W", 0, new long[] {50, 20, 5, 5}, LayerPolicy.LEARNED),
            block(1, "conv2", "b", 25_000, new long[] {1, 50}, LayerPolicy.LEARNED),
            block(2, "fc1", "W", 25_050, new long[] {800, 500}, LayerPolicy.LEARNED),
            block(3, "fc1", "b", 425_050, new long[] {1, 500}, LayerPolicy.LEARNED),
            block(4, "output", "W", 425_550, new long[] {500, 10}, LayerPolicy.TOP_K),
            block(5, "output", "b", 430_550, new long[] {1, 10}, LayerPolicy.TOP_K));
    /** A small layout: a 6 × 8 matrix (stored [8, 6], DL4J's dense W), its bias, a 4 × 3 × 2 × 2 kernel. */
    private static final List<ParamBlock> SMALL = List.of(
            block(0, "fc", "W", 0, new long[] {8, 6}, LayerPolicy.LEARNED),
            block(1, "fc", "b", 48, new long[] {1, 6}, LayerPolicy.LEARNED),
            block(2, "conv", "W", 54, new long[] {4, 3, 2, 2}, LayerPolicy.TOP_K));
    private static final int SMALL_FLAT = 54 + 48;
    private static final int K = 3;

    private static ParamBlock block(int index, String layer, String param, int offset, long[] shape,
                                    LayerPolicy policy) {
        long n = 1;
        for (long d : shape) {
            n *= d;
        }
        return new ParamBlock(index, index / 2, layer, param, offset, (int) n, shape, policy);
    }

    /**
     * The plan of LeNet-5's compressible blocks is PyTorch's for the same tensors (the peer's {@code payload_bytes}):
     * at rank 2, conv2 50 × 500 and fc1 500 × 800 and output 10 × 500 factored, the biases plain.
     */
    @Test
    void shouldPlanLenetAsPytorchDoes() {
        LowRankPlan plan = new PowerSgdCompressor(new PowerSgdCompressor.Settings(2), 1).plan(LENET);
        assertEquals(List.of(50, 50, 500, 500, 10, 10),
                plan.entries().stream().map(LowRankPlan.Entry::rows).toList());
        assertEquals(List.of(500, 1, 800, 1, 500, 1),
                plan.entries().stream().map(LowRankPlan.Entry::cols).toList());
        assertEquals(List.of(2, 0, 2, 0, 2, 0), plan.entries().stream().map(LowRankPlan.Entry::rank).toList());
        assertEquals(2 * (50 + 500 + 10), plan.pLength());
        assertEquals(2 * (500 + 800 + 500), plan.qLength());
        assertEquals(50 + 500 + 10, plan.plainLength());
        // payload order: the Ps in block order, then the plain blocks
        assertEquals(List.of(0, 1120, 100, 1170, 1100, 1670),
                plan.entries().stream().map(LowRankPlan.Entry::first).toList());
        // rank 64: conv2 (clamped to 50: 550 · 50 · 2 >= 25,000) and output (clamped to 10: 510 · 10 · 2 >= 5,000)
        // no longer save 2× and go plain
        LowRankPlan wide = new PowerSgdCompressor(new PowerSgdCompressor.Settings(64), 1).plan(LENET);
        assertEquals(List.of(0, 0, 64, 0, 0, 0), wide.entries().stream().map(LowRankPlan.Entry::rank).toList());
    }

    /**
     * DL4J stores a dense layer's W ([in, out]) in Fortran order and a convolution's ([out, in, kh, kw]) in C order:
     * the flat block read row-major is then [out, in] and [out, in·kh·kw], the views {@link LowRankPlan} assumes.
     */
    @Test
    void matrixViewShouldPutOneOutputUnitPerRowOfDl4jsFlatParameters() {
        MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder().seed(1).dataType(DataType.FLOAT).list()
                .layer(new ConvolutionLayer.Builder(2, 2).nOut(3).build())
                .layer(new DenseLayer.Builder().nOut(4).build())
                .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nOut(2).build())
                .setInputType(InputType.convolutionalFlat(4, 4, 2)).build();
        MultiLayerNetwork net = new MultiLayerNetwork(conf);
        net.init();
        INDArray flat = net.params();
        GradientLayout layout = GradientLayout.of(net);
        ParamBlock convBlock = block(layout, "W", 0);
        ParamBlock denseBlock = block(layout, "W", 1);
        INDArray conv = net.getParam("0_W"); // [out 3, in 2, kh 2, kw 2]
        for (int o = 0; o < 3; o++) {
            for (int c = 0; c < 8; c++) {
                assertEquals(conv.getFloat(o, c / 4, (c / 2) % 2, c % 2),
                        flat.getFloat(convBlock.offset() + o * 8L + c), "conv W[" + o + ", " + c + "]");
            }
        }
        INDArray dense = net.getParam("1_W"); // [in = 3·3·3 = 27, out = 4]
        long in = dense.size(0);
        for (int o = 0; o < 4; o++) {
            for (int i = 0; i < in; i++) {
                assertEquals(dense.getFloat(i, o), flat.getFloat(denseBlock.offset() + o * in + i),
                        "dense W[" + i + ", " + o + "]");
            }
        }
        assertEquals(3, LowRankPlan.rows(convBlock));
        assertEquals(8, LowRankPlan.cols(convBlock));
        assertEquals(4, LowRankPlan.rows(denseBlock));
        assertEquals(in, LowRankPlan.cols(denseBlock));
    }

    private static ParamBlock block(GradientLayout layout, String param, int layer) {
        return layout.blocks().stream().filter(b -> b.layerIndex() == layer && b.paramName().equals(param))
                .findFirst().orElseThrow();
    }

    @Test
    void atFullRankShouldApplyTheRanksMean() {
        PowerSgdCompressor full = new PowerSgdCompressor(new PowerSgdCompressor.Settings(6, 0, true, true), 9);
        Ranks ranks = new Ranks(full, SMALL);
        Random random = new Random(3);
        for (int step = 0; step < 4; step++) {
            float[][] g = gradients(random);
            float[] mean = mean(g);
            float[][] out = ranks.step(g, step);
            for (ParamBlock b : SMALL) {
                for (int i = b.offset(); i < b.end(); i++) {
                    assertEquals(mean[i], out[0][i], 2e-5f, "step " + step + ", " + b.qualifiedName() + " element "
                            + i);
                }
            }
        }
    }

    /**
     * Memory = compensated − applied, exactly, element by element; so Σ applied + memory = Σ gradients on every rank
     * (within the rounding of the sums); the plain block keeps no memory and gets the ranks' exact mean.
     */
    @Test
    void memoryShouldBeCompensatedMinusAppliedSoNothingIsLost() {
        PowerSgdCompressor psgd = new PowerSgdCompressor(new PowerSgdCompressor.Settings(1), 5);
        Ranks ranks = new Ranks(psgd, SMALL);
        Random random = new Random(4);
        double[][] appliedSum = new double[K][SMALL_FLAT];
        double[][] gradientSum = new double[K][SMALL_FLAT];
        float[][] memory = new float[K][];
        for (int r = 0; r < K; r++) {
            memory[r] = ranks.states[r].residual();
        }
        for (int step = 0; step < 20; step++) {
            float[][] g = gradients(random);
            float[] mean = mean(g);
            float[][] out = ranks.step(g, step);
            for (int r = 0; r < K; r++) {
                float[] after = ranks.states[r].residual();
                int at = 0;
                for (ParamBlock b : SMALL) {
                    for (int i = 0; i < b.length(); i++) {
                        int e = b.offset() + i;
                        float compensated = memory[r][at + i] + g[r][e];
                        boolean plain = b.paramName().equals("b");
                        assertEquals(plain ? 0f : compensated - out[r][e], after[at + i],
                                "step " + step + ", rank " + r + ", " + b.qualifiedName() + " element " + i);
                        if (plain) {
                            assertEquals(mean[e], out[r][e], "plain block: the exact mean");
                        }
                        appliedSum[r][e] += out[r][e];
                        gradientSum[r][e] += g[r][e];
                    }
                    at += b.length();
                }
                memory[r] = after;
            }
        }
        for (int r = 0; r < K; r++) {
            int at = 0;
            for (ParamBlock b : SMALL) {
                if (!b.paramName().equals("b")) {
                    for (int i = 0; i < b.length(); i++) {
                        int e = b.offset() + i;
                        assertEquals(gradientSum[r][e], appliedSum[r][e] + memory[r][at + i], 1e-4,
                                "rank " + r + ", " + b.qualifiedName() + " element " + i);
                    }
                }
                at += b.length();
            }
        }
    }

    /** Every rank writes the same bits; a second run with the same seed writes them again; another seed does not. */
    @Test
    void ranksShouldAgreeBitForBitAndRunsShouldRepeat() {
        float[][][] g = new float[5][][];
        Random random = new Random(6);
        for (int s = 0; s < g.length; s++) {
            g[s] = gradients(random);
        }
        float[][] first = run(new PowerSgdCompressor(new PowerSgdCompressor.Settings(1), 7), g);
        float[][] again = run(new PowerSgdCompressor(new PowerSgdCompressor.Settings(1), 7), g);
        float[][] other = run(new PowerSgdCompressor(new PowerSgdCompressor.Settings(1), 8), g);
        for (int r = 1; r < K; r++) {
            assertArrayEquals(first[0], first[r], "rank " + r);
        }
        assertArrayEquals(first[0], again[0]);
        assertFalse(java.util.Arrays.equals(first[0], other[0]), "another seed draws another first Q");
    }

    /** Without warm start every step draws a fresh Q; the first step is the same either way. */
    @Test
    void warmStartShouldReuseTheMeanQ() {
        float[][][] g = new float[3][][];
        Random random = new Random(10);
        for (int s = 0; s < g.length; s++) {
            g[s] = gradients(random);
        }
        Ranks warm = new Ranks(new PowerSgdCompressor(new PowerSgdCompressor.Settings(1, 2, true, true), 3), SMALL);
        Ranks cold = new Ranks(new PowerSgdCompressor(new PowerSgdCompressor.Settings(1, 2, false, true), 3), SMALL);
        float[][] w = null;
        float[][] c = null;
        for (int s = 0; s < g.length; s++) {
            w = warm.step(g[s], s);
            c = cold.step(g[s], s);
            if (s == 0) {
                assertArrayEquals(w[0], c[0], "step 0: the same drawn Q");
            }
        }
        assertFalse(java.util.Arrays.equals(w[0], c[0]), "step 2: warm start differs from a fresh Q");
    }

    /** Each round's payload is the plan's length; on the wire 4 bytes a float and one frame's overhead. */
    @Test
    void payloadsShouldHaveThePlansLengthAndFourBytesAFloat() {
        // at rank 2 neither block saves 2×: fc 6 × 8, (6 + 8) · 2 · 2 = 56 >= 48; conv 4 × 12, 16 · 2 · 2 = 64 >= 48
        assertThrows(SettingsException.class, () -> new PowerSgdCompressor(new PowerSgdCompressor.Settings(2),
                1).newRank(SMALL), "neither block saves 2× at rank 2");
        PowerSgdCompressor one = new PowerSgdCompressor(new PowerSgdCompressor.Settings(1), 1);
        LowRankPlan plan = one.plan(SMALL);
        assertEquals(List.of(1, 0, 1), plan.entries().stream().map(LowRankPlan.Entry::rank).toList());
        assertEquals(6 + 4, plan.pLength());
        assertEquals(8 + 12, plan.qLength());
        assertEquals(6, plan.plainLength());
        LowRankCompressor.State rank = one.newRank(SMALL);
        float[] g = gradients(new Random(1))[0];
        float[] first = rank.project(g, 0);
        assertEquals(plan.firstLength(), first.length);
        float[] second = rank.back(first, 0);
        assertEquals(plan.secondLength(), second.length);
        StepTag tag = new StepTag(0, Stage.TOP_K);
        assertEquals(4 * first.length + FrameDescriptor.OVERHEAD, new Values(first).encode(tag).length);
        assertEquals(4 * second.length + FrameDescriptor.OVERHEAD, new Values(second).encode(tag).length);
        float[] before = g.clone();
        rank.finish(second, 0, new float[SMALL_FLAT]);
        assertArrayEquals(before, g, "the gradient read is left as it was");
        assertEquals(plan.entry(0).density(), one.density(0, SMALL.get(0)));
        assertEquals(1.0, one.density(0, SMALL.get(1)));
        assertEquals((6 + 8) / 48.0, one.density(0, SMALL.get(0)), 1e-12);
    }

    @Test
    void shouldRefuseBadSettingsWithTheirMessages() {
        assertEquals("rank must be >= 1, found 0", assertThrows(SettingsException.class,
                () -> new PowerSgdCompressor.Settings(0)).getMessage());
        assertEquals("minCompressionRate must be finite and >= 0, found -1.0", assertThrows(SettingsException.class,
                () -> new PowerSgdCompressor.Settings(1, -1, true, true)).getMessage());
        assertEquals("rank must be at most the smaller side of the largest matrix, fc1/W (500 × 800): at most 500, "
                + "found 501", assertThrows(SettingsException.class, () -> new PowerSgdCompressor(
                        new PowerSgdCompressor.Settings(501, 0, true, true), 1).plan(LENET)).getMessage());
        assertEquals("rank factors none of the blocks [fc/W 6 × 8, fc/b 6 × 1, conv/W 4 × 12] at rank 2: a rows × "
                + "cols block is factored only when (rows + cols) · rank · minCompressionRate (2.0) < rows · cols",
                assertThrows(SettingsException.class, () -> new PowerSgdCompressor(new PowerSgdCompressor.Settings(2),
                        1).plan(SMALL)).getMessage());
    }

    /**
     * A step taken block range by block range (as a ring beside the backward pass takes it: the last blocks first)
     * gives every payload and the gradient the whole step's bits, step after step with memory and warm start; the
     * plan's spans tile each payload.
     */
    @Test
    void shouldGiveTheWholeStepsBitsRangeByRange() {
        PowerSgdCompressor psgd = new PowerSgdCompressor(new PowerSgdCompressor.Settings(2, 0, true, true), 5);
        LowRankCompressor.State whole = psgd.newRank(SMALL);
        LowRankCompressor.State ranged = psgd.newRank(SMALL);
        LowRankPlan plan = whole.plan();
        int[][] ranges = {{2, 3}, {0, 2}};
        // fc 6 × 8 (P 0..12, Q 0..16), its bias plain (20..26), conv 4 × 12 (P 12..20, Q 16..40)
        assertEquals(new LowRankPlan.Span(12, 20, 0, 0, 16, 40), plan.span(2, 3));
        assertEquals(new LowRankPlan.Span(0, 12, 20, 26, 0, 16), plan.span(0, 2));
        assertEquals(new LowRankPlan.Span(0, 0, 20, 26, 0, 0), plan.span(1, 2));
        Random random = new Random(3);
        for (int step = 0; step < 4; step++) {
            float[] g = new float[SMALL_FLAT];
            for (int i = 0; i < g.length; i++) {
                g[i] = (float) random.nextGaussian();
            }
            float[] expected = g.clone();
            float[] p = whole.project(expected, step);
            float[] q = whole.back(p, step);
            whole.finish(q, step, expected);
            float[] actual = g.clone();
            float[] first = new float[plan.firstLength()];
            float[] second = new float[plan.secondLength()];
            for (int[] r : ranges) {
                ranged.project(actual, step, r[0], r[1], first);
                ranged.back(first, step, r[0], r[1], second);
                ranged.finish(second, step, r[0], r[1], actual);
            }
            assertArrayEquals(p, first, "first payload, step " + step);
            assertArrayEquals(q, second, "second payload, step " + step);
            assertArrayEquals(expected, actual, "gradient, step " + step);
            assertArrayEquals(whole.residual(), ranged.residual(), "memory, step " + step);
        }
        ranged.project(new float[SMALL_FLAT], 4, 2, 3, new float[plan.firstLength()]);
        assertEquals("PowerSGD rank state: back(step 4) of block 0 (blocks 0..2) called while step 4 waits for "
                + "project: each step calls project, back, finish in that order", assertThrows(
                        IllegalStateException.class, () -> ranged.back(new float[plan.firstLength()], 4, 0, 2,
                                new float[plan.secondLength()])).getMessage());
        assertEquals("PowerSGD rank state: project(step 5) of block 0 (blocks 0..2) called while step 4 waits for "
                + "project: each step calls project, back, finish in that order", assertThrows(
                        IllegalStateException.class, () -> ranged.project(new float[SMALL_FLAT], 5, 0, 2,
                                new float[plan.firstLength()])).getMessage());
    }

    @Test
    void shouldRefuseRoundsOutOfOrder() {
        LowRankCompressor.State rank = new PowerSgdCompressor(new PowerSgdCompressor.Settings(1), 1).newRank(SMALL);
        float[] g = new float[SMALL_FLAT];
        assertEquals("PowerSGD rank state: back(step 0) called while no step is open: each step calls project, back, "
                + "finish in that order", assertThrows(IllegalStateException.class,
                        () -> rank.back(new float[16], 0)).getMessage());
        float[] first = rank.project(g, 0);
        assertEquals("PowerSGD rank state: project(step 1) called while step 0 waits for back: each step calls "
                + "project, back, finish in that order", assertThrows(IllegalStateException.class,
                        () -> rank.project(g, 1)).getMessage());
        assertEquals("expected a first payload of 16 floats, found 3", assertThrows(IllegalArgumentException.class,
                () -> rank.back(new float[3], 0)).getMessage());
        rank.back(first, 0);
    }

    /** A zero gradient leaves P's column at zero (PyTorch's epsilon-free Gram–Schmidt would divide by zero). */
    @Test
    void aZeroGradientShouldApplyZeroNotNaN() {
        Ranks ranks = new Ranks(new PowerSgdCompressor(new PowerSgdCompressor.Settings(1), 2), SMALL);
        float[][] out = ranks.step(new float[K][SMALL_FLAT], 0);
        for (float v : out[0]) {
            assertEquals(0f, v);
        }
    }

    /**
     * The products, arranged for the JIT, give the bits of the plain triple loops that define them (double sums in
     * the defining order), for every rank r and odd shapes, from offsets inside larger arrays.
     */
    @Test
    void theProductsShouldGiveTheBitsOfThePlainLoops() {
        Random random = new Random(5);
        for (int r = 1; r <= 5; r++) {
            for (int[] shape : new int[][] {{7, 3}, {33, 65}, {500, 20}}) {
                int rows = shape[0];
                int cols = shape[1];
                int start = 3;
                float[] m = gaussian(random, start + rows * cols);
                float[] q = gaussian(random, cols * r);
                float[] p = gaussian(random, 2 + rows * r);
                String at = "r " + r + ", " + rows + " × " + cols;

                float[] expectedP = new float[1 + rows * r];
                for (int i = 0; i < rows; i++) {
                    for (int j = 0; j < r; j++) {
                        double sum = 0;
                        for (int c = 0; c < cols; c++) {
                            sum += (double) m[start + i * cols + c] * q[c * r + j];
                        }
                        expectedP[1 + i * r + j] = (float) sum;
                    }
                }
                float[] actualP = new float[1 + rows * r];
                PowerSgdCompressor.multiply(m, start, rows, cols, q, r, actualP, 1);
                assertArrayEquals(expectedP, actualP, "P = M·Q, " + at);

                float[] expectedQ = new float[cols * r];
                for (int c = 0; c < cols; c++) {
                    for (int j = 0; j < r; j++) {
                        double sum = 0;
                        for (int i = 0; i < rows; i++) {
                            sum += (double) m[start + i * cols + c] * p[2 + i * r + j];
                        }
                        expectedQ[c * r + j] = (float) sum;
                    }
                }
                float[] actualQ = new float[cols * r];
                PowerSgdCompressor.multiplyTransposed(m, start, rows, cols, p, 2, r, actualQ, 0);
                assertArrayEquals(expectedQ, actualQ, "Q = Mᵀ·P, " + at);

                for (boolean feedback : new boolean[] {true, false}) {
                    float[] expectedG = new float[4 + rows * cols];
                    float[] expectedM = m.clone();
                    for (int i = 0; i < rows; i++) {
                        for (int c = 0; c < cols; c++) {
                            double sum = 0;
                            for (int j = 0; j < r; j++) {
                                sum += (double) p[2 + i * r + j] * q[c * r + j];
                            }
                            float applied = (float) sum;
                            expectedG[4 + i * cols + c] = applied;
                            int k = start + i * cols + c;
                            expectedM[k] = feedback ? expectedM[k] - applied : 0f;
                        }
                    }
                    float[] actualG = new float[4 + rows * cols];
                    float[] actualM = m.clone();
                    PowerSgdCompressor.apply(p, 2, q, rows, cols, r, actualG, 4, actualM, start, feedback);
                    assertArrayEquals(expectedG, actualG, "applied = P·Qᵀ, " + at);
                    assertArrayEquals(expectedM, actualM, "memory, " + at + ", error feedback " + feedback);
                }
            }
        }
    }

    private static float[] gaussian(Random random, int n) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = (float) random.nextGaussian();
        }
        return a;
    }

    @Test
    void orthonormalizeShouldMakeOrthonormalColumns() {
        Random random = new Random(12);
        float[] m = new float[40 * 3];
        for (int i = 0; i < m.length; i++) {
            m[i] = (float) random.nextGaussian();
        }
        PowerSgdCompressor.orthonormalize(m, 0, 40, 3);
        for (int a = 0; a < 3; a++) {
            for (int b = 0; b < 3; b++) {
                double dot = 0;
                for (int i = 0; i < 40; i++) {
                    dot += (double) m[i * 3 + a] * m[i * 3 + b];
                }
                assertEquals(a == b ? 1 : 0, dot, 1e-5, "columns " + a + ", " + b);
            }
        }
    }

    /** K ranks of one compressor; each round's mean computed in rank order, as the parameter server does. */
    private static final class Ranks {
        final LowRankCompressor.State[] states = new LowRankCompressor.State[K];

        Ranks(LowRankCompressor compressor, List<ParamBlock> blocks) {
            for (int r = 0; r < K; r++) {
                states[r] = compressor.newRank(blocks);
            }
        }

        /** One step: every rank's gradient after the step (only the blocks' elements are written). */
        float[][] step(float[][] gradients, int step) {
            float[][] first = new float[K][];
            for (int r = 0; r < K; r++) {
                first[r] = states[r].project(gradients[r], step);
            }
            float[] firstMean = mean(first);
            float[][] second = new float[K][];
            for (int r = 0; r < K; r++) {
                second[r] = states[r].back(firstMean, step);
            }
            float[] secondMean = mean(second);
            float[][] out = new float[K][];
            for (int r = 0; r < K; r++) {
                out[r] = gradients[r].clone();
                states[r].finish(secondMean, step, out[r]);
            }
            return out;
        }
    }

    private static float[][] run(LowRankCompressor compressor, float[][][] g) {
        Ranks ranks = new Ranks(compressor, SMALL);
        float[][] out = null;
        for (int s = 0; s < g.length; s++) {
            out = ranks.step(g[s], s);
        }
        return out;
    }

    private static float[][] gradients(Random random) {
        float[][] g = new float[K][SMALL_FLAT];
        for (float[] rank : g) {
            for (int i = 0; i < rank.length; i++) {
                rank[i] = (float) random.nextGaussian();
            }
        }
        return g;
    }

    /** The element-wise mean in rank order: sum as floats, then divide by the count (as {@code Averages}). */
    private static float[] mean(float[][] rows) {
        float[] sum = new float[rows[0].length];
        for (float[] row : rows) {
            for (int i = 0; i < sum.length; i++) {
                sum[i] += row[i];
            }
        }
        for (int i = 0; i < sum.length; i++) {
            sum[i] /= rows.length;
        }
        return sum;
    }
}

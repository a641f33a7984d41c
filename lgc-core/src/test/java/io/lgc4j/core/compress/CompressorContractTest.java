package io.lgc4j.core.compress;

import io.lgc4j.core.codec.IndexCodecs;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.comm.FrameDescriptor;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.protocol.Sketch;
import io.lgc4j.core.protocol.SparseFrames;
import io.lgc4j.core.protocol.SparseSet;
import io.lgc4j.core.protocol.Values;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.sparse.SparseVector;
import io.lgc4j.core.sparse.TopK;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.comm.StepTag;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What every compressor keeps, whatever its kind (gather, shared support, seeded support, sketch), checked on every
 * compressor of the project: each step its payload carries exactly its selection of its compensated input — the
 * top-k by magnitude, or for a seeded support (random-k) the entries at the support every rank draws — with the
 * values bit for bit and each block's count of its policy's ratio ({@code learnedRatio} for a LEARNED block), and its
 * memory moves exactly as its rule says, element by element; the payload survives the wire within a bound on its
 * bytes (a seeded support's payload is its values alone: 4 bytes each, no index); two ranks with the same settings
 * and seed, fed the same gradients, send the same bytes and keep the same memory; the gradient it reads is left as it
 * was. Every compressor with memory runs it in each value encoding: in fp16 and bf16 "sent" is what the receiver
 * decodes — the selection rounded as the one frame it travels in — and the memory keeps exactly c − sent, the
 * rounding included (S2's counters always travel in fp32, so it runs in fp32 only).
 *
 * <p>The memory rules, with c the compensated input, S the positions sent (the selection in each block) and sent the
 * values decoded there:
 * <ul>
 *   <li>error feedback (Sparse GD, S2): c = m + g; m' = c − sent, i.e. c − sent on S (0 in fp32) and c elsewhere;</li>
 *   <li>low-pass β (ScaleCom, the LGC support; β = 1 is error feedback): c = m + g;
 *       m' = (1−β)·m + β·(c − sent), i.e. (1−β)·m + β·(c − sent) on S and (1−β)·m + β·c elsewhere;</li>
 *   <li>DGC's momentum correction with factor μ: u ← μ·u + g; c = v + u; v' = c − sent (c − sent on S, c elsewhere), and
 *       momentum-factor masking u' = 0 on S. The memory {@code residual()} shows is v; u is not observable, so the
 *       test carries it from the positions it saw sent: a u that was not masked, or not kept, shows in the next
 *       step's c (what is sent) and v. With μ = 0 this is error feedback.</li>
 * </ul>
 * The test computes c and the memory with the same float operations in the same order as the rule, so every
 * comparison is exact.
 *
 * <p>The low-rank kind (PowerSGD) selects nothing: its update covers every element, so its contract — full rank gives
 * the ranks' mean, memory = compensated − applied exactly, the payloads' lengths and bytes, the same bits on every rank
 * and run — is {@link PowerSgdCompressorTest}.
 */
class CompressorContractTest {
    private static final List<ParamBlock> BLOCKS = List.of(
            new ParamBlock(0, 1, "conv2", "W", 100, 5000, new long[] {5000}, LayerPolicy.LEARNED),
            new ParamBlock(1, 1, "conv2", "b", 5100, 50, new long[] {50}, LayerPolicy.LEARNED),
            new ParamBlock(2, 2, "out", "W", 5150, 3000, new long[] {3000}, LayerPolicy.TOP_K));
    private static final int FLAT = 8150;
    /** The compressible region: the three blocks end to end. */
    private static final int REGION = 8050;
    /** The hash seed every S2 rank of a run shares. */
    private static final long SEED = 0x5EED5EEDL;

    /** A compressor under the contract, the rule its memory follows, and the encoding its values travel in. */
    record Subject(Compressor compressor, Supplier<MemoryRule> rule, ValueEncoding values) {
        @Override
        public String toString() {
            return compressor + (values == ValueEncoding.FP32 ? "" : ", " + values);
        }
    }

    /** Every subject in fp32; every one but S2 also in fp16 and bf16. */
    static Stream<Arguments> compressors() {
        List<Subject> fp32 = fp32Subjects().map(a -> (Subject) a.get()[0]).toList();
        Stream<Subject> half = Stream.of(ValueEncoding.FP16, ValueEncoding.BF16).flatMap(e -> fp32.stream()
                .filter(s -> !(s.compressor() instanceof SketchCompressor))
                .map(s -> new Subject(s.compressor(), s.rule(), e)));
        return Stream.concat(fp32.stream(), half).map(Arguments::of);
    }

    static Stream<Arguments> fp32Subjects() {
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
                subject(new LgcSupportCompressor(0.01, 42), () -> MemoryRule.lowPass(1.0f)),
                subject(new LgcSupportCompressor(0.01, 42, 0.1), () -> MemoryRule.lowPass(0.1f)),
                subject(new S2SketchCompressor(0.01, 5, 4.0, 8), MemoryRule::errorFeedback),
                subject(new RandomKCompressor(0.01, SEED), MemoryRule::errorFeedback),
                subject(new RandomKCompressor(new RandomKCompressor.Settings(0.01, 0.03), SEED),
                        MemoryRule::errorFeedback),
                subject(new RandomKCompressor(new RandomKCompressor.Settings(0.01, 0.03, 0.1), SEED),
                        () -> MemoryRule.lowPass(0.1f)));
    }

    private static Arguments subject(Compressor compressor, Supplier<MemoryRule> rule) {
        return Arguments.of(new Subject(compressor, rule, ValueEncoding.FP32));
    }

    private static float[] gradient(Random random) {
        float[] g = new float[FLAT];
        for (int i = 0; i < g.length; i++) {
            g[i] = (float) random.nextGaussian();
        }
        return g;
    }

    /** The compressible blocks' part of a flat gradient, end to end. */
    private static float[] region(float[] flat) {
        float[] r = new float[REGION];
        int at = 0;
        for (ParamBlock b : BLOCKS) {
            System.arraycopy(flat, b.offset(), r, at, b.length());
            at += b.length();
        }
        return r;
    }

    /**
     * What {@code compressor} selects of {@code c} at {@code step}, with the values: per block, the top
     * {@link Compressor#count} entries by magnitude, or the seeded support's entries; marks them in {@code sent}.
     */
    private static SparseSet selection(Compressor compressor, float[] c, int step, boolean[] sent) {
        TopK topK = new TopK();
        int[][] seeded = compressor instanceof SeededSupportCompressor s ? s.support(step, BLOCKS) : null;
        List<SparseVector> out = new ArrayList<>();
        int at = 0;
        for (int b = 0; b < BLOCKS.size(); b++) {
            int n = BLOCKS.get(b).length();
            int k = compressor.count(step, BLOCKS.get(b));
            int[] idx = new int[k];
            if (seeded == null) {
                assertEquals(k, topK.select(c, at, at + n, k, idx));
            } else {
                assertEquals(k, seeded[b].length, "seeded support of block " + b);
                idx = seeded[b];
            }
            out.add(SparseVector.gather(c, at, at + n, idx, k));
            for (int i : idx) {
                sent[at + i] = true;
            }
            at += n;
        }
        return new SparseSet(out);
    }

    /**
     * The selection as its receivers decode it: its values rounded to {@code values} as the one frame they travel in
     * (the blocks' values end to end); with {@code decoded}, the region's vector of them (at the sent positions).
     */
    private static SparseSet decoded(SparseSet selection, ValueEncoding values, float[] decoded) {
        float[] all = new float[selection.nnz()];
        int at = 0;
        for (SparseVector v : selection.blocks()) {
            System.arraycopy(v.values(), 0, all, at, v.nnz());
            at += v.nnz();
        }
        values.round(all, 0, all.length);
        List<SparseVector> out = new ArrayList<>();
        at = 0;
        int start = 0;
        for (SparseVector v : selection.blocks()) {
            float[] rounded = Arrays.copyOfRange(all, at, at + v.nnz());
            for (int j = 0; j < v.nnz(); j++) {
                decoded[start + v.indices()[j]] = rounded[j];
            }
            out.add(new SparseVector(v.length(), v.indices(), rounded));
            at += v.nnz();
            start += v.length();
        }
        return new SparseSet(out);
    }

    /** How a compressor's memory moves in one step (see the class comment); one instance per rank. */
    interface MemoryRule {
        /** The compensated input the step selects from, given the memory before the step and the region's gradient. */
        float[] compensated(float[] memory, float[] gradient);

        /**
         * The memory after the step, given the memory before it, the compensated input, the positions sent and the
         * values decoded there.
         */
        float[] after(float[] memory, float[] compensated, boolean[] sent, float[] decoded);

        static MemoryRule errorFeedback() {
            return lowPass(1.0f);
        }

        static MemoryRule lowPass(float beta) {
            return new MemoryRule() {
                @Override
                public float[] compensated(float[] memory, float[] gradient) {
                    float[] c = new float[REGION];
                    for (int i = 0; i < REGION; i++) {
                        c[i] = memory[i] + gradient[i];
                    }
                    return c;
                }

                @Override
                public float[] after(float[] memory, float[] compensated, boolean[] sent, float[] decoded) {
                    float[] m = new float[REGION];
                    for (int i = 0; i < REGION; i++) {
                        float left = sent[i] ? compensated[i] - decoded[i] : compensated[i]; // c − sent
                        m[i] = beta == 1f ? left : (1 - beta) * memory[i] + beta * left;
                    }
                    return m;
                }
            };
        }

        static MemoryRule momentum(float factor) {
            float[] u = new float[REGION];
            return new MemoryRule() {
                @Override
                public float[] compensated(float[] v, float[] gradient) {
                    float[] c = new float[REGION];
                    for (int i = 0; i < REGION; i++) {
                        u[i] = factor * u[i] + gradient[i];
                        c[i] = v[i] + u[i];
                    }
                    return c;
                }

                @Override
                public float[] after(float[] v, float[] compensated, boolean[] sent, float[] decoded) {
                    float[] m = new float[REGION];
                    for (int i = 0; i < REGION; i++) {
                        m[i] = sent[i] ? compensated[i] - decoded[i] : compensated[i];
                        u[i] = sent[i] ? 0f : u[i];
                    }
                    return m;
                }
            };
        }
    }

    /** One rank of a compressor of any kind, driven as that kind's topologies drive it. */
    private abstract static class Rank {
        /** The encoding its values travel in. */
        ValueEncoding values = ValueEncoding.FP32;

        static Rank of(Subject subject) {
            Rank rank = of(subject.compressor());
            rank.values = subject.values();
            rank.setValues(subject.values());
            return rank;
        }

        static Rank of(Compressor c) {
            if (c instanceof GatherCompressor g) {
                return new GatherRank(g.newRank(BLOCKS));
            }
            if (c instanceof SharedSupportCompressor s) {
                return new SharedSupportRank(s, s.newRank(BLOCKS));
            }
            S2SketchCompressor s2 = (S2SketchCompressor) c; // the one sketch compressor
            return new SketchRank(s2, s2.newRank(BLOCKS, SEED));
        }

        /** Tells the state the encoding (as an exchange does every step). */
        abstract void setValues(ValueEncoding values);

        /** One step on the flat gradient. */
        abstract void step(float[] gradient, int step);

        /** The step's tag, in the rank's encoding. */
        StepTag tag(int step) {
            return new StepTag(step, Stage.TOP_K, values);
        }

        /** Asserts that the last step's payload is exactly {@code selected}: those positions, those values. */
        abstract void assertCarries(SparseSet selected, String where);

        /**
         * Asserts that the last payload, which carried {@code selected}, survives its wire form, and bounds (or pins)
         * its bytes.
         */
        abstract void assertWireRoundTrip(Compressor c, int step, SparseSet selected);

        /** The last payload as the bytes that travel, in order. */
        abstract byte[] bytes(int step);

        abstract float[] residual();
    }

    /** Gather and shared-support ranks: the payload is a sparse set, on the wire as an indices and a values frame. */
    private abstract static class SparseRank extends Rank {
        SparseSet sent;

        @Override
        void assertCarries(SparseSet selected, String where) {
            for (int b = 0; b < BLOCKS.size(); b++) {
                String block = where + ", " + BLOCKS.get(b).qualifiedName();
                assertEquals(selected.blocks().get(b).length(), sent.blocks().get(b).length(), block + ": length");
                assertArrayEquals(selected.blocks().get(b).indices(), sent.blocks().get(b).indices(),
                        block + ": positions");
                assertArrayEquals(selected.blocks().get(b).values(), sent.blocks().get(b).values(), block + ": values");
            }
        }

        @Override
        void assertWireRoundTrip(Compressor c, int step, SparseSet selected) {
            byte[][] frames = SparseFrames.encode(sent, BLOCKS, IndexCodecs.defaultCodec(), tag(step));
            int[] max = BLOCKS.stream().mapToInt(b -> c.count(step, b)).toArray();
            int[][] supports = SparseFrames.decodeIndices(FrameCodec.decode(frames[0]), BLOCKS,
                    IndexCodecs.defaultCodec(), max);
            assertEquals(sent, SparseFrames.decode(supports, FrameCodec.decode(frames[1]), BLOCKS));
            for (int b = 0; b < BLOCKS.size(); b++) {
                assertEquals(max[b], sent.blocks().get(b).nnz(), BLOCKS.get(b).qualifiedName());
            }
            // 4 bytes per value exactly (2 in bf16, 2 and the scale in fp16); at most 4 per index plus a small
            // per-block header.
            int k = sent.nnz();
            assertEquals(values.payloadLength(k) + FrameDescriptor.OVERHEAD, frames[1].length);
            assertTrue(frames[0].length <= 4 * k + 64 * BLOCKS.size() + FrameDescriptor.OVERHEAD,
                    "indices frame of " + frames[0].length + " bytes for " + k + " indices");
        }

        @Override
        byte[] bytes(int step) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            for (byte[] f : SparseFrames.encode(sent, BLOCKS, IndexCodecs.defaultCodec(), tag(step))) {
                out.writeBytes(f);
            }
            return out.toByteArray();
        }
    }

    private static final class GatherRank extends SparseRank {
        private final GatherCompressor.State state;

        GatherRank(GatherCompressor.State state) {
            this.state = state;
        }

        @Override
        void setValues(ValueEncoding values) {
            state.values(values);
        }

        @Override
        void step(float[] gradient, int step) {
            sent = state.compress(gradient, step);
        }

        @Override
        float[] residual() {
            return state.residual();
        }
    }

    /**
     * A shared-support rank on its own is the leader of every step: it chooses the support and takes its values. A
     * seeded support's rank draws it, as every rank does, and sends its values alone.
     */
    private static final class SharedSupportRank extends SparseRank {
        private final SharedSupportCompressor compressor;
        private final SharedSupportCompressor.State state;
        private int[][] support;
        private float[] taken;

        SharedSupportRank(SharedSupportCompressor compressor, SharedSupportCompressor.State state) {
            this.compressor = compressor;
            this.state = state;
        }

        @Override
        void setValues(ValueEncoding values) {
            state.values(values);
        }

        @Override
        void step(float[] gradient, int step) {
            state.compensate(gradient, step);
            support = state.chooseSupport(step);
            if (compressor instanceof SeededSupportCompressor seeded) {
                int[][] drawn = seeded.support(step, BLOCKS);
                for (int b = 0; b < BLOCKS.size(); b++) {
                    assertArrayEquals(drawn[b], support[b], "the rank's support is the one every rank draws");
                }
            }
            taken = state.take(support);
            List<SparseVector> out = new ArrayList<>();
            int at = 0;
            for (int b = 0; b < BLOCKS.size(); b++) {
                out.add(new SparseVector(BLOCKS.get(b).length(), support[b],
                        Arrays.copyOfRange(taken, at, at + support[b].length)));
                at += support[b].length;
            }
            assertEquals(taken.length, at, "one value per index of the support");
            sent = new SparseSet(out);
        }

        /** A seeded support's payload is one values frame, decoded on the support the receiver draws. */
        @Override
        void assertWireRoundTrip(Compressor c, int step, SparseSet selected) {
            if (!(c instanceof SeededSupportCompressor seeded)) {
                super.assertWireRoundTrip(c, step, selected);
                return;
            }
            byte[] frame = new Values(taken).encode(tag(step));
            assertEquals(sent, SparseFrames.decode(seeded.support(step, BLOCKS), FrameCodec.decode(frame), BLOCKS));
            assertEquals(values.payloadLength(sent.nnz()) + FrameDescriptor.OVERHEAD, frame.length,
                    "4 bytes a value (2 in half precision), no index");
        }

        @Override
        byte[] bytes(int step) {
            if (compressor instanceof SeededSupportCompressor) {
                return new Values(taken).encode(tag(step));
            }
            return super.bytes(step);
        }

        @Override
        float[] residual() {
            return state.residual();
        }
    }

    /** An S2 rank: the payload is a count-sketch of the selection plus a bitmap of its element groups. */
    private static final class SketchRank extends Rank {
        private final S2SketchCompressor s2;
        private final SketchCompressor.State state;
        private final S2CountSketch hashes;
        private Sketch sketch;

        SketchRank(S2SketchCompressor s2, SketchCompressor.State state) {
            this.s2 = s2;
            this.state = state;
            this.hashes = s2.countSketch(BLOCKS, SEED);
        }

        @Override
        void setValues(ValueEncoding values) {
            // S2's counters always travel in fp32: its state takes no encoding
        }

        @Override
        void step(float[] gradient, int step) {
            sketch = state.compress(gradient, step);
        }

        @Override
        void assertCarries(SparseSet selected, String where) {
            // The sketch is linear: it must be the sketch of exactly the selection, counter for counter.
            Sketch expected = hashes.sketch(selected);
            assertArrayEquals(expected.counters(), sketch.counters(), where + ": counters");
            assertArrayEquals(expected.bitmap(), sketch.bitmap(), where + ": bitmap");
        }

        /**
         * The sketch's size is fixed by the settings; with 5 rows and 4 columns per selected entry one rank's sketch
         * peels completely, so decoding it gives back the selection.
         */
        @Override
        void assertWireRoundTrip(Compressor c, int step, SparseSet selected) {
            // k = ⌈0.01·n⌉ per block: 50, 1, 30 → columns ⌈4·k⌉ = 200, 4, 120 → 5 rows × 324 = 1,620 counters;
            // bitmap groups of 8: ⌈5000/8⌉ = 625 → 10 words, ⌈50/8⌉ = 7 → 1, ⌈3000/8⌉ = 375 → 6: 17 words.
            // 4 × 1,620 + 8 × 17 = 6,480 + 136 = 6,616 bytes (SketchFrames adds one frame header to each part).
            assertEquals(1_620, sketch.counters().length);
            assertEquals(17, sketch.bitmap().length);
            assertEquals(6_616, s2.payloadBytes(BLOCKS));
            SparseSet decoded = state.decompress(sketch, 1, step);
            for (int b = 0; b < BLOCKS.size(); b++) {
                SparseVector want = selected.blocks().get(b);
                SparseVector got = decoded.blocks().get(b);
                assertArrayEquals(want.indices(), got.indices(), BLOCKS.get(b).qualifiedName());
                // peeling subtracts certified values from shared counters: exact up to float rounding
                assertArrayEquals(want.values(), got.values(), 1e-6f, BLOCKS.get(b).qualifiedName());
            }
        }

        @Override
        byte[] bytes(int step) {
            ByteBuffer out = ByteBuffer.allocate(4 * sketch.counters().length + 8 * sketch.bitmap().length)
                    .order(ByteOrder.LITTLE_ENDIAN);
            for (float v : sketch.counters()) {
                out.putInt(Float.floatToRawIntBits(v));
            }
            for (long w : sketch.bitmap()) {
                out.putLong(w);
            }
            return out.array();
        }

        @Override
        float[] residual() {
            return state.residual();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("compressors")
    void shouldRoundTripItsPayloadThroughTheWireWithinItsByteBound(Subject subject) {
        Compressor c = subject.compressor();
        Rank rank = Rank.of(subject);
        float[] g = gradient(new Random(1));
        float[] compensated = subject.rule().get().compensated(new float[REGION], region(g));
        SparseSet selected = decoded(selection(c, compensated, 0, new boolean[REGION]), subject.values(),
                new float[REGION]);
        rank.step(g, 0);
        rank.assertCarries(selected, "step 0");
        rank.assertWireRoundTrip(c, 0, selected);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("compressors")
    void shouldSendItsSelectionOfItsCompensatedInputAndKeepTheRestByItsMemoryRule(Subject subject) {
        Compressor c = subject.compressor();
        Rank rank = Rank.of(subject);
        MemoryRule rule = subject.rule().get();
        Random random = new Random(2);
        float[] memory = new float[REGION];
        for (int step = 0; step < 6; step++) {
            float[] g = gradient(random);
            float[] compensated = rule.compensated(memory, region(g));
            boolean[] sent = new boolean[REGION];
            float[] decoded = new float[REGION];
            SparseSet selected = decoded(selection(c, compensated, step, sent), subject.values(), decoded);
            float[] expected = rule.after(memory, compensated, sent, decoded);
            rank.step(g, step);
            rank.assertCarries(selected, "sent = the selection of the compensated input as the receiver decodes it,"
                    + " step " + step);
            memory = rank.residual();
            for (int i = 0; i < REGION; i++) {
                if (Float.floatToIntBits(expected[i]) != Float.floatToIntBits(memory[i])) {
                    assertEquals(expected[i], memory[i], "memory at region element " + i + " ("
                            + (sent[i] ? "sent" : "not sent") + "), step " + step);
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("compressors")
    void ranksWithTheSameSettingsAndSeedShouldSendTheSameBytesAndLeaveTheGradientAlone(Subject subject) {
        Rank one = Rank.of(subject);
        Rank two = Rank.of(subject);
        Random random = new Random(4);
        for (int step = 0; step < 4; step++) {
            float[] g = gradient(random);
            float[] copy = g.clone();
            one.step(g, step);
            assertArrayEquals(copy, g, "the gradient read at step " + step + " must not change");
            two.step(copy, step);
            assertArrayEquals(one.bytes(step), two.bytes(step), "payload bytes, step " + step);
            assertArrayEquals(one.residual(), two.residual(), "memory, step " + step);
        }
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
        assertEquals("lowPass must be <= 1.0, found 1.5",
                assertThrows(IllegalArgumentException.class, () -> new LgcSupportCompressor(0.01, 1, 1.5))
                        .getMessage());
        assertEquals("ratio must be > 0, found 0.0",
                assertThrows(IllegalArgumentException.class, () -> new TopKCompressor(0)).getMessage());
        assertEquals("momentum must be in [0, 1), found 1.0",
                assertThrows(IllegalArgumentException.class, () -> new DgcCompressor(0.01, 1, 0, 0)).getMessage());
        assertEquals("lowPass must be > 0, found 0.0",
                assertThrows(IllegalArgumentException.class, () -> new ScaleComCompressor(0.01, 0)).getMessage());
    }
}

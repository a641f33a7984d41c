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

import org.junit.jupiter.api.TestInstance;
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
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What every compressor keeps, whatever its kind (gather, shared support, seeded support, sketch), for the compressors
 * a subclass names ({@link #fp32Subjects()}): each step its payload carries exactly its selection of its compensated input — the
 * top-k by magnitude, or for a seeded support (random-k) the entries at the support every rank draws — with the
 * values bit for bit and each block's count of its policy's ratio ({@code learnedRatio} for a LEARNED block), and its
 * memory moves exactly as its rule says, element by element; the payload survives the wire within a bound on its
 * bytes (a seeded support's payload is its values alone: 4 bytes each, no index); two ranks with the same settings
 * and seed, fed the same gradients, send the same bytes and keep the same memory; the gradient it reads is left as it
 * was. Every compressor with memory runs it in each value encoding: in fp16 and bf16 "sent" is what the receiver
 * decodes — the selection rounded as the one frame it travels in — and the memory keeps exactly c − sent, the
 * rounding included (S2's counters always travel in fp32, so it runs in fp32 only).
 *
 * <p>Each module's compressors run it from a subclass naming them: the core's {@code CompressorContractTest}, LGC's
 * support in the {@code lgc} module.
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
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class CompressorContract {
    static final List<ParamBlock> BLOCKS = List.of(
            new ParamBlock(0, 1, "conv2", "W", 100, 5000, new long[] {5000}, LayerPolicy.LEARNED),
            new ParamBlock(1, 1, "conv2", "b", 5100, 50, new long[] {50}, LayerPolicy.LEARNED),
            new ParamBlock(2, 2, "out", "W", 5150, 3000, new long[] {3000}, LayerPolicy.TOP_K));
    static final int FLAT = 8150;
    /** The compressible region: the three blocks end to end. */
    static final int REGION = 8050;
    /** The hash seed every S2 rank of a run shares. */
    static final long SEED = 0x5EED5EEDL;

    /** A compressor under the contract, the rule its memory follows, and the encoding its values travel in. */
    public record Subject(Compressor compressor, Supplier<MemoryRule> rule, ValueEncoding values) {
        @Override
        public String toString() {
            return compressor + (values == ValueEncoding.FP32 ? "" : ", " + values);
        }
    }

    /** Every subject in fp32; every one but S2 also in fp16 and bf16. */
    Stream<Arguments> compressors() {
        List<Subject> fp32 = fp32Subjects().map(a -> (Subject) a.get()[0]).toList();
        Stream<Subject> half = Stream.of(ValueEncoding.FP16, ValueEncoding.BF16).flatMap(e -> fp32.stream()
                .filter(s -> !(s.compressor() instanceof SketchCompressor))
                .map(s -> new Subject(s.compressor(), s.rule(), e)));
        return Stream.concat(fp32.stream(), half).map(Arguments::of);
    }

    /** The compressors under the contract, each in fp32 ({@link #subject}). */
    protected abstract Stream<Arguments> fp32Subjects();

    /** A compressor under the contract whose memory follows {@code rule}, in fp32. */
    protected static Arguments subject(Compressor compressor, Supplier<MemoryRule> rule) {
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
    public interface MemoryRule {
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
}

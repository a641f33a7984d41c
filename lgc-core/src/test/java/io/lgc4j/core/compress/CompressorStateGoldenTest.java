package io.lgc4j.core.compress;

import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.checkpoint.PartKind;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.protocol.Sketch;
import io.lgc4j.core.protocol.SparseSet;
import io.lgc4j.core.sparse.SparseVector;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;
import java.util.zip.CRC32;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every compressor's rank state pinned bit for bit by a golden file, {@code src/test/resources/golden/
 * compressor-states.txt}: per compressor and value encoding, the CRC32 of what {@link #STEPS} steps of fixed
 * gradients send, show a tap and leave in the memory, and of the checkpoint part the state then saves, with that
 * part's section names. So a change to how the memories are written that changes a bit, or a section's name or
 * layout (which old checkpoints must keep restoring into), fails here. A state restored from the part continues as
 * the one that saved it. Rewrite the file with {@link #generateGoldenFile()}, by hand, only when a compressor's
 * arithmetic or its checkpoint layout changes on purpose.
 */
class CompressorStateGoldenTest {
    private static final Path FILE = Path.of("src/test/resources/golden/compressor-states.txt");
    private static final List<ParamBlock> BLOCKS = List.of(
            new ParamBlock(0, 1, "fc", "W", 10, 500, new long[] {20, 25}, LayerPolicy.LEARNED),
            new ParamBlock(1, 1, "fc", "b", 510, 50, new long[] {1, 50}, LayerPolicy.LEARNED),
            new ParamBlock(2, 2, "out", "W", 560, 300, new long[] {30, 10}, LayerPolicy.TOP_K));
    private static final int FLAT = 870;
    private static final long SEED = 0x5EED5EEDL;
    static final int STEPS = 7;

    /** The subjects by name: every compressor, those that round in each value encoding. */
    static Map<String, Supplier<Rank>> subjects() {
        Map<String, Supplier<Rank>> subjects = new LinkedHashMap<>();
        for (ValueEncoding e : ValueEncoding.values()) {
            String in = " " + e;
            subjects.put("topk" + in, () -> gather(new TopKCompressor(0.05, 2), e));
            subjects.put("topk-learned" + in, () -> gather(new TopKCompressor(
                    new TopKCompressor.Settings(0.05, 0, 0.1)), e));
            subjects.put("dgc" + in, () -> gather(new DgcCompressor(0.05, 0.9, 0, 2), e));
            subjects.put("dgc-clipped" + in, () -> gather(new DgcCompressor(0.05, 0.5, 3.0, 0), e));
            subjects.put("scalecom" + in, () -> shared(new ScaleComCompressor(0.05, 1.0), e, true));
            subjects.put("scalecom-lowpass" + in, () -> shared(new ScaleComCompressor(0.05, 0.1), e, true));
            // LGC's support keeps this memory too (SharedSupportCompressor.lowPassMemory): its lines were these
            subjects.put("scalecom-lowpass-0.3" + in, () -> shared(new ScaleComCompressor(0.05, 0.3), e, true));
            subjects.put("randomk" + in, () -> shared(new RandomKCompressor(0.05, SEED), e, false));
            subjects.put("randomk-lowpass" + in, () -> shared(new RandomKCompressor(
                    new RandomKCompressor.Settings(0.05, 0.1, 0.1), SEED), e, false));
        }
        subjects.put("s2", () -> new SketchRank(new S2SketchCompressor(0.05, 5, 4.0, 8)));
        subjects.put("powersgd", () -> new LowRankRank(new PowerSgdCompressor(
                new PowerSgdCompressor.Settings(2), SEED)));
        subjects.put("powersgd-cold-nomemory", () -> new LowRankRank(new PowerSgdCompressor(
                new PowerSgdCompressor.Settings(1, 0.5, false, false), SEED)));
        return subjects;
    }

    /** One subject's golden line: its name, the CRC32 of its run, its checkpoint's section names. */
    static String line(String name, Supplier<Rank> subject) {
        Rank rank = subject.get();
        CRC32 crc = new CRC32();
        for (int step = 0; step < STEPS; step++) {
            rank.step(gradient(step), step, crc);
            digest(crc, rank.state().residual());
        }
        CheckpointPart part = saved(rank);
        crc.update(part.toBytes());
        return name + " " + Long.toHexString(crc.getValue()) + " " + String.join(",", part.sectionNames());
    }

    /** Rewrites the golden file. Run by hand, from {@code lgc-core}; never called by a test. */
    static void generateGoldenFile() throws IOException {
        StringBuilder out = new StringBuilder();
        subjects().forEach((name, subject) -> out.append(line(name, subject)).append('\n'));
        Files.writeString(FILE, out.toString(), StandardCharsets.US_ASCII);
    }

    /** Entry point for {@link #generateGoldenFile()}. */
    public static void main(String[] args) throws IOException {
        generateGoldenFile();
    }

    @Test
    void everyStateShouldSendKeepAndSaveWhatItsGoldenLineSays() throws IOException {
        List<String> golden = Files.readAllLines(FILE, StandardCharsets.US_ASCII);
        List<String> now = new ArrayList<>();
        subjects().forEach((name, subject) -> now.add(line(name, subject)));
        assertEquals(String.join("\n", golden), String.join("\n", now));
    }

    @Test
    void aRestoredStateShouldContinueAsTheOneThatSavedIt() throws CheckpointException {
        for (Map.Entry<String, Supplier<Rank>> e : subjects().entrySet()) {
            Rank original = e.getValue().get();
            for (int step = 0; step < STEPS; step++) {
                original.step(gradient(step), step, new CRC32());
            }
            Rank restored = e.getValue().get();
            restored.state().restore(CheckpointPart.parse(saved(original).toBytes(), "rank"), "compressor");
            CRC32 a = new CRC32();
            CRC32 b = new CRC32();
            for (int step = STEPS; step < STEPS + 3; step++) {
                original.step(gradient(step), step, a);
                restored.step(gradient(step), step, b);
                digest(a, original.state().residual());
                digest(b, restored.state().residual());
            }
            assertEquals(a.getValue(), b.getValue(), e.getKey());
        }
    }

    private static CheckpointPart saved(Rank rank) {
        CheckpointPart.Builder part = CheckpointPart.builder(PartKind.RANK);
        rank.state().save(part, "compressor");
        return part.build();
    }

    /** A gradient of step {@code step}: Gaussian, a few entries far larger (so a half-precision frame's scale moves). */
    static float[] gradient(int step) {
        Random random = new Random(1000L + step);
        float[] g = new float[FLAT];
        for (int i = 0; i < FLAT; i++) {
            g[i] = (float) (random.nextGaussian() * (i % 97 == step ? 300.0 : 0.01 + 0.5 * (i % 7)));
        }
        return g;
    }

    static void digest(CRC32 crc, float[] values) {
        for (float v : values) {
            int bits = Float.floatToRawIntBits(v);
            crc.update(bits);
            crc.update(bits >>> 8);
            crc.update(bits >>> 16);
            crc.update(bits >>> 24);
        }
    }

    static void digest(CRC32 crc, int[] values) {
        for (int v : values) {
            crc.update(v);
            crc.update(v >>> 8);
            crc.update(v >>> 16);
            crc.update(v >>> 24);
        }
    }

    static void digest(CRC32 crc, SparseSet sent) {
        for (SparseVector v : sent.blocks()) {
            digest(crc, v.indices());
            digest(crc, v.values());
        }
    }

    /** Digests each block the tap is shown (whole, as it is at that moment) and the indices taken. */
    static OfferTap tap(CRC32 crc) {
        return (block, values, from, taken, count) -> {
            crc.update(block.index());
            digest(crc, java.util.Arrays.copyOfRange(values, from, from + block.length()));
            digest(crc, java.util.Arrays.copyOf(taken, count));
        };
    }

    /** One rank of one compressor, stepped as a topology steps it (a single rank: its own payload is the mean). */
    interface Rank {
        CompressorState state();

        void step(float[] gradient, int step, CRC32 crc);
    }

    static Rank gather(GatherCompressor compressor, ValueEncoding values) {
        GatherCompressor.State state = compressor.newRank(BLOCKS);
        return new Rank() {
            @Override
            public CompressorState state() {
                return state;
            }

            @Override
            public void step(float[] gradient, int step, CRC32 crc) {
                state.tap(tap(crc));
                state.values(values);
                digest(crc, state.compress(gradient, step));
            }
        };
    }

    /** With {@code feedBack}, a quarter of each sent value comes back as lost. */
    static Rank shared(SharedSupportCompressor compressor, ValueEncoding values, boolean feedBack) {
        SharedSupportCompressor.State state = compressor.newRank(BLOCKS);
        return new Rank() {
            @Override
            public CompressorState state() {
                return state;
            }

            @Override
            public void step(float[] gradient, int step, CRC32 crc) {
                state.tap(tap(crc));
                state.values(values);
                state.compensate(gradient, step);
                int[][] support = state.chooseSupport(step);
                float[] sent = state.take(support);
                for (int[] s : support) {
                    digest(crc, s);
                }
                digest(crc, sent);
                if (feedBack) {
                    float[] lost = new float[sent.length];
                    for (int i = 0; i < lost.length; i++) {
                        lost[i] = 0.25f * sent[i];
                    }
                    state.feedBack(support, lost);
                }
            }
        };
    }

    record SketchRank(SketchCompressor.State state) implements Rank {
        SketchRank(SketchCompressor compressor) {
            this(compressor.newRank(BLOCKS, SEED));
        }

        @Override
        public void step(float[] gradient, int step, CRC32 crc) {
            Sketch own = state.compress(gradient, step);
            digest(crc, own.counters());
            for (long word : own.bitmap()) {
                crc.update((int) word);
                crc.update((int) (word >>> 32));
            }
            digest(crc, state.decompress(own, 1, step));
        }
    }

    record LowRankRank(LowRankCompressor.State state) implements Rank {
        LowRankRank(LowRankCompressor compressor) {
            this(compressor.newRank(BLOCKS));
        }

        @Override
        public void step(float[] gradient, int step, CRC32 crc) {
            state.tap(tap(crc));
            float[] first = state.project(gradient, step);
            digest(crc, first);
            float[] second = state.back(first, step);
            digest(crc, second);
            float[] applied = gradient.clone();
            state.finish(second, step, applied);
            digest(crc, applied);
        }
    }
}

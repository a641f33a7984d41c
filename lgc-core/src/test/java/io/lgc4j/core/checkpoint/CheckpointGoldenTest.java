package io.lgc4j.core.checkpoint;

import io.lgc4j.core.data.EpochCursor;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.stage.Stage;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The checkpoint layout pinned by golden files, {@code src/test/resources/golden/checkpoint-*.hex}: a small rank
 * part with a section of every value type (and an empty one), and a manifest (which also pins
 * {@link ModelIdentity#of}'s fingerprint). Each is compared with what this build writes and read back into the values
 * it was written from. Rewrite the files with {@link #generateGoldenFiles()}, by hand, only when the layout changes on
 * purpose (and bump {@link CheckpointDescriptor#VERSION}).
 */
class CheckpointGoldenTest {
    private static final Path DIRECTORY = Path.of("src/test/resources/golden");
    static final String PART_FILE = "checkpoint-part-rank.hex";
    static final String MANIFEST_FILE = "checkpoint-manifest.hex";
    /** A manifest of a run resumed at another K: format version 2, with the epoch cursor. */
    static final String RESIZED_MANIFEST_FILE = "checkpoint-manifest-resized.hex";

    static final long STEP = 124;
    static final float[] RESIDUAL = {1.0f, -2.5f, 0.125f, -0.0f};
    static final int[] SUPPORT = {3, 500, 999};
    static final long[] COUNTERS = {1L << 40, -1L};
    static final GradientLayout LAYOUT = GradientLayout.ofBlocks(List.of(
            new ParamBlock(0, 0, "fc", "W", 0, 1000, new long[] {10, 100}, LayerPolicy.LEARNED),
            new ParamBlock(1, 1, "out", "W", 1000, 100, new long[] {100, 1}, LayerPolicy.TOP_K)));

    static CheckpointPart part() {
        CheckpointPart.Builder b = CheckpointPart.builder(PartKind.RANK);
        b.section("step").putLong(STEP);
        b.section("compressor/residual").putFloats(RESIDUAL);
        b.section("support").putInts(SUPPORT);
        b.section("counters").putLongs(COUNTERS);
        b.section("flags").putBoolean(true).putByte(7).putDouble(0.5);
        b.section("empty");
        b.section("note").putString("μ=12");
        return b.build();
    }

    static CheckpointManifest manifest() {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("training.workers", "2");
        config.put("compressor.ratio", "0.01");
        RunSignature run = new RunSignature(2, 1, ModelIdentity.of(LAYOUT), config);
        return new CheckpointManifest("golden", STEP, Stage.TOP_K, run, List.of(
                new PartInfo("rank-0.lgcc", 100, 0x01020304),
                new PartInfo("rank-1.lgcc", 101, 0xA0B0C0D0),
                new PartInfo("server-0.lgcc", 50, 0)));
    }

    /** The manifest's run, 7 steps of epoch 3 read by 4 workers, then 2 by 3. */
    static CheckpointManifest resizedManifest() {
        CheckpointManifest m = manifest();
        return new CheckpointManifest(m.runName(), m.nextStep(), m.stage(), m.run(), m.parts(),
                new EpochCursor(3, List.of(new EpochCursor.Part(4, 7), new EpochCursor.Part(3, 2))));
    }

    static Map<String, byte[]> files() {
        Map<String, byte[]> files = new LinkedHashMap<>();
        files.put(PART_FILE, part().toBytes());
        files.put(MANIFEST_FILE, manifest().toPart().toBytes());
        files.put(RESIZED_MANIFEST_FILE, resizedManifest().toPart().toBytes());
        return files;
    }

    /**
     * Rewrites the golden files from {@link #files()}. Run by hand, from {@code lgc-core}, only when the layout
     * changes on purpose; never called by a test.
     */
    static void generateGoldenFiles() throws IOException {
        Files.createDirectories(DIRECTORY);
        for (Map.Entry<String, byte[]> e : files().entrySet()) {
            Files.writeString(DIRECTORY.resolve(e.getKey()), HexFormat.of().formatHex(e.getValue()) + "\n",
                    StandardCharsets.US_ASCII);
        }
    }

    /** Entry point for {@link #generateGoldenFiles()}. */
    public static void main(String[] args) throws IOException {
        generateGoldenFiles();
    }

    @Test
    void shouldWriteEachPartAsItsGoldenFile() throws IOException {
        for (Map.Entry<String, byte[]> e : files().entrySet()) {
            assertEquals(HexFormat.of().formatHex(golden(e.getKey())), HexFormat.of().formatHex(e.getValue()),
                    e.getKey());
        }
    }

    @Test
    void shouldReadTheGoldenPart() throws IOException {
        byte[] bytes = golden(PART_FILE);
        assertEquals("4c47434b" + "01" + "01" + "0000" + "07000000", HexFormat.of().formatHex(bytes, 0, 12),
                "magic, version 1, kind rank, reserved, 7 sections");
        CheckpointPart part = CheckpointPart.parse(bytes, PART_FILE);
        assertEquals(List.of("step", "compressor/residual", "support", "counters", "flags", "empty", "note"),
                part.sectionNames());
        assertArrayEquals(new long[] {STEP}, part.longs("step", 1));
        assertEquals(Float.floatToRawIntBits(-0.0f),
                Float.floatToRawIntBits(part.floats("compressor/residual", RESIDUAL.length)[3]));
        assertArrayEquals(RESIDUAL, part.floats("compressor/residual", RESIDUAL.length));
        assertArrayEquals(SUPPORT, part.ints("support", SUPPORT.length));
        assertArrayEquals(COUNTERS, part.longs("counters", COUNTERS.length));
        SectionReader flags = part.section("flags");
        assertTrue(flags.getBoolean());
        assertEquals(7, flags.getByte());
        assertEquals(0.5, flags.getDouble());
        flags.end();
        assertEquals(0, part.sectionLength("empty"));
        SectionReader note = part.section("note");
        assertEquals("μ=12", note.getString());
        note.end();
    }

    @Test
    void shouldReadTheGoldenManifest() throws IOException {
        CheckpointManifest read = CheckpointManifest.fromPart(CheckpointPart.parse(golden(MANIFEST_FILE),
                MANIFEST_FILE));
        assertEquals(manifest(), read);
        assertEquals("sha256:2a89fcbf166fd7b39f48f275de20e8d4", read.run().model().fingerprint(), "the layout's hash");
        assertEquals(1100, read.run().model().parameterCount());
        assertEquals(List.of("compressor.ratio", "training.workers"), List.copyOf(read.run().config().keySet()));
    }

    @Test
    void shouldReadTheGoldenResizedManifest() throws IOException {
        byte[] bytes = golden(RESIZED_MANIFEST_FILE);
        assertEquals("4c47434b" + "02" + "03" + "0000" + "07000000", HexFormat.of().formatHex(bytes, 0, 12),
                "magic, version 2, kind manifest, reserved, 7 sections");
        CheckpointPart part = CheckpointPart.parse(bytes, RESIZED_MANIFEST_FILE);
        assertEquals(List.of("run", "position", "cluster", "model", "config", "parts", "data"), part.sectionNames());
        assertEquals(resizedManifest(), CheckpointManifest.fromPart(part));
        assertEquals(2, part.version());
        assertEquals(1, CheckpointPart.parse(golden(MANIFEST_FILE), MANIFEST_FILE).version(),
                "a manifest without a cursor stays version 1, which every earlier build reads");
    }

    private static byte[] golden(String name) throws IOException {
        return HexFormat.of().parseHex(Files.readString(DIRECTORY.resolve(name), StandardCharsets.US_ASCII).strip());
    }
}

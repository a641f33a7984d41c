package io.lgc4j.core.checkpoint;

import io.lgc4j.core.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

import static io.lgc4j.core.checkpoint.CheckpointPartTest.message;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The checkpoint directory: parts and a manifest written atomically, the newest complete checkpoint found, crashes
 * mid-write and damaged files passed over or refused with their message, and nothing changed by reading.
 */
class CheckpointDirectoryTest {
    private static final int K = 2;
    private static final RunSignature RUN = new RunSignature(K, 1, CheckpointManifestTest.MODEL,
            CheckpointManifestTest.CONFIG);

    private TempDirectory temp;
    private CheckpointDirectory checkpoints;

    @BeforeEach
    void createDirectory() throws IOException {
        temp = new TempDirectory();
        checkpoints = CheckpointDirectory.in(temp.path().resolve("run"));
    }

    @AfterEach
    void deleteDirectory() {
        temp.close();
    }

    /** A rank's part whose residual identifies the step and the rank. */
    static CheckpointPart rankPart(long step, int rank) {
        CheckpointPart.Builder b = CheckpointPart.builder(PartKind.RANK);
        b.section("compressor/residual").putFloats(new float[] {step, rank, 0.5f});
        return b.build();
    }

    static CheckpointPart serverPart(long step) {
        CheckpointPart.Builder b = CheckpointPart.builder(PartKind.SERVER);
        b.section("server/step").putLong(step);
        return b.build();
    }

    /** Every part of a step, then its manifest. */
    private Checkpoint writeComplete(long step) throws IOException {
        List<PartInfo> parts = writeParts(step);
        return checkpoints.writeManifest(new CheckpointManifest("run", step, Stage.TOP_K, RUN, parts));
    }

    private List<PartInfo> writeParts(long step) throws IOException {
        List<PartInfo> parts = new ArrayList<>();
        for (int r = 0; r < K; r++) {
            parts.add(checkpoints.writeRankPart(step, r, rankPart(step, r)));
        }
        parts.add(checkpoints.writeServerPart(step, 0, serverPart(step)));
        return parts;
    }

    @Test
    void shouldWriteTheLayoutAndReadEveryPartBack() throws IOException {
        writeComplete(124);
        Path step = temp.path().resolve("run/checkpoints/step-000124");
        assertEquals(List.of("manifest.lgcc", "rank-0.lgcc", "rank-1.lgcc", "server-0.lgcc"), files(step));

        Checkpoint c = checkpoints.latest().orElseThrow();
        assertEquals(124, c.nextStep());
        assertEquals(step, c.directory());
        assertEquals(Stage.TOP_K, c.manifest().stage());
        assertEquals(RUN, c.manifest().run());
        for (int r = 0; r < K; r++) {
            CheckpointPart part = c.rankPart(r);
            assertEquals("step-000124/rank-" + r + ".lgcc", part.label());
            assertArrayEquals(new float[] {124, r, 0.5f}, part.floats("compressor/residual", 3));
        }
        assertArrayEquals(new long[] {124}, c.serverPart(0).longs("server/step", 1));
        assertEquals("rank must be in [0, 2), found 2",
                assertThrows(IllegalArgumentException.class, () -> c.rankPart(2)).getMessage());
    }

    @Test
    void shouldFindTheNewestCompleteCheckpointIgnoringOneWithoutManifest() throws IOException {
        assertTrue(checkpoints.latest().isEmpty(), "no checkpoints directory yet");
        writeComplete(100);
        writeComplete(120);
        writeParts(140); // the run stopped before the manifest
        assertEquals(List.of(100L, 120L, 140L), checkpoints.steps());
        assertEquals(120, checkpoints.latest().orElseThrow().nextStep());
        assertEquals("step-000140 is incomplete: it has no manifest.lgcc (written last, once every part is in; the "
                + "run stopped before that); its files: rank-0.lgcc, rank-1.lgcc, server-0.lgcc",
                message(() -> checkpoints.load(140)));
        assertEquals("no checkpoint step-000999 in " + checkpoints.root() + ": it has step-000100, step-000120, "
                + "step-000140", message(() -> checkpoints.load(999)));
    }

    @Test
    void shouldIgnoreWhatACrashMidWriteLeavesBehind() throws IOException {
        writeComplete(100);
        // Killed after the manifest's temporary file was written, before its rename: a complete manifest under a
        // temporary name does not make the checkpoint complete.
        List<PartInfo> parts = writeParts(120);
        Path step = checkpoints.stepDirectory(120);
        byte[] manifest = new CheckpointManifest("run", 120, Stage.TOP_K, RUN, parts).toPart().toBytes();
        Files.write(step.resolve(".manifest.lgcc.00000000deadbeef.tmp"), manifest);
        // Killed while rewriting rank 0's part of the complete checkpoint: half a part under a temporary name does
        // not shadow the part.
        Path older = checkpoints.stepDirectory(100);
        byte[] half = Arrays.copyOf(rankPart(100, 0).toBytes(), 20);
        Files.write(older.resolve(".rank-0.lgcc.0123456789abcdef.tmp"), half);

        assertEquals(100, checkpoints.latest().orElseThrow().nextStep());
        assertArrayEquals(new float[] {100, 0, 0.5f},
                checkpoints.load(100).rankPart(0).floats("compressor/residual", 3));
        assertEquals("step-000120 is incomplete: it has no manifest.lgcc (written last, once every part is in; the "
                + "run stopped before that); its files: .manifest.lgcc.00000000deadbeef.tmp, rank-0.lgcc, "
                + "rank-1.lgcc, server-0.lgcc", message(() -> checkpoints.load(120)));
    }

    @Test
    void shouldLeaveTheFinalNameAloneWhenAWriteFails() throws IOException {
        Path directory = Files.createDirectories(temp.path().resolve("atomic"));
        Path target = directory.resolve("rank-0.lgcc");
        assertThrows(IOException.class, () -> AtomicFiles.write(target, channel -> {
            channel.write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
            throw new IOException("disk full");
        }));
        assertEquals(List.of(), files(directory), "nothing at the final name, no temporary file left");

        PartInfo info = rankPart(1, 0).write(target);
        byte[] before = Files.readAllBytes(target);
        assertThrows(IllegalStateException.class, () -> AtomicFiles.write(target, channel -> {
            channel.write(ByteBuffer.wrap(new byte[] {9, 9}));
            throw new IllegalStateException("killed");
        }));
        assertArrayEquals(before, Files.readAllBytes(target), "the previous file is whole");
        assertEquals(List.of("rank-0.lgcc"), files(directory));
        assertEquals(info, PartInfo.of(target));
    }

    @Test
    void shouldRefuseToWriteAManifestWhosePartsAreNotAllThere() throws IOException {
        List<PartInfo> parts = writeParts(124);
        Path step = checkpoints.stepDirectory(124);
        Files.delete(step.resolve("rank-1.lgcc"));
        CheckpointManifest manifest = new CheckpointManifest("run", 124, Stage.TOP_K, RUN, parts);
        assertEquals("cannot write step-000124/manifest.lgcc: step-000124/rank-1.lgcc is missing; the manifest "
                + "lists " + parts.get(1).describe(), message(() -> checkpoints.writeManifest(manifest)));
        assertFalse(Files.exists(step.resolve("manifest.lgcc")));

        checkpoints.writeRankPart(124, 1, rankPart(124, 1));
        PartInfo wrong = new PartInfo("rank-0.lgcc", parts.get(0).size(), parts.get(0).crc32c() ^ 1);
        CheckpointManifest lying = new CheckpointManifest("run", 124, Stage.TOP_K, RUN,
                List.of(wrong, parts.get(1), parts.get(2)));
        assertEquals(String.format("cannot write step-000124/manifest.lgcc: step-000124/rank-0.lgcc disagrees "
                        + "with the manifest: the file has %s bytes, CRC32C 0x%08x; the manifest lists %s bytes, "
                        + "CRC32C 0x%08x", parts.get(0).size(), parts.get(0).crc32c(), parts.get(0).size(),
                wrong.crc32c()), message(() -> checkpoints.writeManifest(lying)));
        assertEquals(List.of("rank-0.lgcc", "rank-1.lgcc", "server-0.lgcc"), files(step));
        assertThrows(IllegalArgumentException.class, () -> checkpoints.writeRankPart(124, 0, serverPart(124)));
    }

    @Test
    void shouldRefuseADamagedCheckpointAndFallBackWithoutChangingAnything() throws IOException {
        writeComplete(100);
        Checkpoint newest = writeComplete(120);
        Path step = checkpoints.stepDirectory(120);
        Path rank1 = step.resolve("rank-1.lgcc");
        PartInfo listed = newest.manifest().part("rank-1.lgcc");
        byte[] bytes = Files.readAllBytes(rank1);
        byte[] original = bytes.clone();
        bytes[bytes.length - 10] ^= 0x01; // a bit of the residual
        Files.write(rank1, bytes);
        PartInfo found = PartInfo.of(rank1);
        Map<Path, byte[]> before = snapshot();

        String disagrees = String.format("step-000120/rank-1.lgcc disagrees with the manifest: the file has "
                + "%d bytes, CRC32C 0x%08x; the manifest lists %d bytes, CRC32C 0x%08x", found.size(), found.crc32c(),
                listed.size(), listed.crc32c());
        assertEquals(disagrees, message(() -> checkpoints.load(120)));
        assertEquals(disagrees, message(() -> newest.rankPart(1)), "a part changed after loading is refused too");
        List<String> skipped = new ArrayList<>();
        assertEquals(100, checkpoints.latest(e -> skipped.add(e.getMessage())).orElseThrow().nextStep());
        assertEquals(List.of(disagrees), skipped);

        Files.write(rank1, original);
        before.put(rank1, original);
        byte[] trailer = original.clone();
        trailer[trailer.length - 1] ^= 0x40;
        Files.write(rank1, trailer);
        before.put(rank1, trailer);
        assertEquals(String.format("step-000120/rank-1.lgcc: the trailer's CRC32C fails: stored 0x%08x, computed "
                + "0x%08x (the manifest lists the same): the trailer is corrupt", listed.crc32c() ^ 0x40000000,
                listed.crc32c()), message(() -> checkpoints.load(120)));
        Files.write(rank1, original);
        before.put(rank1, original);

        Files.delete(step.resolve("server-0.lgcc"));
        before.remove(step.resolve("server-0.lgcc"));
        assertEquals("step-000120/server-0.lgcc is missing; the manifest lists "
                + newest.manifest().part("server-0.lgcc").describe(), message(() -> checkpoints.load(120)));
        assertEquals(100, checkpoints.latest().orElseThrow().nextStep());

        Path manifest = step.resolve("manifest.lgcc");
        byte[] whole = Files.readAllBytes(manifest);
        Files.write(manifest, Arrays.copyOf(whole, whole.length - 2));
        before.put(manifest, Files.readAllBytes(manifest));
        assertEquals("step-000120/manifest.lgcc: truncated in the trailer: expected 4 bytes (the CRC32C after the "
                + "last section), found 2 bytes", message(() -> checkpoints.load(120)));
        assertEquals(100, checkpoints.latest().orElseThrow().nextStep());

        assertEquals(snapshot().keySet(), before.keySet(), "reading created or deleted no file");
        snapshot().forEach((path, content) -> assertArrayEquals(before.get(path), content, path.toString()));
    }

    @Test
    void shouldListAChecksumThatTellsValidPartsApart() throws IOException {
        // The CRC32C of a whole part is the CRC's residue for every valid part, so the manifest lists the CRC of
        // the bytes before the trailer instead: equal to the trailer, different for different parts.
        Path directory = Files.createDirectories(temp.path().resolve("residue"));
        PartInfo a = rankPart(1, 0).write(directory.resolve("rank-0.lgcc"));
        PartInfo b = rankPart(2, 0).write(directory.resolve("rank-1.lgcc"));
        CRC32C whole = new CRC32C();
        whole.update(Files.readAllBytes(directory.resolve("rank-0.lgcc")));
        CRC32C other = new CRC32C();
        other.update(Files.readAllBytes(directory.resolve("rank-1.lgcc")));
        assertEquals(PartInfo.RESIDUE_HEX, String.format("0x%08x", whole.getValue()));
        assertEquals(PartInfo.RESIDUE_HEX, String.format("0x%08x", other.getValue()));
        assertTrue(a.crc32c() != b.crc32c());
        assertEquals(a, PartInfo.of(directory.resolve("rank-0.lgcc")));
        byte[] bytes = Files.readAllBytes(directory.resolve("rank-0.lgcc"));
        assertEquals(a.crc32c(), ByteBuffer.wrap(bytes, bytes.length - 4, 4).order(ByteOrder.LITTLE_ENDIAN)
                .getInt(), "the listed CRC is the trailer's");
    }

    @Test
    void shouldRefuseAManifestInAnotherStepsDirectory() throws IOException {
        writeComplete(120);
        Path moved = checkpoints.stepDirectory(130);
        Files.createDirectories(moved);
        try (Stream<Path> files = Files.list(checkpoints.stepDirectory(120))) {
            for (Path f : files.toList()) {
                Files.copy(f, moved.resolve(f.getFileName()));
            }
        }
        assertEquals("step-000130/manifest.lgcc is the manifest of step 120, not of its directory's step 130",
                message(() -> checkpoints.load(130)));
        assertEquals(120, checkpoints.latest().orElseThrow().nextStep());
    }

    @Test
    void shouldReplaceARewrittenStepOnlyWhenItsNewManifestIsIn() throws IOException {
        writeComplete(100);
        writeComplete(120);
        // A run resumed from step 100 reaches step 120 again and is killed after rewriting rank 0's part.
        CheckpointPart.Builder b = CheckpointPart.builder(PartKind.RANK);
        b.section("compressor/residual").putFloats(new float[] {120, 0, 0.75f});
        PartInfo rewritten = checkpoints.writeRankPart(120, 0, b.build());
        assertTrue(message(() -> checkpoints.load(120)).startsWith("step-000120/rank-0.lgcc disagrees with the "
                + "manifest"), "the old manifest does not vouch for a new part");
        assertEquals(100, checkpoints.latest().orElseThrow().nextStep());

        List<PartInfo> parts = List.of(rewritten, checkpoints.writeRankPart(120, 1, rankPart(120, 1)),
                checkpoints.writeServerPart(120, 0, serverPart(120)));
        checkpoints.writeManifest(new CheckpointManifest("run", 120, Stage.COMPRESSED, RUN, parts));
        Checkpoint c = checkpoints.latest().orElseThrow();
        assertEquals(Stage.COMPRESSED, c.manifest().stage());
        assertArrayEquals(new float[] {120, 0, 0.75f}, c.rankPart(0).floats("compressor/residual", 3));
    }

    @Test
    void shouldCountOnlyCanonicalStepDirectories() throws IOException {
        writeComplete(7);
        Files.createDirectories(checkpoints.root().resolve("step-7"));
        Files.createDirectories(checkpoints.root().resolve("step-0000007"));
        Files.createDirectories(checkpoints.root().resolve("other"));
        Files.write(checkpoints.root().resolve("step-000008"), new byte[0]);
        assertEquals(List.of(7L), checkpoints.steps());
        assertEquals("step-1234567", CheckpointDirectory.stepDirectoryName(1_234_567));
    }

    private static List<String> files(Path directory) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** Every file under the run directory and its bytes. */
    private Map<Path, byte[]> snapshot() throws IOException {
        Map<Path, byte[]> files = new TreeMap<>();
        try (Stream<Path> all = Files.walk(temp.path())) {
            all.filter(Files::isRegularFile).forEach(p -> {
                try {
                    files.put(p, Files.readAllBytes(p));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
        return files;
    }
}

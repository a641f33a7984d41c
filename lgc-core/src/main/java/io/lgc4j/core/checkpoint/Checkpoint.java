package io.lgc4j.core.checkpoint;

import java.io.IOException;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * A complete checkpoint whose manifest was read and whose part files matched it (size and CRC32C) when it was
 * loaded by a {@link CheckpointDirectory}. Each part is read again, and checked against the manifest again, when it
 * is asked for: a file changed since the check is refused, not half used.
 * <pre>{@code
 * Checkpoint c = CheckpointDirectory.in(runDir).latest().orElseThrow();
 * c.manifest().checkCompatible(thisRun);
 * CheckpointPart mine = c.rankPart(rank);
 * }</pre>
 */
public final class Checkpoint {
    private final Path directory;
    private final CheckpointManifest manifest;

    Checkpoint(Path directory, CheckpointManifest manifest) {
        this.directory = directory;
        this.manifest = manifest;
    }

    /** The step directory, {@code <runDir>/checkpoints/step-000124}. */
    public Path directory() {
        return directory;
    }

    /** The manifest. */
    public CheckpointManifest manifest() {
        return manifest;
    }

    /** The step a resumed run starts with ({@link CheckpointManifest#nextStep()}). */
    public long nextStep() {
        return manifest.nextStep();
    }

    /**
     * Rank {@code rank}'s part, checked against the manifest and read.
     *
     * @throws IllegalArgumentException if the checkpoint has no such rank
     * @throws CheckpointException      if the file is missing, disagrees with the manifest or is not a valid rank part
     */
    public CheckpointPart rankPart(int rank) throws IOException {
        if (rank < 0 || rank >= manifest.run().workers()) {
            throw new IllegalArgumentException("rank must be in [0, " + manifest.run().workers() + "), found "
                    + rank);
        }
        return part(CheckpointDirectory.rankFileName(rank), PartKind.RANK);
    }

    /**
     * Service {@code service}'s part (the parameter server is service 0), checked against the manifest and read.
     *
     * @throws IllegalArgumentException if the checkpoint has no such service
     * @throws CheckpointException      if the file is missing, disagrees with the manifest or is not a valid server
     *                                  part
     */
    public CheckpointPart serverPart(int service) throws IOException {
        if (service < 0 || service >= manifest.run().services()) {
            throw new IllegalArgumentException("service must be in [0, " + manifest.run().services() + "), found "
                    + service);
        }
        return part(CheckpointDirectory.serverFileName(service), PartKind.SERVER);
    }

    private CheckpointPart part(String fileName, PartKind kind) throws IOException {
        String label = label(directory, fileName);
        PartInfo listed = manifest.part(fileName);
        byte[] bytes = CheckpointPart.readFile(directory.resolve(fileName), label);
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, Math.max(0, bytes.length - CheckpointDescriptor.TRAILER_LENGTH));
        check(label, listed, new PartInfo(fileName, bytes.length, (int) crc.getValue()));
        // The bytes before the trailer are the ones listed; the parse checks the trailer and each section.
        return CheckpointPart.parse(bytes, label).requireKind(kind);
    }

    /** {@code step-000124/rank-1.lgcc}: how messages name a file of a step directory. */
    static String label(Path stepDirectory, String fileName) {
        return stepDirectory.getFileName() + "/" + fileName;
    }

    /**
     * Refuses a part file whose size or CRC32C (of its bytes before the trailer) is not what the manifest lists.
     */
    static void check(String label, PartInfo listed, PartInfo found) throws CheckpointException {
        if (found.size() != listed.size() || found.crc32c() != listed.crc32c()) {
            throw new CheckpointException(label + " disagrees with the manifest: the file has "
                    + Messages.bytes(found.size()) + ", CRC32C " + Messages.crc(found.crc32c())
                    + "; the manifest lists " + Messages.bytes(listed.size()) + ", CRC32C "
                    + Messages.crc(listed.crc32c()));
        }
    }
}

package io.lgc4j.core.checkpoint;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A run's checkpoints: {@code <runDir>/checkpoints/step-NNNNNN/} (the next step to run, at least six digits) holding
 * {@code rank-<r>.lgcc} per rank, {@code server-<s>.lgcc} per service and {@code manifest.lgcc}, written last; a
 * checkpoint exists once its manifest does. Every file is written atomically ({@link CheckpointPart#write}), and
 * {@link #writeManifest} first checks every listed part against the files on disk.
 *
 * <pre>{@code
 * PartInfo mine = checkpoints.writeRankPart(124, rank, part);          // on every rank
 * checkpoints.writeManifest(new CheckpointManifest(...,  parts));      // on rank 0, once all parts are in
 * Optional<Checkpoint> resume = checkpoints.latest();                  // the newest checkpoint that verifies
 * }</pre>
 *
 * <p>Readers ({@link #steps}, {@link #latest}, {@link #load}) never create, change or delete a file. A step being
 * rewritten reads as bad, never as a mix of two runs, until its new manifest is in. Temporary files are not cleaned up.
 */
public final class CheckpointDirectory {
    /** The directory under a run's directory that holds its checkpoints. */
    public static final String DIRECTORY_NAME = "checkpoints";
    /** The manifest's file name. */
    public static final String MANIFEST_FILE = "manifest.lgcc";
    /** The extension of every part file. */
    public static final String EXTENSION = ".lgcc";

    private static final Pattern STEP_DIRECTORY = Pattern.compile("step-(\\d{6,18})");

    private final Path root;

    private CheckpointDirectory(Path root) {
        this.root = root;
    }

    /** The checkpoints of the run whose directory is {@code runDir} (nothing is created until a part is written). */
    public static CheckpointDirectory in(Path runDir) {
        return new CheckpointDirectory(Objects.requireNonNull(runDir, "runDir").resolve(DIRECTORY_NAME));
    }

    /** {@code <runDir>/checkpoints}. */
    public Path root() {
        return root;
    }

    /** {@code step-000124}: the directory name of the checkpoint whose next step is {@code step}. */
    public static String stepDirectoryName(long step) {
        if (step < 0) {
            throw new IllegalArgumentException("step must be >= 0, found " + step);
        }
        return String.format(Locale.ROOT, "step-%06d", step);
    }

    /** {@code rank-2.lgcc}. */
    public static String rankFileName(int rank) {
        return "rank-" + rank + EXTENSION;
    }

    /** {@code server-0.lgcc}. */
    public static String serverFileName(int service) {
        return "server-" + service + EXTENSION;
    }

    /** The directory of the checkpoint whose next step is {@code step} (whether or not it exists). */
    public Path stepDirectory(long step) {
        return root.resolve(stepDirectoryName(step));
    }

    /**
     * Writes rank {@code rank}'s part of the checkpoint whose next step is {@code step}, atomically, creating the
     * step directory if needed.
     *
     * @return the file as the manifest lists it
     */
    public PartInfo writeRankPart(long step, int rank, CheckpointPart part) throws IOException {
        if (rank < 0) {
            throw new IllegalArgumentException("rank must be >= 0, found " + rank);
        }
        return writePart(step, rankFileName(rank), part, PartKind.RANK);
    }

    /**
     * Writes service {@code service}'s part (the parameter server is service 0), atomically, creating the step
     * directory if needed.
     *
     * @return the file as the manifest lists it
     */
    public PartInfo writeServerPart(long step, int service, CheckpointPart part) throws IOException {
        if (service < 0) {
            throw new IllegalArgumentException("service must be >= 0, found " + service);
        }
        return writePart(step, serverFileName(service), part, PartKind.SERVER);
    }

    private PartInfo writePart(long step, String fileName, CheckpointPart part, PartKind kind) throws IOException {
        if (part.kind() != kind) {
            throw new IllegalArgumentException(fileName + " must hold a " + kind + " part, found a " + part.kind()
                    + " part");
        }
        Path directory = stepDirectory(step);
        AtomicFiles.createDirectories(directory);
        return part.write(directory.resolve(fileName));
    }

    /**
     * Completes the checkpoint of {@code manifest.nextStep()}: checks that every part it lists is on disk with the
     * listed size and CRC32C, then writes {@code manifest.lgcc} atomically.
     *
     * @return the complete checkpoint
     * @throws CheckpointException if a listed part is missing or differs from its listing; nothing is written
     */
    public Checkpoint writeManifest(CheckpointManifest manifest) throws IOException {
        Path directory = stepDirectory(manifest.nextStep());
        String label = Checkpoint.label(directory, MANIFEST_FILE);
        for (PartInfo listed : manifest.parts()) {
            try {
                verify(directory, listed);
            } catch (CheckpointException e) {
                throw new CheckpointException("cannot write " + label + ": " + e.getMessage(), e);
            }
        }
        manifest.toPart().write(directory.resolve(MANIFEST_FILE));
        return new Checkpoint(directory, manifest);
    }

    /** The steps that have a directory, complete or not, in ascending order. */
    public List<Long> steps() throws IOException {
        List<Long> steps = new ArrayList<>();
        if (!Files.isDirectory(root)) {
            return steps;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(root)) {
            for (Path entry : entries) {
                Matcher m = STEP_DIRECTORY.matcher(entry.getFileName().toString());
                // Only the canonical name of a step counts, so that no step has two directories.
                if (m.matches() && Files.isDirectory(entry)
                        && stepDirectoryName(Long.parseLong(m.group(1))).equals(m.group())) {
                    steps.add(Long.parseLong(m.group(1)));
                }
            }
        }
        Collections.sort(steps);
        return steps;
    }

    /** The newest checkpoint that has a manifest and verifies, passing silently over the others. */
    public Optional<Checkpoint> latest() throws IOException {
        return latest(skipped -> { });
    }

    /**
     * The newest checkpoint that has a manifest and verifies. Directories without a manifest (a checkpoint cut
     * short) are passed over; so is a checkpoint that fails its checks, which is handed to {@code skipped} (to be
     * logged) first.
     *
     * @throws IOException if a directory cannot be read at all (a problem of the machine, not of a checkpoint)
     */
    public Optional<Checkpoint> latest(Consumer<CheckpointException> skipped) throws IOException {
        List<Long> steps = steps();
        for (int i = steps.size() - 1; i >= 0; i--) {
            long step = steps.get(i);
            if (!Files.exists(stepDirectory(step).resolve(MANIFEST_FILE))) {
                continue;
            }
            try {
                return Optional.of(load(step));
            } catch (CheckpointException e) {
                skipped.accept(e);
            }
        }
        return Optional.empty();
    }

    /**
     * Loads the checkpoint whose next step is {@code step}: reads its manifest and checks every part file against
     * it (size and CRC32C, each file streamed once).
     *
     * @throws CheckpointException if there is no such checkpoint (naming the steps there are), it has no manifest
     *                             (naming the files it has), or its manifest or a part is bad
     */
    public Checkpoint load(long step) throws IOException {
        Path directory = stepDirectory(step);
        String name = stepDirectoryName(step);
        if (!Files.isDirectory(directory)) {
            List<Long> steps = steps();
            throw new CheckpointException("no checkpoint " + name + " in " + root + ": "
                    + (steps.isEmpty() ? "it has none" : "it has " + String.join(", ",
                    steps.stream().map(CheckpointDirectory::stepDirectoryName).toList())));
        }
        Path manifestFile = directory.resolve(MANIFEST_FILE);
        if (!Files.exists(manifestFile)) {
            throw new CheckpointException(name + " is incomplete: it has no " + MANIFEST_FILE
                    + " (written last, once every part is in; the run stopped before that); its files: "
                    + files(directory));
        }
        String label = Checkpoint.label(directory, MANIFEST_FILE);
        CheckpointManifest manifest = CheckpointManifest.fromPart(CheckpointPart.read(manifestFile, label));
        if (manifest.nextStep() != step) {
            throw new CheckpointException(label + " is the manifest of step " + manifest.nextStep()
                    + ", not of its directory's step " + step);
        }
        for (PartInfo listed : manifest.parts()) {
            verify(directory, listed);
        }
        return new Checkpoint(directory, manifest);
    }

    /**
     * Checks a part file against its listing, reading it once: its size, the CRC32C of its bytes before the
     * trailer, and that the trailer holds that CRC (which a part's reader would otherwise find only later).
     */
    private static void verify(Path directory, PartInfo listed) throws IOException {
        String label = Checkpoint.label(directory, listed.fileName());
        PartInfo.Measured found;
        try {
            found = PartInfo.Measured.of(directory.resolve(listed.fileName()));
        } catch (NoSuchFileException e) {
            throw new CheckpointException(label + " is missing; the manifest lists " + listed.describe(), e);
        }
        Checkpoint.check(label, listed, found.info());
        if (found.trailer() != listed.crc32c()) {
            throw new CheckpointException(label + ": the trailer's CRC32C fails: stored "
                    + Messages.crc(found.trailer()) + ", computed " + Messages.crc(listed.crc32c())
                    + " (the manifest lists the same): the trailer is corrupt");
        }
    }

    private static String files(Path directory) throws IOException {
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory)) {
            for (Path entry : entries) {
                names.add(entry.getFileName().toString());
            }
        }
        Collections.sort(names);
        return names.isEmpty() ? "none" : String.join(", ", names);
    }
}

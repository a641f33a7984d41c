package io.lgc4j.core.checkpoint;

import io.lgc4j.core.data.EpochCursor;
import io.lgc4j.core.stage.Stage;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * The last file of a checkpoint, {@code manifest.lgcc}, whose presence makes the checkpoint complete: which run wrote
 * it, where that run resumes, what must match to resume from it, and every part's file with its size and CRC32C, so a
 * part changed or cut short afterwards is refused. A {@link CheckpointPart} of kind {@link PartKind#MANIFEST} with
 * the sections {@code run}, {@code position}, {@code cluster}, {@code model}, {@code config} and {@code parts}, in
 * that order, each read to its last byte (see {@link PartInfo} for which bytes a part's CRC covers); a run that was
 * resumed at another K adds {@code data} (format version 2), where it is in its epoch: uint32 epoch, uint32 count of
 * parts, per part int32 K and int32 steps.
 *
 * <pre>{@code
 * checkpoints.writeManifest(new CheckpointManifest("lgc-ps", 124, Stage.TOP_K, signature, parts));
 * checkpoints.latest().orElseThrow().manifest().checkCompatible(thisRunsSignature);  // every difference listed
 * }</pre>
 *
 * @param runName  the name of the run that wrote the checkpoint
 * @param nextStep the step a resumed run starts with (0-based; the checkpoint ends after step nextStep - 1)
 * @param stage    the stage of that next step (never {@link Stage#SETUP})
 * @param run      K, S, the model and the config of the run that wrote it
 * @param parts    every part's file, size and CRC32C: the K ranks' in rank order, then the S services'
 * @param cursor   how much of its epoch the run had read, when that does not follow from {@code nextStep} and K (a run
 *                 resumed at another K); null when it does: epoch {@code nextStep div T}, step {@code nextStep mod T}
 */
public record CheckpointManifest(String runName, long nextStep, Stage stage, RunSignature run, List<PartInfo> parts,
                                 EpochCursor cursor) {

    /**
     * The config keys a resume ignores unless told otherwise: how the run executes ({@code runtime.*}: in-process
     * or launched, timeouts — the same computation either way), where it writes ({@code run.outputDir}), how long
     * it goes on ({@code training.epochs}, {@code training.maxSteps}: a resumed run may be extended, and nothing in
     * a step depends on the run's length), how often it checkpoints ({@code training.checkpointEverySteps}) and how
     * far each worker reads its data ahead ({@code data.prefetch}: timing only, never bits).
     * Remove a key from this list if a step ever comes to depend on it.
     */
    public static final List<String> DEFAULT_IGNORED_KEYS = List.of("runtime.*", "run.outputDir",
            "training.epochs", "training.maxSteps", "training.checkpointEverySteps", "training.trace.*",
            "data.prefetch", "data.check");

    /**
     * Config keys added after checkpoints had been written, each with its default as the flattened config spells it:
     * a key that only the resuming run has, at this value, is no difference, since the run that wrote the checkpoint
     * behaved as the default does (the file sources: {@code data.source: memory} is the old path; the
     * dense warm-up: {@code warmup.type: none, values: inherit}; one thread,
     * {@code model.compute.threads: 1}, is what every launcher ran; {@code training.overlap: none}, compute, exchange
     * and apply in turn). A key added later goes here with its default, or
     * every older checkpoint becomes unresumable.
     */
    public static final Map<String, String> ADDED_KEYS = Map.ofEntries(Map.entry("data.source", "memory"),
            Map.entry("data.prefetch", "2"), Map.entry("data.csv.labelColumn", "-1"),
            Map.entry("data.csv.classes", "0"), Map.entry("data.csv.skipLines", "0"),
            Map.entry("data.csv.delimiter", ","), Map.entry("warmup.type", "none"),
            Map.entry("warmup.values", "inherit"), Map.entry("warmup.carryMemory", "true"),
            Map.entry("model.compute.threads", "1"), Map.entry("training.overlap", "none"),
            Map.entry("topology.supportPath", "relay"), Map.entry("topology.directBelowBytes", "0"),
            Map.entry("training.bucketBytes", "1048576"), Map.entry("data.testPath", ""));

    /** Section names. */
    static final String RUN = "run";
    static final String POSITION = "position";
    static final String CLUSTER = "cluster";
    static final String MODEL = "model";
    static final String CONFIG = "config";
    static final String PARTS = "parts";
    static final String DATA = "data";

    /** Checks every component; the part list must be exactly the K ranks' and S services' files, in order. */
    public CheckpointManifest {
        Objects.requireNonNull(runName, "runName");
        if (runName.isEmpty()) {
            throw new IllegalArgumentException("runName must not be empty");
        }
        if (nextStep < 0) {
            throw new IllegalArgumentException("nextStep must be >= 0, found " + nextStep);
        }
        if (Objects.requireNonNull(stage, "stage") == Stage.SETUP) {
            throw new IllegalArgumentException("stage must be a training step's stage (FULL, TOP_K, COMPRESSED), "
                    + "found SETUP");
        }
        Objects.requireNonNull(run, "run");
        parts = List.copyOf(parts);
        List<String> expected = partFileNames(run.workers(), run.services());
        List<String> found = parts.stream().map(PartInfo::fileName).toList();
        if (!found.equals(expected)) {
            throw new IllegalArgumentException("the parts of K = " + run.workers() + ", S = " + run.services()
                    + " must be " + expected + " in this order, found " + found);
        }
    }

    /** A manifest of a run whose place in its epoch follows from {@code nextStep} and K. */
    public CheckpointManifest(String runName, long nextStep, Stage stage, RunSignature run, List<PartInfo> parts) {
        this(runName, nextStep, stage, run, parts, null);
    }

    /** The part files of a checkpoint of K ranks and S services, in manifest order. */
    public static List<String> partFileNames(int workers, int services) {
        List<String> names = new ArrayList<>();
        for (int r = 0; r < workers; r++) {
            names.add(CheckpointDirectory.rankFileName(r));
        }
        for (int s = 0; s < services; s++) {
            names.add(CheckpointDirectory.serverFileName(s));
        }
        return names;
    }

    /** The listed part of this file name. */
    public PartInfo part(String fileName) {
        for (PartInfo p : parts) {
            if (p.fileName().equals(fileName)) {
                return p;
            }
        }
        throw new IllegalArgumentException("the manifest lists no part " + fileName + "; it lists "
                + parts.stream().map(PartInfo::fileName).toList());
    }

    /** {@link #checkCompatible(RunSignature, Collection)} ignoring {@link #DEFAULT_IGNORED_KEYS}. */
    public void checkCompatible(RunSignature thisRun) throws CheckpointException {
        checkCompatible(thisRun, DEFAULT_IGNORED_KEYS);
    }

    /**
     * Checks that {@code thisRun} may resume from this checkpoint: the same K, S, model and config, except the
     * config keys {@code ignoredKeys} matches ({@code prefix.*} or an exact key; see {@link RunSignature#ignored}).
     *
     * @throws CheckpointException listing every difference, one per line, config keys sorted:
     *                             <pre>
     * checkpoint step-000124 of run 'lgc-ps' does not fit this run:
     *   the checkpoint was written by K = 4 workers, this run has K = 3
     *   config keys differ (ignoring runtime.*, run.outputDir, training.epochs, ...):
     *     compressor.ratio: checkpoint 0.01, this run 0.001
     *     compressor.sketch: only in the checkpoint (8)
     *                             </pre>
     */
    public void checkCompatible(RunSignature thisRun, Collection<String> ignoredKeys) throws CheckpointException {
        List<String> differences = run.differences(thisRun, ignoredKeys);
        if (!differences.isEmpty()) {
            throw new CheckpointException("checkpoint " + CheckpointDirectory.stepDirectoryName(nextStep)
                    + " of run '" + runName + "' does not fit this run:\n  " + String.join("\n  ", differences));
        }
    }

    /** The manifest as a part, ready to be written. */
    public CheckpointPart toPart() {
        CheckpointPart.Builder b = CheckpointPart.builder(PartKind.MANIFEST,
                cursor == null ? CheckpointDescriptor.VERSION : CheckpointDescriptor.MAX_VERSION);
        b.section(RUN).putString(runName);
        b.section(POSITION).putLong(nextStep).putByte(stage.wireId());
        b.section(CLUSTER).putInt(run.workers()).putInt(run.services());
        b.section(MODEL).putLong(run.model().parameterCount()).putString(run.model().fingerprint());
        SectionWriter config = b.section(CONFIG).putInt(run.config().size());
        run.config().forEach((k, v) -> config.putString(k).putString(v));
        SectionWriter list = b.section(PARTS).putInt(parts.size());
        for (PartInfo p : parts) {
            list.putString(p.fileName()).putLong(p.size()).putInt(p.crc32c());
        }
        if (cursor != null) {
            SectionWriter data = b.section(DATA).putInt(cursor.epoch()).putInt(cursor.read().size());
            cursor.read().forEach(p -> data.putInt(p.workers()).putInt(p.steps()));
        }
        return b.build();
    }

    /**
     * Reads a manifest from its part.
     *
     * @throws CheckpointException if the part is not a manifest, a section is missing, short or long, or a value is
     *                             out of range; the message names the part and the section
     */
    public static CheckpointManifest fromPart(CheckpointPart part) throws CheckpointException {
        part.requireKind(PartKind.MANIFEST);
        SectionReader s = part.section(RUN);
        String runName = s.getString();
        s.end();
        s = part.section(POSITION);
        long nextStep = s.getLong();
        int stageId = s.getByte();
        s.end();
        Stage stage = stage(stageId, part);
        s = part.section(CLUSTER);
        int workers = s.getInt();
        int services = s.getInt();
        s.end();
        s = part.section(MODEL);
        long parameterCount = s.getLong();
        String fingerprint = s.getString();
        s.end();
        s = part.section(CONFIG);
        long keys = Integer.toUnsignedLong(s.getInt());
        Map<String, String> config = new TreeMap<>();
        String previous = null;
        for (long i = 0; i < keys; i++) {
            String key = s.getString();
            String value = s.getString();
            if (previous != null && key.compareTo(previous) <= 0) {
                throw new CheckpointException("section 'config' of " + part.label() + ": key '" + key
                        + "' follows '" + previous + "': keys must be unique and ascending");
            }
            config.put(key, value);
            previous = key;
        }
        s.end();
        s = part.section(PARTS);
        long count = Integer.toUnsignedLong(s.getInt());
        List<PartInfo> parts = new ArrayList<>();
        for (long i = 0; i < count; i++) {
            String fileName = s.getString();
            long size = s.getLong();
            int crc = s.getInt();
            parts.add(valid(part, () -> new PartInfo(fileName, size, crc)));
        }
        s.end();
        EpochCursor cursor = part.has(DATA) ? cursor(part) : null;
        ModelIdentity model = valid(part, () -> new ModelIdentity(parameterCount, fingerprint));
        RunSignature run = valid(part, () -> new RunSignature(workers, services, model, config));
        return valid(part, () -> new CheckpointManifest(runName, nextStep, stage, run, parts, cursor));
    }

    private static EpochCursor cursor(CheckpointPart part) throws CheckpointException {
        SectionReader s = part.section(DATA);
        int epoch = s.getInt();
        long count = Integer.toUnsignedLong(s.getInt());
        List<EpochCursor.Part> read = new ArrayList<>();
        for (long i = 0; i < count; i++) {
            int workers = s.getInt();
            int steps = s.getInt();
            read.add(valid(part, () -> new EpochCursor.Part(workers, steps)));
        }
        s.end();
        return valid(part, () -> new EpochCursor(epoch, read));
    }

    private static Stage stage(int id, CheckpointPart part) throws CheckpointException {
        for (Stage s : Stage.values()) {
            if (s.wireId() == id && s != Stage.SETUP) {
                return s;
            }
        }
        throw new CheckpointException("section 'position' of " + part.label() + ": unknown stage " + id
                + " (0 FULL, 1 TOP_K, 2 COMPRESSED)");
    }

    /** Builds a value from checked fields, turning a refusal into a message naming the manifest. */
    private static <T> T valid(CheckpointPart part, Supplier<T> value)
            throws CheckpointException {
        try {
            return value.get();
        } catch (IllegalArgumentException e) {
            throw new CheckpointException(part.label() + ": " + e.getMessage(), e);
        }
    }
}

package io.lgc4j.core.checkpoint;

import io.lgc4j.core.data.EpochCursor;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.stage.Stage;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static io.lgc4j.core.checkpoint.CheckpointPartTest.message;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The manifest's sections, its checks when read, and what a resume compares. */
class CheckpointManifestTest {
    static final ModelIdentity MODEL = new ModelIdentity(61_706, "sha256:aaaa");
    static final Map<String, String> CONFIG = Map.of(
            "run.name", "lgc-ps", "run.outputDir", "results", "training.workers", "4", "training.epochs", "3",
            "compressor.ratio", "0.01", "runtime.type", "in-process", "runtime.timeoutMs", "60000");

    static CheckpointManifest manifest(int workers, int services) {
        RunSignature run = new RunSignature(workers, services, MODEL, CONFIG);
        return new CheckpointManifest("lgc-ps", 124, Stage.COMPRESSED, run,
                CheckpointManifest.partFileNames(workers, services).stream()
                        .map(name -> new PartInfo(name, 1000, name.hashCode())).toList());
    }

    static Map<String, String> config(String... changes) {
        Map<String, String> config = new TreeMap<>(CONFIG);
        for (int i = 0; i < changes.length; i += 2) {
            if (changes[i + 1] == null) {
                config.remove(changes[i]);
            } else {
                config.put(changes[i], changes[i + 1]);
            }
        }
        return config;
    }

    @Test
    void shouldRoundTripThroughItsPart() throws CheckpointException {
        CheckpointManifest m = manifest(4, 1);
        CheckpointPart part = CheckpointPart.parse(m.toPart().toBytes(), "manifest.lgcc");
        assertEquals(List.of("run", "position", "cluster", "model", "config", "parts"), part.sectionNames());
        assertEquals(m, CheckpointManifest.fromPart(part));
        assertEquals(List.of("rank-0.lgcc", "rank-1.lgcc", "rank-2.lgcc", "rank-3.lgcc", "server-0.lgcc"),
                m.parts().stream().map(PartInfo::fileName).toList());
    }

    @Test
    void aCursorShouldRoundTripAndABadOneBeRefusedNamingIt() throws CheckpointException {
        CheckpointManifest plain = manifest(4, 1);
        CheckpointManifest resized = new CheckpointManifest(plain.runName(), plain.nextStep(), plain.stage(),
                plain.run(), plain.parts(), new EpochCursor(2, List.of(new EpochCursor.Part(4, 7))));
        CheckpointPart part = CheckpointPart.parse(resized.toPart().toBytes(), "manifest.lgcc");
        assertEquals(resized, CheckpointManifest.fromPart(part));
        assertEquals(2, part.version());
        assertEquals(1, CheckpointPart.parse(plain.toPart().toBytes(), "manifest.lgcc").version());
        assertEquals("manifest.lgcc: a part of an epoch runs >= 1 steps, found 0",
                message(() -> CheckpointManifest.fromPart(withData(part, w -> w.putInt(2).putInt(1).putInt(4)
                        .putInt(0)))));
        assertEquals("section 'data' of manifest.lgcc: expected an int (4 bytes), found 0 bytes",
                message(() -> CheckpointManifest.fromPart(withData(part, w -> w.putInt(2).putInt(1).putInt(4)))));
    }

    /** {@code part} with its {@code data} section written by {@code data} instead. */
    private static CheckpointPart withData(CheckpointPart part, java.util.function.Consumer<SectionWriter> data)
            throws CheckpointException {
        CheckpointPart.Builder b = CheckpointPart.builder(PartKind.MANIFEST, 2);
        for (String name : part.sectionNames()) {
            if (name.equals("data")) {
                data.accept(b.section(name));
            } else {
                b.section(name).putBytes(part.bytes(name));
            }
        }
        return reparse(b.build());
    }

    @Test
    void shouldRefuseAPartListThatIsNotTheRanksThenTheServices() {
        RunSignature run = new RunSignature(2, 1, MODEL, CONFIG);
        assertEquals("the parts of K = 2, S = 1 must be [rank-0.lgcc, rank-1.lgcc, server-0.lgcc] in this order, "
                + "found [rank-0.lgcc, server-0.lgcc]", assertThrows(IllegalArgumentException.class,
                () -> new CheckpointManifest("r", 1, Stage.FULL, run, List.of(new PartInfo("rank-0.lgcc", 1, 0),
                        new PartInfo("server-0.lgcc", 1, 0)))).getMessage());
        assertEquals("stage must be a training step's stage (FULL, TOP_K, COMPRESSED), found SETUP",
                assertThrows(IllegalArgumentException.class, () -> new CheckpointManifest("r", 1, Stage.SETUP,
                        new RunSignature(1, 0, MODEL, CONFIG), List.of(new PartInfo("rank-0.lgcc", 1, 0))))
                        .getMessage());
    }

    @Test
    void shouldRefuseAManifestPartThatIsIncompleteOrInconsistent() throws CheckpointException {
        CheckpointPart rank = CheckpointPart.parse(CheckpointPart.builder(PartKind.RANK).build().toBytes(),
                "manifest.lgcc");
        assertEquals("manifest.lgcc: expected a manifest part, found a rank part",
                message(() -> CheckpointManifest.fromPart(rank)));

        CheckpointPart.Builder b = CheckpointPart.builder(PartKind.MANIFEST);
        b.section("run").putString("r");
        assertEquals("manifest.lgcc has no section 'position'; its sections: run",
                message(() -> CheckpointManifest.fromPart(reparse(b.build()))));

        CheckpointPart stage = manifestWith(Stage.SETUP.wireId(), 1, List.of("a", "b"), List.of("rank-0.lgcc"));
        assertEquals("section 'position' of manifest.lgcc: unknown stage 3 (0 FULL, 1 TOP_K, 2 COMPRESSED)",
                message(() -> CheckpointManifest.fromPart(stage)));
        CheckpointPart unsorted = manifestWith(0, 1, List.of("b", "a"), List.of("rank-0.lgcc"));
        assertEquals("section 'config' of manifest.lgcc: key 'a' follows 'b': keys must be unique and ascending",
                message(() -> CheckpointManifest.fromPart(unsorted)));
        CheckpointPart parts = manifestWith(0, 2, List.of("a"), List.of("rank-0.lgcc"));
        assertEquals("manifest.lgcc: the parts of K = 2, S = 0 must be [rank-0.lgcc, rank-1.lgcc] in this order, "
                + "found [rank-0.lgcc]", message(() -> CheckpointManifest.fromPart(parts)));
    }

    @Test
    void shouldAcceptTheSameRunUpToIgnoredKeys() throws CheckpointException {
        CheckpointManifest m = manifest(4, 1);
        m.checkCompatible(new RunSignature(4, 1, MODEL, CONFIG));
        m.checkCompatible(new RunSignature(4, 1, MODEL, config("runtime.type", "launch", "runtime.timeoutMs", null,
                "run.outputDir", "/tmp/elsewhere", "training.epochs", "5", "training.maxSteps", "900")));
        // a trace changes no bit: a checkpoint written without one resumes with one, and the other way round
        m.checkCompatible(new RunSignature(4, 1, MODEL, config("training.trace.file", "/tmp/t.json",
                "training.trace.steps", "10..19")));
    }

    @Test
    void shouldNameBothWorkerCounts() {
        assertEquals("checkpoint step-000124 of run 'lgc-ps' does not fit this run:\n"
                        + "  the checkpoint was written by K = 4 workers, this run has K = 3",
                message(() -> manifest(4, 1).checkCompatible(new RunSignature(3, 1, MODEL, CONFIG))));
        assertEquals("checkpoint step-000124 of run 'lgc-ps' does not fit this run:\n"
                        + "  the checkpoint was written with S = 1 service, this run has S = 0",
                message(() -> manifest(4, 1).checkCompatible(new RunSignature(4, 0, MODEL, CONFIG))));
    }

    @Test
    void shouldNameBothModels() {
        assertEquals("checkpoint step-000124 of run 'lgc-ps' does not fit this run:\n"
                        + "  another model: the checkpoint's has 61,706 parameters (fingerprint sha256:aaaa), "
                        + "this run's has 61,706 parameters (fingerprint sha256:bbbb)",
                message(() -> manifest(4, 1).checkCompatible(new RunSignature(4, 1,
                        new ModelIdentity(61_706, "sha256:bbbb"), CONFIG))));
    }

    @Test
    void aKeyAddedSinceTheCheckpointShouldDifferOnlyAwayFromItsDefault() throws Exception {
        // a checkpoint written before data.source existed: the resuming run has it at its default
        manifest(4, 1).checkCompatible(new RunSignature(4, 1, MODEL, config("data.source", "memory",
                "data.csv.delimiter", ",", "data.csv.classes", "0")));
        assertEquals("checkpoint step-000124 of run 'lgc-ps' does not fit this run:\n"
                + "  config keys differ (ignoring runtime.*, run.outputDir, training.epochs, training.maxSteps, "
                + "training.checkpointEverySteps, training.trace.*, data.prefetch, data.check):\n"
                + "    data.csv.classes: only in this run (10)\n"
                + "    data.source: only in this run (files)",
                message(() -> manifest(4, 1).checkCompatible(new RunSignature(4, 1, MODEL, config("data.source",
                        "files", "data.csv.classes", "10")))));
        // a checkpoint written before the warmup section (issue 41): the dense warm-up resumes it, another does not
        manifest(4, 1).checkCompatible(new RunSignature(4, 1, MODEL, config("warmup.type", "none", "warmup.values",
                "inherit", "warmup.carryMemory", "true")));
        // nor before model.compute.threads: one thread is what it ran
        manifest(4, 1).checkCompatible(new RunSignature(4, 1, MODEL, config("model.compute.threads", "1")));
        assertEquals("checkpoint step-000124 of run 'lgc-ps' does not fit this run:\n"
                + "  config keys differ (ignoring runtime.*, run.outputDir, training.epochs, training.maxSteps, "
                + "training.checkpointEverySteps, training.trace.*, data.prefetch, data.check):\n"
                + "    warmup.type: only in this run (powersgd)",
                message(() -> manifest(4, 1).checkCompatible(new RunSignature(4, 1, MODEL, config("warmup.type",
                        "powersgd", "warmup.values", "inherit", "warmup.carryMemory", "true")))));
        // only the resuming run's side is forgiven: a checkpoint's key that this run lacks still differs
        RunSignature withSource = new RunSignature(4, 1, MODEL, config("data.source", "memory"));
        CheckpointManifest newer = new CheckpointManifest("lgc-ps", 124, Stage.COMPRESSED, withSource,
                manifest(4, 1).parts());
        assertEquals("checkpoint step-000124 of run 'lgc-ps' does not fit this run:\n"
                + "  config keys differ (ignoring runtime.*, run.outputDir, training.epochs, training.maxSteps, "
                + "training.checkpointEverySteps, training.trace.*, data.prefetch, data.check):\n"
                + "    data.source: only in the checkpoint (memory)",
                message(() -> newer.checkCompatible(new RunSignature(4, 1, MODEL, CONFIG))));
    }

    @Test
    void shouldListEveryDifferingConfigKeySorted() {
        RunSignature other = new RunSignature(4, 1, MODEL, config("compressor.ratio", "0.001", "run.name", null,
                "training.seed", "7", "runtime.type", "launch", "training.epochs", "9"));
        assertEquals("checkpoint step-000124 of run 'lgc-ps' does not fit this run:\n"
                + "  config keys differ (ignoring runtime.*, run.outputDir, training.epochs, training.maxSteps, "
                + "training.checkpointEverySteps, training.trace.*, data.prefetch, data.check):\n"
                + "    compressor.ratio: checkpoint 0.01, this run 0.001\n"
                + "    run.name: only in the checkpoint (lgc-ps)\n"
                + "    training.seed: only in this run (7)", message(() -> manifest(4, 1).checkCompatible(other)));
        assertEquals("checkpoint step-000124 of run 'lgc-ps' does not fit this run:\n"
                + "  config keys differ (ignoring run.*):\n"
                + "    compressor.ratio: checkpoint 0.01, this run 0.001\n"
                + "    runtime.type: checkpoint in-process, this run launch\n"
                + "    training.epochs: checkpoint 3, this run 9\n"
                + "    training.seed: only in this run (7)",
                message(() -> manifest(4, 1).checkCompatible(other, List.of("run.*"))));
    }

    @Test
    void shouldListEveryKindOfDifferenceAtOnce() {
        RunSignature other = new RunSignature(3, 1, new ModelIdentity(11, "sha256:cccc"),
                config("training.workers", "3"));
        assertEquals("checkpoint step-000124 of run 'lgc-ps' does not fit this run:\n"
                + "  the checkpoint was written by K = 4 workers, this run has K = 3\n"
                + "  another model: the checkpoint's has 61,706 parameters (fingerprint sha256:aaaa), this run's has "
                + "11 parameters (fingerprint sha256:cccc)\n"
                + "  config keys differ:\n"
                + "    training.workers: checkpoint 4, this run 3",
                message(() -> manifest(4, 1).checkCompatible(other, List.of())));
    }

    @Test
    void shouldIgnoreKeysByPrefixOrExactly() {
        assertTrue(RunSignature.ignored("runtime.type", List.of("runtime.*")));
        assertTrue(RunSignature.ignored("runtime.net.port", List.of("runtime.*")));
        assertFalse(RunSignature.ignored("runtimeX.type", List.of("runtime.*")));
        assertFalse(RunSignature.ignored("runtime", List.of("runtime.*")));
        assertTrue(RunSignature.ignored("run.outputDir", List.of("run.outputDir")));
        assertFalse(RunSignature.ignored("run.outputDirs", List.of("run.outputDir")));
    }

    @Test
    void shouldFingerprintTheLayoutNotThePolicies() {
        List<ParamBlock> blocks = List.of(
                new ParamBlock(0, 0, "fc", "W", 0, 1000, new long[] {10, 100}, LayerPolicy.LEARNED),
                new ParamBlock(1, 1, "out", "W", 1000, 100, new long[] {100, 1}, LayerPolicy.TOP_K));
        ModelIdentity id = ModelIdentity.of(GradientLayout.ofBlocks(blocks));
        assertEquals(1100, id.parameterCount());
        assertEquals(id, ModelIdentity.of(GradientLayout.ofBlocks(blocks).withPolicy(b -> LayerPolicy.DENSE)));
        ModelIdentity transposed = ModelIdentity.of(GradientLayout.ofBlocks(List.of(
                new ParamBlock(0, 0, "fc", "W", 0, 1000, new long[] {100, 10}, LayerPolicy.LEARNED),
                blocks.get(1))));
        assertEquals(1100, transposed.parameterCount());
        assertNotEquals(id.fingerprint(), transposed.fingerprint());
    }

    /** A manifest part with a chosen stage id, K, config keys (in the order given) and part names. */
    private static CheckpointPart manifestWith(int stage, int workers, List<String> keys, List<String> parts)
            throws CheckpointException {
        CheckpointPart.Builder b = CheckpointPart.builder(PartKind.MANIFEST);
        b.section("run").putString("r");
        b.section("position").putLong(1).putByte(stage);
        b.section("cluster").putInt(workers).putInt(0);
        b.section("model").putLong(1).putString("f");
        SectionWriter config = b.section("config").putInt(keys.size());
        keys.forEach(k -> config.putString(k).putString("v"));
        SectionWriter list = b.section("parts").putInt(parts.size());
        parts.forEach(p -> list.putString(p).putLong(1).putInt(0));
        return reparse(b.build());
    }

    private static CheckpointPart reparse(CheckpointPart part) throws CheckpointException {
        return CheckpointPart.parse(part.toBytes(), "manifest.lgcc");
    }
}

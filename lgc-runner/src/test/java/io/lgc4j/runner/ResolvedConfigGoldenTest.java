package io.lgc4j.runner;

import io.lgc4j.runner.config.ConfigLoader;
import io.lgc4j.runner.config.ExperimentConfig;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a config resolves to, pinned: for every file under {@code configs/}, the resolved {@code config.yaml} a run
 * writes (every default spelled out) and the flattened keys its checkpoints carry ({@link ConfigKeys#flatten}, which
 * a resume compares), against golden files; and every {@code config.yaml} committed under {@code docs/results/}
 * still loads. A change to the config schema that moves a default, renames a key or rewrites a value's text shows up
 * here — and would otherwise refuse every old checkpoint on resume and retrain every finished suite run.
 *
 * <p>To rewrite the golden files after an intended change: {@code mvn -pl lgc-runner test
 * -Dtest=ResolvedConfigGoldenTest -Dlgc.golden.update=true}, then review their diff.
 */
class ResolvedConfigGoldenTest {

    private static final Path GOLDEN = Path.of("src/test/resources/golden/resolved");
    private static final boolean UPDATE = Boolean.getBoolean("lgc.golden.update");

    @Test
    void everyShippedConfigShouldResolveToItsGoldenYamlAndCheckpointKeys() throws IOException {
        List<Path> configs = list(repository().resolve("configs"), 1);
        assertTrue(configs.size() >= 13, "the shipped configs: " + configs);
        List<String> changed = new ArrayList<>();
        for (Path file : configs) {
            ExperimentConfig config = ConfigLoader.load(file);
            String name = file.getFileName().toString().replaceFirst("\\.yaml$", "");
            StringBuilder keys = new StringBuilder();
            for (Map.Entry<String, String> e : ConfigKeys.flatten(config).entrySet()) {
                keys.append(e.getKey()).append('=').append(e.getValue()).append('\n');
            }
            check(GOLDEN.resolve(name + ".yaml"), config.toYaml(), changed);
            check(GOLDEN.resolve(name + ".keys"), keys.toString(), changed);
        }
        assertEquals(List.of(), changed, "resolved configs that differ from their golden files (rewrite them with"
                + " -Dlgc.golden.update=true only for an intended change)");
    }

    @Test
    void everyCommittedRunConfigShouldStillLoad() throws IOException {
        List<Path> files = list(repository().resolve("docs/results"), Integer.MAX_VALUE).stream()
                .filter(f -> f.getFileName().toString().equals("config.yaml")).toList();
        assertTrue(files.size() >= 200, "the committed runs' config.yaml files: " + files.size());
        List<String> refused = new ArrayList<>();
        for (Path file : files) {
            try {
                ConfigLoader.load(file);
            } catch (RuntimeException e) {
                refused.add(file + ": " + e.getMessage());
            }
        }
        assertEquals(List.of(), refused);
    }

    private static void check(Path golden, String actual, List<String> changed) throws IOException {
        if (UPDATE) {
            Files.createDirectories(golden.getParent());
            Files.writeString(golden, actual, StandardCharsets.UTF_8);
            return;
        }
        if (!Files.isRegularFile(golden)) {
            changed.add(golden + " (missing)");
        } else if (!Files.readString(golden, StandardCharsets.UTF_8).equals(actual)) {
            changed.add(golden.toString());
        }
    }

    private static List<Path> list(Path dir, int depth) throws IOException {
        try (Stream<Path> files = Files.walk(dir, depth)) {
            return files.filter(f -> Files.isRegularFile(f) && f.toString().endsWith(".yaml")).sorted().toList();
        }
    }

    /** The repository's root, found by walking up from the working directory to the one holding {@code configs/}. */
    private static Path repository() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve("configs")) && Files.isDirectory(dir.resolve("docs/results"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no configs/ and docs/results/ above " + Path.of("").toAbsolutePath());
    }
}

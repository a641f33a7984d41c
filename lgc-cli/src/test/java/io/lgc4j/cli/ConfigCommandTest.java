package io.lgc4j.cli;

import io.lgc4j.runner.config.ConfigLoader;
import io.lgc4j.runner.config.ExperimentConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code lgc config keys} lists what a config may hold, from the definitions the loader binds; resolve prints it. */
class ConfigCommandTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private PrintStream originalOut;
    private PrintStream originalErr;

    @BeforeEach
    void capture() {
        originalOut = System.out;
        originalErr = System.err;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restore() {
        System.setOut(originalOut);
        System.setErr(originalErr);
    }

    private List<String> lines() {
        return out.toString(StandardCharsets.UTF_8).lines().toList();
    }

    @Test
    void keysShouldListEveryKeyOfAResolvedConfigWithItsDefault() {
        assertEquals(0, LgcCommand.execute("config", "keys"));
        List<String> lines = lines();
        Map<String, Object> tree = ConfigLoader.asTree(ExperimentConfig.defaults("my-run"));
        for (String key : flatten("", tree)) {
            assertTrue(lines.stream().anyMatch(l -> l.startsWith(key + " = ")), key + " missing from " + lines);
        }
        assertTrue(lines.contains("run.name = (required)"), lines.toString());
        assertTrue(lines.contains("compressor.ratio = 0.001"), lines.toString());
        assertTrue(lines.contains("topology.shardBy = buffers   one of [blocks, buffers, layers]"), lines.toString());
        assertTrue(lines.contains("compressor.values = fp32   one of [fp32, fp16, bf16]"), lines.toString());
        assertTrue(lines.contains("compressor.learnedRatio = (absent: compressor.ratio)   compressor.type dgc or"
                + " randomk or scalecom or topk only"), lines.toString());
        assertTrue(lines.contains("compressor.rank = 1   compressor.type powersgd only"), lines.toString());
    }

    @Test
    void keysOfOneCompressorShouldLeaveOutTheOthersOwnKeys() {
        assertEquals(0, LgcCommand.execute("config", "keys", "--compressor", "powersgd"));
        List<String> lines = lines();
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("compressor.rank = ")), lines.toString());
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("compressor.ratio = ")), lines.toString());
        assertFalse(lines.stream().anyMatch(l -> l.startsWith("compressor.learnedRatio")), lines.toString());
    }

    @Test
    void resolveShouldPrintWhatTheRunsConfigYamlRecordsAndRefuseABadFile(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("mine.yaml");
        Files.writeString(file, "run: {name: mine}\ncompressor: {type: dgc, ratio: 0.01}\nmodel: {updater: {type: sgd}}\n");
        assertEquals(0, LgcCommand.execute("config", "resolve", file.toString()));
        assertEquals(ConfigLoader.load(file).toYaml(), out.toString(StandardCharsets.UTF_8));
        Files.writeString(file, "run: {name: mine}\ncompressor: {ratio: 2}\n");
        assertEquals(2, LgcCommand.execute("config", "resolve", file.toString()));
        assertEquals("lgc: " + file + ": key 'compressor.ratio' must be <= 1.0, found 2.0",
                err.toString(StandardCharsets.UTF_8).trim());
    }

    /** The manual's block of every section is a config whose values are the defaults: keys and defaults agree. */
    @Test
    void theManualsKeyBlockShouldBeTheDefaults() throws IOException {
        String manual = Files.readString(repositoryRoot().resolve("docs/manual.md"));
        int start = manual.indexOf("```yaml\nrun:      {name: quickstart");
        assertTrue(start >= 0, "docs/manual.md lost its block of every section");
        String block = manual.substring(start + "```yaml\n".length(), manual.indexOf("```", start + 7));
        assertEquals(ExperimentConfig.defaults("quickstart"), ConfigLoader.parse(block, "docs/manual.md"));
    }

    private static List<String> flatten(String prefix, Object value) {
        if (value instanceof Map<?, ?> map) {
            return map.entrySet().stream().flatMap(e -> flatten(prefix.isEmpty() ? String.valueOf(e.getKey())
                    : prefix + "." + e.getKey(), e.getValue()).stream()).toList();
        }
        return List.of(prefix);
    }

    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("docs/manual.md"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no docs/manual.md above " + Path.of("").toAbsolutePath());
    }
}

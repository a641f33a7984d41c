package io.lgc4j.cli.tables;

import io.lgc4j.runner.config.ConfigLoader;
import io.lgc4j.runner.config.ExperimentConfig;
import io.lgc4j.runner.ExperimentRunner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/** When a suite reuses a run it finds on disk. */
class SuiteRunsTest {
    private static final ExperimentConfig PLANNED = ConfigLoader.parse("""
            run: {name: topk-small-cnn-s7, seed: 7}
            training: {workers: 2, maxSteps: 6}
            topology: {type: ps}
            compressor: {type: topk, ratio: 0.01}
            """, "planned");

    private static Path finished(Path dir, String configYaml) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve(ExperimentRunner.SUMMARY), "{}");
        Files.writeString(dir.resolve("config.yaml"), configYaml);
        return dir;
    }

    @Test
    void shouldReuseARunWhoseConfigReadsAsThePlannedOneEvenWithoutItsDefaults(@TempDir Path tmp) throws IOException {
        String full = PLANNED.toYaml();
        assertTrue(SuiteRuns.isFinished(finished(tmp.resolve("same"), full), PLANNED));
        // written before 'clipNorm' existed: the key missing, its default the same
        String older = full.replaceAll("(?m)^  clipNorm: 0\\.0\\n", "");
        assertNotEquals(full, older);
        assertTrue(SuiteRuns.isFinished(finished(tmp.resolve("older"), older), PLANNED));
    }

    @Test
    void shouldRetrainARunWithAnotherSettingAnUnreadableConfigOrNoSummary(@TempDir Path tmp) throws IOException {
        String full = PLANNED.toYaml();
        assertFalse(SuiteRuns.isFinished(finished(tmp.resolve("ratio"), full.replace("ratio: 0.01",
                "ratio: 0.02")), PLANNED));
        assertFalse(SuiteRuns.isFinished(finished(tmp.resolve("seed"), full.replace("seed: 7", "seed: 8")),
                PLANNED));
        assertFalse(SuiteRuns.isFinished(finished(tmp.resolve("removed-key"), full + "gone: {}\n"), PLANNED));
        Path noSummary = finished(tmp.resolve("interrupted"), full);
        Files.delete(noSummary.resolve(ExperimentRunner.SUMMARY));
        assertFalse(SuiteRuns.isFinished(noSummary, PLANNED));
    }
}

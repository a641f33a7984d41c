package io.lgc4j.bench;

import io.lgc4j.runner.config.ConfigLoader;
import io.lgc4j.runner.config.ExperimentConfig;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@code lgc bench checkpoints} without training (a run takes ~40 s: not for CI): every model × method config it
 * writes loads, checkpoints as asked, and its resume config differs only in keys a resume may change.
 */
class CheckpointBenchmarkTest {

    private static final List<String> METHODS = List.of("dense-ps", "dense-ring", "dgc-ps", "lgc-ps", "lgc-rar");

    @Test
    void everyConfigShouldLoadWithItsCheckpointsAndStages() {
        CheckpointBenchmark.Settings s = new CheckpointBenchmark.Settings(List.of("small-cnn", "small-resnet"),
                METHODS, 24, 4, 6, 6, Path.of("/usr/share/datasets/fashion-mnist"), Path.of("/tmp/unused"));
        for (String model : s.models()) {
            for (String method : METHODS) {
                ExperimentConfig run = ConfigLoader.parse(CheckpointBenchmark.yaml(s, model, method, Path.of("/tmp/o"),
                        24, 4), method + ".yaml");
                assertEquals(4, run.training().workers());
                assertEquals(4, run.training().checkpointEverySteps());
                assertEquals(24, run.training().maxSteps());
                assertEquals(model, run.model().name().toString().toLowerCase().replace('_', '-'));
                ExperimentConfig resume = ConfigLoader.parse(CheckpointBenchmark.yaml(s, model, method,
                        Path.of("/tmp/p"), 25, 0), method + ".yaml");
                assertEquals(run.toYaml().replaceAll("(?m)^.*(maxSteps|checkpointEverySteps|outputDir).*$", ""),
                        resume.toYaml().replaceAll("(?m)^.*(maxSteps|checkpointEverySteps|outputDir).*$", ""));
            }
        }
    }

    @Test
    void badSettingsShouldBeRefused() {
        Path d = Path.of("/tmp");
        assertThrows(IllegalArgumentException.class, () -> new CheckpointBenchmark.Settings(List.of("small-cnn"),
                List.of("topk-ps"), 24, 4, 6, 6, d, d));
        assertThrows(IllegalArgumentException.class, () -> new CheckpointBenchmark.Settings(List.of("small-cnn"),
                METHODS, 3, 4, 6, 6, d, d));
    }
}

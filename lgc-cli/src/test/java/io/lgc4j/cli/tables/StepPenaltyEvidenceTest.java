package io.lgc4j.cli.tables;

import io.lgc4j.advise.MethodKey;
import io.lgc4j.advise.StepPenalties;
import io.lgc4j.advise.StepPenalty;
import io.lgc4j.advise.config.StepEvidence;
import io.lgc4j.runner.config.ConfigLoader;
import io.lgc4j.runner.config.ExperimentConfig;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StepPenaltyEvidenceTest {

    private static final Path RESULTS = Path.of("..", "docs", "results");
    private static final Path SHIPPED = Path.of("..", "lgc-runner", "src", "main", "resources", "io", "lgc4j",
            "runner", "step-penalties.csv");
    private static final Path TTA = RESULTS.resolve("time-to-accuracy");

    private static ExperimentConfig config(String run) {
        return ConfigLoader.load(TTA.resolve(run).resolve("config.yaml"));
    }

    @Test
    void shippedEvidenceShouldBeWhatTheCommittedResultsGive() throws IOException {
        List<String> skipped = new ArrayList<>();
        StepPenalties regenerated = StepPenaltyEvidence.build(StepPenaltyEvidence.scan(RESULTS, 0.80, skipped), 0.80);
        assertEquals(regenerated.write(), Files.readString(SHIPPED, StandardCharsets.UTF_8),
                "the shipped step penalties are stale: run bin/lgc evidence step-penalties --output " + SHIPPED
                        .normalize() + " from the repository's root");
        assertEquals(regenerated.rows(), StepEvidence.shipped().rows());
    }

    @Test
    void shouldFindTheWarmupSuitesPenaltyFromAnyRunOfTheSameMath() {
        StepPenalties shipped = StepEvidence.shipped();
        ExperimentConfig scalecom = config("warmup/runs/scalecom-powersgd-r2-small-cnn-s1");
        String evidence = StepEvidence.evidenceKey(scalecom);
        StepPenalty dense = shipped.dense(evidence, 0.80).orElseThrow();
        assertEquals(List.of(1L, 2L, 3L, 42L), dense.seeds());
        assertEquals(List.of(100, 125, 100, 100), dense.denseSteps());
        StepPenalty row = shipped.find(evidence, StepEvidence.methodKey(scalecom), 0.80).orElseThrow();
        assertEquals(List.of(250, 225, 175, 200), row.steps());
        assertEquals(OptionalDouble.of(2.0), row.penalty());
        // the routes change no math, so the routed run of another suite has the same key, and the seed changes the
        // evidence key not at all
        ExperimentConfig routed = config("routes/reference/runs/scalecom-routed-small-cnn");
        assertEquals(StepEvidence.methodKey(scalecom), StepEvidence.methodKey(routed));
        assertEquals(evidence, StepEvidence.evidenceKey(routed));
        // dense on the parameter server, and dense ring, are the dense row
        assertEquals(MethodKey.DENSE, StepEvidence.methodKey(config("overlap/runs/dense-ring-small-cnn-s1")));
        // delayed application changes the math, and two of its three seeds reached 80 %: no penalty to claim
        StepPenalty delayed = shipped.find(evidence,
                StepEvidence.methodKey(config("overlap/runs/dense-ring-delayed-small-cnn-s1")), 0.80).orElseThrow();
        assertFalse(delayed.reachedEverySeed());
        assertTrue(delayed.penalty().isEmpty());
    }

    @Test
    void shouldKeyEvidenceOnWhatDenseStepsDependOn() {
        ExperimentConfig a = config("warmup/runs/scalecom-powersgd-r2-small-cnn-s1");
        assertEquals(StepEvidence.evidenceKey(a), StepEvidence.evidenceKey(a.withTraining(a.training()
                .withMaxSteps(100))));
        assertNotEquals(StepEvidence.evidenceKey(a), StepEvidence.evidenceKey(a.withTraining(
                new io.lgc4j.runner.config.TrainingConfig(8, 32, 1, 0, 25, false, 0))));
        assertTrue(StepEvidence.evidenceKey(a).contains("model.name=small-cnn"), StepEvidence.evidenceKey(a));
        assertFalse(StepEvidence.evidenceKey(a).contains("data.path"), StepEvidence.evidenceKey(a));
    }

    private static StepPenaltyEvidence.Run run(String dir, MethodKey method, long seed, int steps) {
        return new StepPenaltyEvidence.Run(dir, "e", method, seed, 25, steps);
    }

    @Test
    void shouldPairEveryMethodWithDenseOnTheSameSeeds() {
        MethodKey fp16 = new MethodKey("compressor=none;values=fp16;stages=all/0");
        StepPenalties built = StepPenaltyEvidence.build(List.of(
                run("d1", MethodKey.DENSE, 1, 100), run("d2", MethodKey.DENSE, 2, 125),
                run("d2-copy", MethodKey.DENSE, 2, 125), run("d3", MethodKey.DENSE, 3, StepPenalty.NOT_REACHED),
                run("f1", fp16, 1, 150), run("f2", fp16, 2, StepPenalty.NOT_REACHED), run("f3", fp16, 3, 100),
                run("f9", fp16, 9, 100), new StepPenaltyEvidence.Run("x1", "other", fp16, 1, 25, 100),
                // evaluated less often than seed 1's other fp16 run: not counted
                new StepPenaltyEvidence.Run("f1-coarse", "e", fp16, 1, 100, 200),
                // dense's seed 5 was evaluated every 100 steps, fp16's every 25: they do not pair
                new StepPenaltyEvidence.Run("d5", "e", MethodKey.DENSE, 5, 100, 100), run("f5", fp16, 5, 125)), 0.8);
        assertEquals(2, built.rows().size(), built.write());
        StepPenalty dense = built.dense("e", 0.8).orElseThrow();
        assertEquals(List.of(1L, 2L, 5L), dense.seeds());
        assertEquals(List.of("d1", "d2", "d2-copy", "d5"), dense.runs());
        StepPenalty f = built.find("e", fp16, 0.8).orElseThrow();
        assertEquals(List.of(1L, 2L), f.seeds());
        assertEquals(List.of(150, StepPenalty.NOT_REACHED), f.steps());
        assertEquals(List.of("f1", "f2"), f.runs());
        assertTrue(built.find("other", fp16, 0.8).isEmpty(), "no dense run on that evidence");
    }

    @Test
    void shouldRefuseRunsOfOneConfigAndSeedThatDisagree() {
        var e = assertThrows(IllegalArgumentException.class, () -> StepPenaltyEvidence.build(List.of(
                run("a/dense", MethodKey.DENSE, 42, 100), run("b/dense", MethodKey.DENSE, 42, 125)), 0.8));
        assertEquals("seed 42 of one method and setting reached the target after 100 steps in a/dense and after 125"
                + " steps in b/dense: one config and seed give one trajectory, so one of them is stale (remove or"
                + " rerun it); method dense", e.getMessage());
    }
}

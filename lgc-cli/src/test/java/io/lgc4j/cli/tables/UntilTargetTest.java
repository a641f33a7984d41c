package io.lgc4j.cli.tables;

import io.lgc4j.runner.config.ConfigLoader;
import io.lgc4j.runner.config.ExperimentConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Time to accuracy without training past the target: where a reference reaches it, the capped plan, the check. */
class UntilTargetTest {

    private static final ExperimentConfig CONFIG = ConfigLoader.parse("""
            run: {name: dense-small-cnn, seed: 42}
            training: {workers: 4, epochs: 1, evalEverySteps: 2}
            """, "suite");

    /** A metrics.csv of steps 0..n-1 with the given accuracy at every other step (steps 1, 3, ...). */
    private static MetricsTable metrics(Path dir, double... accuracyEveryOtherStep) throws IOException {
        StringBuilder csv = new StringBuilder("step,stage,loss,test_accuracy\n");
        for (int i = 0; i < accuracyEveryOtherStep.length; i++) {
            csv.append(2 * i).append(",FULL,").append(2.0 - i * 0.1).append(",\n");
            csv.append(2 * i + 1).append(",FULL,").append(1.9 - i * 0.1).append(',')
                    .append(accuracyEveryOtherStep[i]).append('\n');
        }
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("metrics.csv"), csv);
        return MetricsTable.read(dir.resolve("metrics.csv"));
    }

    @Test
    void shouldCountTheStepsUpToTheFirstEvaluationAtOrAboveTheTarget(@TempDir Path tmp) throws IOException {
        MetricsTable m = metrics(tmp, 0.5, 0.79, 0.8, 0.7, 0.85);
        assertEquals(6, UntilTarget.stepsToTarget(m, 0.80));        // evaluated at step 5, i.e. after 6 steps
        assertEquals(2, UntilTarget.stepsToTarget(m, 0.5));
        assertEquals(10, UntilTarget.stepsToTarget(m, 0.85));
        assertEquals(-1, UntilTarget.stepsToTarget(m, 0.9));
    }

    @Test
    void shouldStopEachCappedRunWhereItsReferenceReachedTheTargetAndLeaveOutOneThatNeverDid(@TempDir Path tmp)
            throws IOException {
        Suite.PlannedRun dense = new Suite.PlannedRun("dense", "Dense", "small-cnn", false, CONFIG);
        Suite.PlannedRun slow = new Suite.PlannedRun("slow", "Slow", "small-cnn", false, CONFIG);
        metrics(tmp.resolve("dense"), 0.6, 0.81);
        metrics(tmp.resolve("slow"), 0.6, 0.7);
        Map<String, SuiteRuns.Finished> reference = Map.of(
                dense.key(), new SuiteRuns.Finished(dense, tmp.resolve("dense"), null, false),
                slow.key(), new SuiteRuns.Finished(slow, tmp.resolve("slow"), null, false));

        List<Suite.PlannedRun> capped = UntilTarget.plan(List.of(dense, slow), reference, 0.8);

        assertEquals(1, capped.size());
        assertEquals("dense", capped.get(0).methodId());
        assertEquals(4, capped.get(0).config().training().maxSteps());
        assertEquals(CONFIG.withTraining(CONFIG.training().withMaxSteps(4)), capped.get(0).config());
        assertEquals(dense.key(), capped.get(0).key());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> UntilTarget.plan(List.of(dense), Map.of(), 0.8));
        assertEquals("no reference run for " + dense.key(), e.getMessage());
    }

    @Test
    void shouldAcceptACappedRunOnlyWhenItsLastEvaluationIsTheReferencesAtThatStep(@TempDir Path tmp)
            throws IOException {
        MetricsTable reference = metrics(tmp.resolve("ref"), 0.6, 0.81, 0.83);
        assertTrue(UntilTarget.sameAsReference(metrics(tmp.resolve("same"), 0.6, 0.81), reference));
        assertFalse(UntilTarget.sameAsReference(metrics(tmp.resolve("other"), 0.6, 0.8100001), reference));
        assertFalse(UntilTarget.sameAsReference(metrics(tmp.resolve("longer"), 0.6, 0.81, 0.83, 0.84), reference));
        Files.writeString(tmp.resolve("loss.csv"), "step,stage,loss,test_accuracy\n0,FULL,2.0,\n1,FULL,1.95,0.6\n");
        assertFalse(UntilTarget.sameAsReference(MetricsTable.read(tmp.resolve("loss.csv")), reference));
    }
}

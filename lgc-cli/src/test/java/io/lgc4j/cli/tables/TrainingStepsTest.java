package io.lgc4j.cli.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

class TrainingStepsTest {

    private static TrainingSteps steps(Path dir, String csv) throws IOException {
        Path file = dir.resolve("metrics.csv");
        Files.writeString(file, csv);
        return new TrainingSteps(MetricsTable.read(file), 4);
    }

    @Test
    void shouldTakeTheSlowestWorkersShareOutOfRankZerosClock(@TempDir Path tmp) throws IOException {
        // 4 workers each evaluate a share; the slowest took 130 ms, which rank 0 waited for
        TrainingSteps s = steps(tmp, """
                step,test_accuracy,evaluate_ms,wall_ms,evaluate_max_ms
                0,,0,500,0
                1,0.5,110,330,130
                2,,0,200,0
                """);
        assertEquals(500, s.trainMs(0), 1e-9);
        assertEquals(200, s.trainMs(1), 1e-9);
        assertTrue(s.evaluated(1));
        assertFalse(s.typical(0));
        assertTrue(s.typical(1));
        assertFalse(s.typical(2));
    }

    @Test
    void shouldTakeKTimesTheMeanOutOfRunsWhereRankZeroEvaluatedAlone(@TempDir Path tmp) throws IOException {
        // before the shares: rank 0 evaluated for 400 ms, the mean over 4 workers says 100
        TrainingSteps s = steps(tmp, """
                step,test_accuracy,evaluate_ms,wall_ms
                0,,0,500
                1,0.5,100,600
                """);
        assertEquals(200, s.trainMs(1), 1e-9);
    }
}

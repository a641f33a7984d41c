package io.lgc4j.core.advise;

import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.stage.StageSchedule;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The step and time models against figures of committed runs ({@code docs/results/time-to-accuracy/rerun/table.md},
 * K = 4, 0.4 cores per process; {@code docs/design/advise.md} §3.4): the arithmetic, not yet the measurements.
 */
class StepModelTest {

    /** A ring step: cpu measured at 0.4 cores in the table, so at one core it is 0.4 of it. */
    private static StepModel.Inputs ring(double compute, double cpuAtShare, long bytes, double rate, int legs,
                                         double hopMs, double straggler) {
        return new StepModel.Inputs(compute, cpuAtShare * 0.4, 0.4, bytes, bytes, false, rate, 0, legs, hopMs,
                straggler, 0, 1, 0, false);
    }

    @Test
    void shouldReproduceTheIdleModelOfTheDenseRows() {
        StepModel.Prediction at10 = StepModel.predict(ring(53.8, 8.2, 2_586_600, 9.6, 0, 0, 0));
        assertEquals(2155.5, at10.wireMs(), 0.05);
        assertEquals(2217.5, at10.stepMs(), 0.05);
        assertEquals(StepModel.Bound.LINK, at10.bound());
        assertEquals(308.3, StepModel.predict(ring(79.4, 12.4, 2_586_600, 95.6, 0, 0, 0)).stepMs(), 0.05);
        assertEquals(1157.5, StepModel.predict(ring(63.9, 15.8, 1_293_400, 9.6, 0, 0, 0)).stepMs(), 0.1);
    }

    @Test
    void shouldAddLoadedHopsAndTheStraggler() {
        // the traced ScaleCom TOP_K step at 10 Mbit/s (tta/routes/README.md): 9 legs, 44.2 ms chained + latency,
        // straggler 18.1 ms, wire 5.1 ms: 139.1 ms against 147.5 measured
        StepModel.Prediction p = StepModel.predict(ring(58.7, 13.0, 6_120, 9.6, 9, 44.2 / 9, 18.1));
        assertEquals(62.3, p.legsMs(), 1e-9);
        assertEquals(139.1, p.stepMs(), 0.05);
        assertEquals(StepModel.Bound.COMPUTE, p.bound());
    }

    @Test
    void shouldTakeAServerLinksDirectionsInTurn() {
        // LGC-PS (S = 1), dense FULL at 10 Mbit/s: the server's link carries 4 × 1,724.3 kB in, then out
        long fourPushes = 4 * 1_724_300L;
        var alone = new StepModel.Inputs(54.3, 7.2 * 0.4, 0.4, fourPushes, fourPushes, true, 9.6, 0, 2, 0, 0, 0, 1,
                0, false);
        assertEquals(11_556.8, StepModel.predict(alone).stepMs(), 0.1);
        var overlapped = new StepModel.Inputs(54.3, 7.2 * 0.4, 0.4, fourPushes, fourPushes, true, 9.6, 0.17, 2, 0,
                0, 0, 1, 0, false);
        assertEquals(11_556.8 - 0.17 * 5_747.7, StepModel.predict(overlapped).stepMs(), 0.1);
    }

    @Test
    void shouldBoundAStepByTheServerWhenItsCpuIsTheLongest() {
        var lgcPs = new StepModel.Inputs(55.1, 12.7 * 0.4, 0.4, 4_000, 4_000, true, 95.6, 0, 4, 5, 0, 60, 0.4, 0,
                false);
        StepModel.Prediction p = StepModel.predict(lgcPs);
        assertEquals(150, p.serverMs(), 1e-9);
        assertEquals(150 + p.wireMs() + 20, p.stepMs(), 1e-9);
        assertEquals(StepModel.Bound.SERVER, p.bound());
    }

    @Test
    void shouldHideExchangeBehindTheBackwardPassOnlyWithACoreOfItsOwn() {
        var shared = new StepModel.Inputs(73, 0, 0.4, 2_586_600, 2_586_600, false, 95.6, 0, 6, 3, 10, 0, 1, 50,
                false);
        var own = new StepModel.Inputs(73, 0, 1, 2_586_600, 2_586_600, false, 95.6, 0, 6, 3, 10, 0, 1, 50, true);
        assertEquals(0, StepModel.predict(shared).hiddenMs());
        StepModel.Prediction p = StepModel.predict(own);
        assertEquals(50, p.hiddenMs(), 1e-9);
        assertEquals(73 + p.wireMs() + 28 - 50, p.stepMs(), 1e-9);
    }

    @Test
    void shouldRefuseFiguresThatCannotBe() {
        assertEquals("rateMbit must be a finite number > 0, found 0.0", assertThrows(IllegalArgumentException.class,
                () -> ring(50, 1, 100, 0, 0, 0, 0)).getMessage());
        assertEquals("computeMs must be a finite number >= 0, found NaN", assertThrows(
                IllegalArgumentException.class, () -> ring(Double.NaN, 1, 100, 1, 0, 0, 0)).getMessage());
        assertEquals("psOverlap must be in [0, 1], found 1.5", assertThrows(IllegalArgumentException.class,
                () -> new StepModel.Inputs(1, 1, 1, 1, 1, true, 1, 1.5, 0, 0, 0, 0, 1, 0, false)).getMessage());
    }

    @Test
    void shouldComposeTheStagesOfARunUpToItsTarget() {
        // ScaleCom with a PowerSGD warm-up at 10 Mbit/s: 50 FULL steps of 300 ms, 150 TOP_K steps of 126 ms
        var times = Map.of(Stage.FULL, new TimeModel.StageTime(300, 0), Stage.TOP_K, new TimeModel.StageTime(126, 0));
        assertEquals(33_900, TimeModel.timeMs(StageSchedule.denseWarmup(50), 200, times), 1e-9);
        assertEquals(Map.of(Stage.FULL, 40.0), TimeModel.stepsPerStage(StageSchedule.denseWarmup(50), 40));
        // LGC: FULL 50, TOP_K 100, then COMPRESSED; one-offs count once per stage entered
        var lgc = Map.of(Stage.FULL, new TimeModel.StageTime(344, 0), Stage.TOP_K, new TimeModel.StageTime(148, 0),
                Stage.COMPRESSED, new TimeModel.StageTime(224, 1_000));
        assertEquals(50 * 344 + 100 * 148 + 83 * 224 + 1_000, TimeModel.timeMs(new StageSchedule(50, 100), 233, lgc),
                1e-9);
        assertEquals(50 * 344.0, TimeModel.timeMs(new StageSchedule(50, 100), 50, lgc), 1e-9);
        assertEquals(2.0093 * 108, TimeModel.targetSteps(2.0093, 108), 1e-9);
        assertEquals("a run of 60.0 steps enters stage TOP_K, which has no step time; given [FULL]",
                assertThrows(IllegalArgumentException.class, () -> TimeModel.timeMs(StageSchedule.denseWarmup(50), 60,
                        Map.of(Stage.FULL, new TimeModel.StageTime(1, 0)))).getMessage());
    }
}

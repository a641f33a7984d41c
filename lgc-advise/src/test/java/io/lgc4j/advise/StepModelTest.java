package io.lgc4j.advise;

import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.stage.StageSchedule;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The step and time models' arithmetic on figures of the committed runs (K = 4, 0.4 cores per process,
 * {@code docs/results/time-to-accuracy/}); how close they come to measured steps is {@code docs/results/advise/}.
 */
class StepModelTest {

    /** A ring step at 0.4 cores a process: CPU at one core, the link, the legs. */
    private static StepModel.Inputs ring(double passCpu, double cpu, long bytes, double rate, int legs, double hopMs,
                                         double straggler) {
        return new StepModel.Inputs(new StepModel.Local(passCpu, cpu, 0.4),
                new StepModel.Wire(bytes, bytes, false, rate, 0), new StepModel.Legs(legs, hopMs, straggler),
                StepModel.Server.NONE, StepModel.Overlap.NONE);
    }

    @Test
    void aThrottledServiceShouldWaitItsQuotasGapAndALaneOnThePathShouldBoundTheStep() {
        // 0.4 cores of a 100 ms period: 60 ms off, a random arrival waits 60 * 60 / 200 = 18 ms on average
        assertEquals(18.0, StepModel.throttleWaitMs(0.4), 1e-9);
        assertEquals(12.5, StepModel.throttleWaitMs(0.5), 1e-9);
        assertEquals(0.0, StepModel.throttleWaitMs(1.0), 0);
        StepModel.Prediction p = StepModel.predict(ring(37, 3.3, 15_472, 94, 3, 6.6, 22));
        StepModel.Prediction waited = StepModel.withLane(p, 18, 0);
        assertEquals(p.stepMs() + 18, waited.stepMs(), 1e-9);
        assertEquals(p.legsMs() + 18, waited.legsMs(), 1e-9);
        assertEquals(StepModel.Bound.SERVER, waited.bound());
        // LGC-PS's COMPRESSED step at 0.4 cores: the lane's 50 ms and the server's 2 ms of CPU take 130 ms
        StepModel.Prediction bound = StepModel.withLane(p, 0, (50 + 2) / 0.4);
        assertEquals(130.0, bound.stepMs(), 1e-9);
        assertEquals(130.0, bound.serverMs(), 1e-9);
        assertEquals(p, StepModel.withLane(p, 0, 10), "a bound below the step changes nothing");
        assertEquals("a lane's wait and bound are >= 0 ms, found -1.0 and 0.0",
                assertThrows(IllegalArgumentException.class, () -> StepModel.withLane(p, -1, 0)).getMessage());
    }

    @Test
    void shouldBoundADenseRingStepAtTenMbitByItsWire() {
        // LeNet-5's pass and update ~37 ms of CPU (docs/results/bench/compute.md: 35.6 ms forward + backward), 2.6 MB
        StepModel.Prediction p = StepModel.predict(ring(37, 3.3, 2_586_600, 9.6, 6, 0.05, 0));
        assertEquals(2155.5, p.wireMs(), 0.05);
        assertEquals(40.3 + 2155.5 + 0.3, p.stepMs(), 0.05);
        assertEquals(40.3 / 0.4, p.quotaMs(), 1e-9);
        assertEquals(StepModel.Bound.LINK, p.bound());
    }

    @Test
    void shouldHoldAStepWithShortWaitsToItsQuota() {
        // unshaped: 2.6 MB in 1.6 ms; 45 ms of CPU at 0.4 cores cannot take less than 112.5 ms
        StepModel.Prediction p = StepModel.predict(ring(40, 5, 2_586_600, 12_608.4, 6, 0.05, 0));
        assertEquals(112.5, p.stepMs(), 1e-9);
        assertEquals(StepModel.Bound.COMPUTE, p.bound());
        // a core of its own: the chain, 45 ms of CPU and what the link and legs add
        var own = new StepModel.Inputs(new StepModel.Local(40, 5, 1),
                new StepModel.Wire(2_586_600, 2_586_600, false, 12_608.4, 0), new StepModel.Legs(6, 0.05, 0),
                StepModel.Server.NONE, new StepModel.Overlap(0, true));
        assertEquals(45 + StepModel.transferMs(2_586_600, 12_608.4) + 0.3, StepModel.predict(own).stepMs(), 1e-9);
    }

    @Test
    void shouldAddLoadedLegsAndTheStragglerToTheChain() {
        // ScaleCom's routed TOP_K step at 10 Mbit/s (tta/routes/README.md): 4 legs at 3.5 ms, straggler 31 ms
        StepModel.Prediction p = StepModel.predict(ring(40, 5.2, 12_100, 9.6, 4, 3.5, 31));
        assertEquals(45, p.legsMs(), 1e-9);
        double chain = 45.2 + StepModel.transferMs(12_100, 9.6) + 45;
        assertEquals(100.3, chain, 0.05);
        assertEquals(113, p.stepMs(), 1e-9, "the quota binds: 45.2 ms of CPU at 0.4 cores, longer than the chain");
        assertEquals(StepModel.Bound.COMPUTE, p.bound());
    }

    @Test
    void shouldTakeAServerLinksDirectionsInTurn() {
        // LGC-PS (S = 1), dense FULL at 10 Mbit/s: the server's link carries 4 × 1,724.3 kB in, then out
        long fourPushes = 4 * 1_724_300L;
        var alone = new StepModel.Inputs(new StepModel.Local(37, 3, 0.4),
                new StepModel.Wire(fourPushes, fourPushes, true, 9.6, 0), new StepModel.Legs(2, 0, 0),
                StepModel.Server.NONE, StepModel.Overlap.NONE);
        assertEquals(40 + 2 * 5_747.67, StepModel.predict(alone).stepMs(), 0.1);
        var overlapped = new StepModel.Inputs(new StepModel.Local(37, 3, 0.4),
                new StepModel.Wire(fourPushes, fourPushes, true, 9.6, 0.17), new StepModel.Legs(2, 0, 0),
                StepModel.Server.NONE, StepModel.Overlap.NONE);
        assertEquals(40 + (2 - 0.17) * 5_747.67, StepModel.predict(overlapped).stepMs(), 0.1);
    }

    @Test
    void shouldBoundAStepByTheServerWhenItsCpuIsTheLongest() {
        var lgcPs = new StepModel.Inputs(new StepModel.Local(35, 5, 0.4),
                new StepModel.Wire(4_000, 4_000, true, 95.6, 0), new StepModel.Legs(4, 5, 0), new StepModel.Server(60, 0.4), StepModel.Overlap.NONE);
        StepModel.Prediction p = StepModel.predict(lgcPs);
        assertEquals(150, p.serverMs(), 1e-9);
        assertEquals(150 + p.wireMs() + 20, p.stepMs(), 1e-9);
        assertEquals(StepModel.Bound.SERVER, p.bound());
    }

    @Test
    void shouldHideExchangeBehindTheBackwardPassOnlyWithACoreOfItsOwn() {
        var link = new StepModel.Wire(2_586_600, 2_586_600, false, 95.6, 0);
        var legs = new StepModel.Legs(6, 3, 10);
        var shared = new StepModel.Inputs(new StepModel.Local(73, 0, 0.4), link, legs, StepModel.Server.NONE,
                new StepModel.Overlap(50, false));
        var own = new StepModel.Inputs(new StepModel.Local(73, 0, 1), link, legs, StepModel.Server.NONE,
                new StepModel.Overlap(50, true));
        assertEquals(0, StepModel.predict(shared).hiddenMs());
        StepModel.Prediction p = StepModel.predict(own);
        assertEquals(50, p.hiddenMs(), 1e-9);
        assertEquals(73 + p.wireMs() + 28 - 50, p.stepMs(), 1e-9);
    }

    @Test
    void shouldRefuseFiguresThatCannotBe() {
        assertEquals("rateMbit must be a finite number > 0, found 0.0", assertThrows(IllegalArgumentException.class,
                () -> ring(50, 1, 100, 0, 0, 0, 0)).getMessage());
        assertEquals("passCpuMs must be a finite number >= 0, found NaN", assertThrows(
                IllegalArgumentException.class, () -> ring(Double.NaN, 1, 100, 1, 0, 0, 0)).getMessage());
        assertEquals("psOverlap must be in [0, 1], found 1.5", assertThrows(IllegalArgumentException.class,
                () -> new StepModel.Wire(1, 1, true, 1, 1.5)).getMessage());
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

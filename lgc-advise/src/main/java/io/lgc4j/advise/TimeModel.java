package io.lgc4j.advise;

import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.stage.StageSchedule;

import java.util.EnumMap;
import java.util.Map;

/**
 * The time a method takes to reach a target ({@code docs/design/advise.md} §3.2): its schedule cut at the target's
 * step, each stage's steps at that stage's step time, plus the one-off cost of each stage it enters (an autoencoder's
 * graphs and first training, weights shipped at the switch). Exact when the per-stage step times are: the rerun's
 * ScaleCom with a PowerSGD warm-up at 10 Mbit/s is 50 × 300 ms + 150 × 126 ms = 33.9 s against 34.0 s measured.
 *
 * <pre>{@code
 * double ms = TimeModel.timeMs(StageSchedule.denseWarmup(50), 200, Map.of(
 *         Stage.FULL, new TimeModel.StageTime(300, 0), Stage.TOP_K, new TimeModel.StageTime(126, 0)));   // 33900
 * }</pre>
 */
final class TimeModel {

    private TimeModel() {
    }

    /**
     * A stage's cost.
     *
     * @param stepMs   a steady step of the stage, ms
     * @param oneOffMs what the stage's first step costs beyond a steady one, ms
     */
    public record StageTime(double stepMs, double oneOffMs) {
        /** Rejects negative or non-finite times. */
        public StageTime {
            if (!(stepMs >= 0) || Double.isInfinite(stepMs) || !(oneOffMs >= 0) || Double.isInfinite(oneOffMs)) {
                throw new IllegalArgumentException("a stage's step and one-off times are finite and >= 0 ms, found "
                        + stepMs + " and " + oneOffMs);
            }
        }
    }

    /**
     * The steps a run of {@code steps} steps spends in each stage of {@code schedule} (fractional when the target's
     * step is: a penalty times dense's mean steps); stages it never enters are absent.
     */
    public static Map<Stage, Double> stepsPerStage(StageSchedule schedule, double steps) {
        if (!(steps >= 0) || Double.isInfinite(steps)) {
            throw new IllegalArgumentException("steps must be a finite number >= 0, found " + steps);
        }
        Map<Stage, Double> per = new EnumMap<>(Stage.class);
        double full = Math.min(steps, schedule.fullIterations());
        double topK = Math.min(steps - full, schedule.topKIterations());
        double compressed = steps - full - topK;
        if (full > 0) {
            per.put(Stage.FULL, full);
        }
        if (topK > 0) {
            per.put(Stage.TOP_K, topK);
        }
        if (compressed > 0) {
            per.put(Stage.COMPRESSED, compressed);
        }
        return per;
    }

    /**
     * The time of the first {@code steps} steps, ms.
     *
     * @throws IllegalArgumentException naming a stage the run enters that {@code times} has no time for
     */
    public static double timeMs(StageSchedule schedule, double steps, Map<Stage, StageTime> times) {
        double ms = 0;
        for (Map.Entry<Stage, Double> e : stepsPerStage(schedule, steps).entrySet()) {
            StageTime t = times.get(e.getKey());
            if (t == null) {
                throw new IllegalArgumentException("a run of " + steps + " steps enters stage " + e.getKey()
                        + ", which has no step time; given " + times.keySet());
            }
            ms += e.getValue() * t.stepMs() + t.oneOffMs();
        }
        return ms;
    }

    /**
     * The steps a method needs to the target: its penalty (steps relative to dense, {@link StepPenalty#penalty()})
     * times dense's steps.
     */
    public static double targetSteps(double penalty, double denseSteps) {
        if (!(penalty > 0) || Double.isInfinite(penalty) || !(denseSteps > 0) || Double.isInfinite(denseSteps)) {
            throw new IllegalArgumentException("a penalty and dense steps are finite and > 0, found " + penalty
                    + " and " + denseSteps);
        }
        return penalty * denseSteps;
    }
}

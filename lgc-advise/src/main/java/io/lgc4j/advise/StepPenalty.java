package io.lgc4j.advise;

import java.util.List;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * The steps one method took to a target accuracy beside dense training's, seed by seed: one row of
 * {@link StepPenalties}.
 *
 * <pre>{@code
 * StepPenalty p = new StepPenalty("model.name=small-cnn;...", scalecomKey, 0.80, List.of(1L, 2L, 3L),
 *         List.of(250, 225, 175), List.of(100, 125, 100), List.of("time-to-accuracy/warmup/runs/..."));
 * p.penalty();   // OptionalDouble[2.0000]: 650 steps over the seeds where dense took 325
 * }</pre>
 *
 * @param evidence   the evidence key (what dense's step count depends on), as the generator wrote it
 * @param method     the method's key ({@link MethodKey#DENSE} for the dense row itself)
 * @param target     the test accuracy, a fraction in (0, 1]
 * @param seeds      the seeds both the method and dense ran with, ascending, at least one
 * @param steps      per seed, the steps the method took to reach the target ({@code 1 +} the step of the first
 *                   evaluation at or above it), or {@link #NOT_REACHED}
 * @param denseSteps per seed, dense training's steps to the target (each reached it)
 * @param runs       the run directories the figures come from, relative to the results root
 */
public record StepPenalty(String evidence, MethodKey method, double target, List<Long> seeds, List<Integer> steps,
                          List<Integer> denseSteps, List<String> runs) {

    /** A seed on which the method never reached the target. */
    public static final int NOT_REACHED = -1;

    /** Checks that the lists are as long as the seeds and the counts positive. */
    public StepPenalty {
        Objects.requireNonNull(evidence, "evidence");
        Objects.requireNonNull(method, "method");
        seeds = List.copyOf(seeds);
        steps = List.copyOf(steps);
        denseSteps = List.copyOf(denseSteps);
        runs = List.copyOf(runs);
        if (!(target > 0 && target <= 1)) {
            throw new IllegalArgumentException("target must be a fraction in (0, 1], found " + target);
        }
        if (seeds.isEmpty()) {
            throw new IllegalArgumentException("a step penalty needs at least one seed");
        }
        if (steps.size() != seeds.size() || denseSteps.size() != seeds.size()) {
            throw new IllegalArgumentException(seeds.size() + " seeds need as many steps and dense steps, found "
                    + steps.size() + " and " + denseSteps.size());
        }
        for (int i = 0; i < seeds.size(); i++) {
            if (i > 0 && seeds.get(i) <= seeds.get(i - 1)) {
                throw new IllegalArgumentException("seeds must ascend without repeats, found " + seeds);
            }
            if (denseSteps.get(i) <= 0) {
                throw new IllegalArgumentException("dense steps must be > 0, found " + denseSteps.get(i)
                        + " for seed " + seeds.get(i));
            }
            if (steps.get(i) <= 0 && steps.get(i) != NOT_REACHED) {
                throw new IllegalArgumentException("steps must be > 0 or " + NOT_REACHED + " (not reached), found "
                        + steps.get(i) + " for seed " + seeds.get(i));
            }
        }
    }

    /** Whether the method reached the target on every seed. */
    public boolean reachedEverySeed() {
        return !steps.contains(NOT_REACHED);
    }

    /**
     * Steps to the target relative to dense: the method's steps summed over the seeds ÷ dense's, rounded to 4
     * decimals; empty when some seed never reached the target (no penalty can be claimed from it).
     */
    public OptionalDouble penalty() {
        if (!reachedEverySeed()) {
            return OptionalDouble.empty();
        }
        long mine = steps.stream().mapToLong(Integer::longValue).sum();
        long dense = denseSteps.stream().mapToLong(Integer::longValue).sum();
        return OptionalDouble.of(Math.round(10_000.0 * mine / dense) / 10_000.0);
    }

    /** Dense training's mean steps to the target over the seeds. */
    public double meanDenseSteps() {
        return denseSteps.stream().mapToInt(Integer::intValue).average().orElseThrow();
    }
}

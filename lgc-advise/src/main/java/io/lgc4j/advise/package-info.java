/**
 * Choosing the method for the link ({@code docs/design/advise.md}): what a method costs in steps to a
 * target accuracy, from committed evidence. A module of its own above {@code lgc-core} (it reads a topology's
 * description, a schedule and an overlap mode, and runs a candidate's step in core's {@code DryRun}); nothing in the
 * core refers to it.
 *
 * <p>A step penalty ({@link io.lgc4j.advise.StepPenalty}) is a method's steps to a target relative to dense training
 * of the same model and data, read from a generated CSV ({@link io.lgc4j.advise.StepPenalties}) and matched by the
 * evidence key (what dense's step count depends on) and the {@link io.lgc4j.advise.MethodKey} (what changes a
 * step's math). The keys in full: {@code docs/architecture/runner.md}.
 *
 * <pre>{@code
 * StepPenalties evidence = StepPenalties.read(Path.of("step-penalties.csv"));
 * Optional<StepPenalty> p = evidence.find(evidenceKey, MethodKey.of(description, schedule, Overlap.NONE), 0.80);
 * p.flatMap(StepPenalty::penalty);   // e.g. 2.0093: 217 steps where dense needs 108, over seeds 1, 2, 3
 * }</pre>
 */
package io.lgc4j.advise;

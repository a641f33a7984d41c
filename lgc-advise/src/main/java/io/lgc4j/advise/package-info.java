/**
 * Choosing the method for the link ({@code docs/design/advise.md}): what a method costs in steps to a
 * target accuracy, from committed evidence. A module of its own above {@code lgc-core} (it reads a topology's
 * description, a schedule and an overlap mode, and runs a candidate's step in core's {@code DryRun}); nothing in the
 * core refers to it.
 *
 * <p>A step penalty is how many steps a method needs to reach a target relative to dense training of the same model
 * on the same data: {@link io.lgc4j.advise.StepPenalty}, read from a CSV that is generated from committed runs
 * ({@code lgc evidence step-penalties}), never written by hand ({@link io.lgc4j.advise.StepPenalties}). Runs are
 * matched by two keys: the <em>evidence</em> key (model, data, workers, batch, updater, evaluation interval: what
 * dense's step count depends on) and the {@link io.lgc4j.advise.MethodKey} (what changes the math of a step:
 * compressor and its settings, topology, warm-up, stages, values, delayed application; not the routes, shard counts,
 * index codec or backward overlap, which change no math).
 *
 * <pre>{@code
 * StepPenalties evidence = StepPenalties.read(Path.of("step-penalties.csv"));
 * Optional<StepPenalty> p = evidence.find(evidenceKey, MethodKey.of(description, schedule, Overlap.NONE), 0.80);
 * p.flatMap(StepPenalty::penalty);   // e.g. 2.0093: 217 steps where dense needs 108, over seeds 1, 2, 3
 * }</pre>
 */
package io.lgc4j.advise;

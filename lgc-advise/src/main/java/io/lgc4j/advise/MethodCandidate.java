package io.lgc4j.advise;

import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.core.train.DistributedTrainer;
import io.lgc4j.core.train.Overlap;
import io.lgc4j.core.train.Topology;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * One method an {@link Advisor} compares: what {@code DistributedTrainer.Builder} would be given for it, and, if
 * known, its steps to the target relative to dense:
 * <pre>{@code
 * MethodCandidate fp16 = MethodCandidate.of("fp16", "Dense fp16 (ring)", RingTopology::new)
 *         .values(ValueEncoding.FP16).penalty(1.0, "my 3 seeds");
 * MethodCandidate psgd = MethodCandidate.of("psgd", "PowerSGD r = 2", () -> new RingTopology(powerSgd))
 *         .stages(StageSchedule.denseWarmup(50));
 * }</pre>
 *
 * @param id            a short name, unique among the candidates
 * @param label         what the table prints
 * @param topology      builds the method's topology (a topology holds per-run state: one per dry run)
 * @param stages        the schedule of stages
 * @param values        the encoding of its values
 * @param overlap       its overlap mode
 * @param penalty       steps to the target relative to dense, if known
 * @param penaltySource where that figure comes from, or why there is none
 */
public record MethodCandidate(String id, String label, Supplier<Topology> topology, StageSchedule stages,
                              ValueEncoding values, Overlap overlap, Optional<Double> penalty, String penaltySource) {

    /** What a candidate without a penalty says. */
    public static final String NO_EVIDENCE = "no evidence of its steps to the target";

    /** Rejects nulls and a penalty that is not a positive number. */
    public MethodCandidate {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(label, "label");
        Objects.requireNonNull(topology, "topology");
        Objects.requireNonNull(stages, "stages");
        Objects.requireNonNull(values, "values");
        Objects.requireNonNull(overlap, "overlap");
        Objects.requireNonNull(penalty, "penalty");
        Objects.requireNonNull(penaltySource, "penaltySource");
        penalty.ifPresent(p -> {
            if (!(p > 0) || p.isInfinite()) {
                throw new IllegalArgumentException("candidate " + id + ": a penalty is a number of times dense's steps,"
                        + " > 0, found " + p);
            }
        });
    }

    /**
     * A candidate of {@code topology} with the trainer's defaults: its compressor from the first step (no dense
     * warm-up; dense for every step without one), fp32, no overlap, no penalty.
     */
    public static MethodCandidate of(String id, String label, Supplier<Topology> topology) {
        StageSchedule stages = topology.get().compressor().isPresent() ? StageSchedule.denseWarmup(0)
                : StageSchedule.ALWAYS_FULL;
        return new MethodCandidate(id, label, topology, stages, ValueEncoding.FP32, Overlap.NONE, Optional.empty(),
                NO_EVIDENCE);
    }

    /** The same candidate with {@code stages}. */
    public MethodCandidate stages(StageSchedule schedule) {
        return new MethodCandidate(id, label, topology, schedule, values, overlap, penalty, penaltySource);
    }

    /** The same candidate with its values in {@code encoding}. */
    public MethodCandidate values(ValueEncoding encoding) {
        return new MethodCandidate(id, label, topology, stages, encoding, overlap, penalty, penaltySource);
    }

    /** The same candidate with {@code mode}. */
    public MethodCandidate overlap(Overlap mode) {
        return new MethodCandidate(id, label, topology, stages, values, mode, penalty, penaltySource);
    }

    /**
     * Gives {@code trainer} this method: a fresh topology, the stages, the value encoding and the overlap mode (what
     * the advisor chose, for a program of one's own).
     *
     * <pre>{@code
     * DistributedTrainer trainer = chosen.applyTo(DistributedTrainer.builder().model(net).data(source)
     *         .fromEnvironment()).build();
     * }</pre>
     */
    public DistributedTrainer.Builder applyTo(DistributedTrainer.Builder trainer) {
        return trainer.topology(topology.get()).stages(stages).values(values).overlap(overlap);
    }

    /** The same candidate needing {@code timesDense} × dense's steps to the target, as {@code source} says. */
    public MethodCandidate penalty(double timesDense, String source) {
        return new MethodCandidate(id, label, topology, stages, values, overlap, Optional.of(timesDense), source);
    }
}

package io.lgc4j.runner.advise;

import io.lgc4j.core.advise.ComputeProbe;
import io.lgc4j.core.advise.DryRun;
import io.lgc4j.core.advise.MethodKey;
import io.lgc4j.core.advise.StepModel;
import io.lgc4j.core.advise.StepPenalties;
import io.lgc4j.core.advise.StepPenalty;
import io.lgc4j.core.advise.TimeModel;
import io.lgc4j.core.comm.Direction;
import io.lgc4j.core.comm.StepTag;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.compute.CpuLimits;
import io.lgc4j.core.data.DataSource;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.core.train.Overlap;
import io.lgc4j.core.train.Topology;
import io.lgc4j.runner.ExperimentRunner;
import io.lgc4j.runner.Nd4jEnvironment;
import io.lgc4j.runner.StepEvidence;
import io.lgc4j.runner.config.ConfiguredMethod;
import io.lgc4j.runner.config.ExperimentConfig;
import org.deeplearning4j.nn.api.Model;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * Predicts each candidate method's step and time to a target accuracy on a given link, from what this process
 * measures of the user's model and of every candidate's own exchange ({@code docs/design/advise.md}, the single-JVM
 * part of §2 and all of §3):
 * <ol>
 *   <li>the compute probe: forward and backward of one batch of the user's model at this process's share, and each
 *       rank's gradient of its first batch ({@link ComputeProbe});</li>
 *   <li>a dry run of every candidate: its topology's exchanges on one in-process cluster, two steps per stage on those
 *       gradients, for the bytes through the busiest endpoint, the legs and the CPU of every endpoint
 *       ({@link DryRun});</li>
 *   <li>per stage, {@link StepModel} on those figures and the link; per candidate, {@link TimeModel} over its schedule
 *       up to the target, with steps from the committed evidence ({@link StepEvidence}).</li>
 * </ol>
 * The link is given, not measured: its rate, the loaded cost of a leg and the straggler ({@link Link}). What a
 * launched advise session would probe on the user's processes is the next part of the design (§2.4, §2.5).
 *
 * <pre>{@code
 * ExperimentConfig config = ConfigLoader.load(Path.of("configs/quickstart.yaml"));
 * Advice advice = Advisor.advise(config, AdviseCandidates.defaults(config), new Advisor.Link(9.6, 5, 18, 0,
 *         "given"), System.err);
 * System.out.print(advice.table());
 * }</pre>
 */
public final class Advisor {

    /** The penalty source of a method whose steps compute dense's math. */
    static final String DENSE_MATH = "dense's math";

    /** Steps dry-run per stage: the first is the stage's one-off, the second its steady step. */
    static final int STEPS_PER_STAGE = 2;

    private Advisor() {
    }

    /**
     * The link the predictions are for.
     *
     * @param rateMbit    every process's link rate, Mbit/s (the slowest link, for a ring)
     * @param hopMs       the loaded cost of one leg of a step's critical chain, ms
     * @param stragglerMs the slowest rank's pass minus the mean, ms a step
     * @param psOverlap   the fraction of a parameter server's shorter direction that overlaps the longer, [0, 1]
     * @param source      where the figures come from ({@code given}, or what measured them)
     */
    public record Link(double rateMbit, double hopMs, double stragglerMs, double psOverlap, String source) {
        /** Checks the figures. */
        public Link {
            if (!(rateMbit > 0) || Double.isInfinite(rateMbit)) {
                throw new IllegalArgumentException("the link rate must be > 0 Mbit/s, found " + rateMbit);
            }
            if (!(hopMs >= 0) || !(stragglerMs >= 0) || Double.isInfinite(hopMs + stragglerMs)) {
                throw new IllegalArgumentException("a leg's and the straggler's times are >= 0 ms, found " + hopMs
                        + " and " + stragglerMs);
            }
            if (!(psOverlap >= 0 && psOverlap <= 1)) {
                throw new IllegalArgumentException("psOverlap must be in [0, 1], found " + psOverlap);
            }
            Objects.requireNonNull(source, "source");
        }

        /** "9.6 Mbit/s, 5.0 ms a leg, straggler 18.0 ms (given)". */
        public String describe() {
            return String.format(Locale.ROOT, "%.1f Mbit/s, %.1f ms a leg, straggler %.1f ms (%s)", rateMbit, hopMs,
                    stragglerMs, source);
        }
    }

    /**
     * Advises among {@code candidates} for {@code config}'s model and data on {@code link}, at the target accuracy
     * {@code target}; progress lines go to {@code log}.
     *
     * @param cores the cores each process of the run will have (its CPU terms are divided by min(1, cores));
     *              NaN: this process's ({@link CpuLimits#cores()})
     * @throws IOException           when the data cannot be read
     * @throws IllegalStateException when ND4J computes with another thread count than {@code model.compute.threads}
     */
    public static Advice advise(ExperimentConfig config, List<AdviseCandidate> candidates, Link link, double target,
                                double cores, PrintStream log) throws IOException {
        long start = System.nanoTime();
        // the passes run with the threads the run would have; a mismatch fails as the run would, naming the fix
        Nd4jEnvironment.threads(config.model().compute().threads(), 1);
        double share = Double.isNaN(cores) ? CpuLimits.ofThisProcess().cores() : cores;
        int workers = config.training().workers();
        Model model = ExperimentRunner.buildModel(config.model(), config.run().seed());
        ComputeProbe.Result probe;
        try (DataSource data = ExperimentRunner.trainingData(config.data())) {
            probe = ComputeProbe.measure(model, data, workers, config.training().batchSizePerWorker(),
                    config.run().seed(), config.model().compute().settings());
        }
        log.printf(Locale.ROOT, "lgc advise: a pass takes %.1f ms of CPU (%.1f ms of wall here, the first %.1f;"
                + " forward alone %.1f), the update %.1f ms of CPU, on %d ranks' first batches%n", probe.passCpuMs(),
                probe.busyMs(), probe.freshMs(), probe.forwardMs(), probe.applyCpuMs(), workers);
        GradientLayout layout = GradientLayout.of(model);
        StepPenalties evidence = StepEvidence.shipped();
        String evidenceKey = StepEvidence.evidenceKey(config);
        Optional<Double> denseSteps = evidence.dense(evidenceKey, target).map(StepPenalty::meanDenseSteps);
        List<Advice.Row> rows = new ArrayList<>();
        for (AdviseCandidate c : candidates) {
            rows.add(candidate(c, probe, layout, link, share, workers, evidence, evidenceKey, denseSteps, target,
                    log));
        }
        rows = withBreakEven(rows);
        Optional<String> chosen = rows.stream().filter(r -> r.timeToTargetS().isPresent())
                .min((a, b) -> Double.compare(a.timeToTargetS().get(), b.timeToTargetS().get()))
                .map(Advice.Row::id);
        return new Advice(rows, chosen, probe.passCpuMs() + probe.applyCpuMs(), share, link, denseSteps, target,
                (System.nanoTime() - start) / 1e9);
    }

    private static Advice.Row candidate(AdviseCandidate c, ComputeProbe.Result probe, GradientLayout layout,
                                        Link link, double share, int workers, StepPenalties evidence,
                                        String evidenceKey, Optional<Double> denseSteps, double target,
                                        PrintStream log) {
        ExperimentConfig config = c.config();
        ConfiguredMethod method = ConfiguredMethod.of(config);
        StageSchedule schedule = method.stages();
        List<Advice.StageRow> stages;
        try {
            stages = dryRun(method.newTopology(), config, schedule, probe, layout, link, share, workers);
        } catch (Exception e) {
            log.println("lgc advise: " + c.id() + " could not be dry-run: " + e.getMessage());
            return new Advice.Row(c.id(), c.label(), List.of(), Optional.empty(), "", Optional.empty(),
                    Optional.empty(), Optional.empty(), Optional.of(String.valueOf(e.getMessage())));
        }
        // steps to the target: the same math as dense, the target inside a dense fp32 warm-up, or the evidence
        MethodKey key = StepEvidence.methodKey(config);
        Optional<Double> penalty;
        String source;
        if (key.isDense()) {
            penalty = Optional.of(1.0);
            source = DENSE_MATH;
        } else if (denseSteps.isPresent() && denseSteps.get() <= schedule.fullIterations()
                && config.warmup().section().isDefault()
                && config.compressor().valueEncoding() == ValueEncoding.FP32) {
            penalty = Optional.of(1.0);
            source = "the target comes inside its dense warm-up";
        } else {
            Optional<StepPenalty> row = evidence.find(evidenceKey, key, target);
            OptionalDouble p = row.map(StepPenalty::penalty).orElse(OptionalDouble.empty());
            penalty = p.isPresent() ? Optional.of(p.getAsDouble()) : Optional.empty();
            source = row.isEmpty() ? "no evidence of its steps to the target"
                    : p.isPresent() ? "evidence, " + row.get().seeds().size() + " seed"
                    + (row.get().seeds().size() == 1 ? "" : "s")
                    : "it missed the target on some seed of the evidence";
        }
        Optional<Double> steps = penalty.isPresent() && denseSteps.isPresent()
                ? Optional.of(TimeModel.targetSteps(penalty.get(), denseSteps.get())) : Optional.empty();
        Optional<Double> time = Optional.empty();
        if (steps.isPresent()) {
            Map<Stage, TimeModel.StageTime> times = new EnumMap<>(Stage.class);
            for (Advice.StageRow s : stages) {
                times.put(s.stage(), new TimeModel.StageTime(s.prediction().stepMs(), s.oneOffMs()));
            }
            time = Optional.of(TimeModel.timeMs(schedule, steps.get(), times) / 1e3);
        }
        return new Advice.Row(c.id(), c.label(), stages, penalty, source, steps, time, Optional.empty(),
                Optional.empty());
    }

    /**
     * Every row that is not dense's math gets its break-even: the fastest dense-math row's steady step over its own
     * (the steady stage is the last one).
     */
    private static List<Advice.Row> withBreakEven(List<Advice.Row> rows) {
        OptionalDouble dense = rows.stream().filter(r -> r.penaltySource().equals(DENSE_MATH) && !r.stages().isEmpty())
                .mapToDouble(Advisor::steadyMs).min();
        List<Advice.Row> out = new ArrayList<>();
        for (Advice.Row r : rows) {
            Optional<Double> breakEven = dense.isPresent() && !r.penaltySource().equals(DENSE_MATH)
                    && !r.stages().isEmpty() ? Optional.of(dense.getAsDouble() / steadyMs(r)) : Optional.empty();
            out.add(new Advice.Row(r.id(), r.label(), r.stages(), r.penalty(), r.penaltySource(), r.steps(),
                    r.timeToTargetS(), breakEven, r.problem()));
        }
        return out;
    }

    private static double steadyMs(Advice.Row r) {
        return r.stages().get(r.stages().size() - 1).prediction().stepMs();
    }

    /** The stages {@code schedule} goes through, in order. */
    static List<Stage> stagesOf(StageSchedule schedule) {
        List<Stage> stages = new ArrayList<>();
        if (schedule.fullIterations() > 0) {
            stages.add(Stage.FULL);
        }
        if (schedule.fullIterations() < Integer.MAX_VALUE && schedule.topKIterations() > 0) {
            stages.add(Stage.TOP_K);
        }
        if (schedule.fullIterations() < Integer.MAX_VALUE && schedule.topKIterations() < Integer.MAX_VALUE) {
            stages.add(Stage.COMPRESSED);
        }
        return stages;
    }

    private static List<Advice.StageRow> dryRun(Topology topology, ExperimentConfig config, StageSchedule schedule,
                                                ComputeProbe.Result probe, GradientLayout layout, Link link,
                                                double share, int workers) throws Exception {
        topology.check(layout, schedule, true);
        ValueEncoding values = config.compressor().valueEncoding();
        boolean backward = config.training().overlapMode() == Overlap.BACKWARD;
        List<Advice.StageRow> rows = new ArrayList<>();
        try (DryRun run = new DryRun(topology, workers, layout)) {
            int step = 0;
            for (Stage stage : stagesOf(schedule)) {
                DryRun.Cost first = null;
                DryRun.Cost steady = null;
                for (int i = 0; i < STEPS_PER_STAGE; i++) {
                    run.step(new StepTag(step++, stage, values), probe.gradients());
                    if (i == 0) {
                        first = run.lastCost();
                    }
                    steady = run.lastCost();
                }
                // only a dense step streams beside the backward pass (a compressed one needs the whole gradient)
                boolean streams = backward && stage == Stage.FULL && config.warmup().section().isDefault();
                StepModel.Prediction steadyStep = StepModel.predict(inputs(steady, probe, link, share, workers,
                        streams));
                StepModel.Prediction firstStep = StepModel.predict(inputs(first, probe, link, share, workers,
                        streams));
                Busiest b = busiest(steady, workers);
                rows.add(new Advice.StageRow(stage, steadyStep, Math.max(0, firstStep.stepMs() - steadyStep.stepMs()),
                        steady.legs(), b.up, b.down));
            }
        }
        return rows;
    }

    /** The endpoint whose link carries the most bytes in a step: a service's directions take turns. */
    private record Busiest(int endpoint, long up, long down, boolean service) {
    }

    private static Busiest busiest(DryRun.Cost cost, int workers) {
        Busiest most = null;
        for (int e = 0; e < cost.bytes().endpoints(); e++) {
            long up = cost.bytes().bytes(e, Direction.RECEIVED);
            long down = cost.bytes().bytes(e, Direction.SENT);
            if (most == null || up + down > most.up + most.down) {
                most = new Busiest(e, up, down, e >= workers);
            }
        }
        return most;
    }

    private static StepModel.Inputs inputs(DryRun.Cost cost, ComputeProbe.Result probe, Link link, double share,
                                           int workers, boolean streams) {
        long[] cpu = cost.cpuNanos();
        double rankCpuMs = 0;
        for (int r = 0; r < workers; r++) {
            rankCpuMs += cpu[r] / 1e6 / workers;
        }
        double serverCpuMs = 0;
        for (int s = workers; s < cpu.length; s++) {
            serverCpuMs = Math.max(serverCpuMs, cpu[s] / 1e6);
        }
        Busiest b = busiest(cost, workers);
        // the rank applies the mean after the exchange, on its thread, within its quota as its pass
        return new StepModel.Inputs(probe.passCpuMs() + probe.applyCpuMs(), rankCpuMs, share, b.up, b.down,
                b.service, link.rateMbit(),
                link.psOverlap(), cost.legs(), link.hopMs(), link.stragglerMs(), serverCpuMs, share,
                streams ? probe.backwardMs() : 0, share >= 1);
    }
}

package io.lgc4j.advise;

import io.lgc4j.core.comm.Direction;
import io.lgc4j.core.comm.StepTag;
import io.lgc4j.core.compute.ComputeSettings;
import io.lgc4j.core.compute.CpuLimits;
import io.lgc4j.core.data.DataSource;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.runtime.ClusterConnection;
import io.lgc4j.core.runtime.ClusterConnector;
import io.lgc4j.core.runtime.LaunchEnvironment;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.stage.StageSchedule;
import io.lgc4j.core.train.DryRun;
import io.lgc4j.core.train.Overlap;
import io.lgc4j.core.train.Topology;
import io.lgc4j.core.train.TrainingRuntime;
import org.deeplearning4j.nn.api.Model;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;

/**
 * Predicts each candidate method's step time and time to a target accuracy for the user's own model and data on a
 * given {@link Link} (the user's, or probed by an {@link AdviseSession}): a {@link ComputeProbe} of the model, a
 * {@link DryRun} of every candidate, then {@link StepModel} per stage and {@link TimeModel} up to the target
 * (docs/architecture/runner.md). {@code lgc advise} builds its candidates from configs; a library user from topologies:
 * <pre>{@code
 * Advice advice = Advisor.builder().model(net).data(source).workers(4).batchSizePerWorker(32)
 *         .candidates(List.of(MethodCandidate.of("ring", "Dense ring", RingTopology::new),
 *                 MethodCandidate.of("fp16", "Dense fp16", RingTopology::new).values(ValueEncoding.FP16)))
 *         .link(new Link(100, 3.5, 30, 0, "given")).cores(0.4).denseSteps(400)
 *         .advise();
 * System.out.print(advice.table());
 * }</pre>
 */
public final class Advisor {

    /** The penalty source of a method whose steps compute dense's math. */
    public static final String DENSE_MATH = "dense's math";

    /** Steps dry-run per stage: the first is the stage's one-off, the second its steady step. */
    static final int STEPS_PER_STAGE = 2;

    private final Model model;
    private final DataSource data;
    private final int workers;
    private final int batchSize;
    private final long seed;
    private final ComputeSettings compute;
    private final List<MethodCandidate> candidates;
    private final Link link;
    private final double cores;
    private final Optional<Double> denseSteps;
    private final String denseStepsSource;
    private final double target;
    private final PrintStream log;
    private final int probeRank;

    private Advisor(Builder b) {
        this.model = b.model;
        this.data = b.data;
        this.workers = b.workers;
        this.batchSize = b.batchSize;
        this.seed = b.seed;
        this.compute = b.compute;
        this.candidates = List.copyOf(b.candidates);
        this.link = b.link;
        this.cores = Double.isNaN(b.cores) ? CpuLimits.ofThisProcess().cores() : b.cores;
        this.denseSteps = b.denseSteps;
        this.denseStepsSource = b.denseStepsSource;
        this.target = b.target;
        this.log = b.log;
        this.probeRank = b.probeRank;
    }

    /** A builder; {@link Builder#advise()} measures and predicts. */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds an {@link Advisor} run; every setting is checked at {@link #advise()}, naming the one that is wrong. */
    public static final class Builder {
        private Model model;
        private DataSource data;
        private int workers = 1;
        private int batchSize = 32;
        private long seed = 42;
        private ComputeSettings compute = ComputeSettings.DEFAULT;
        private List<MethodCandidate> candidates = List.of();
        private Link link;
        private double cores = Double.NaN;
        private Optional<Double> denseSteps = Optional.empty();
        private String denseStepsSource = "given";
        private double target = 0.80;
        private PrintStream log = System.err;
        private int probeRank = -1;

        private Builder() {
        }

        /** The user's model (an initialized MultiLayerNetwork or ComputationGraph; left untouched). */
        public Builder model(Model m) {
            this.model = m;
            return this;
        }

        /** The training data, read as a run reads it (each rank's first batch of epoch 0). */
        public Builder data(DataSource source) {
            this.data = source;
            return this;
        }

        /** K, the data-parallel workers. */
        public Builder workers(int k) {
            this.workers = k;
            return this;
        }

        /** Examples per worker and step. */
        public Builder batchSizePerWorker(int b) {
            this.batchSize = b;
            return this;
        }

        /** The run's seed (its data order). */
        public Builder seed(long s) {
            this.seed = s;
            return this;
        }

        /** How a replica computes (the run's). */
        public Builder compute(ComputeSettings settings) {
            this.compute = settings;
            return this;
        }

        /** The methods to compare, in the order the table lists them. */
        public Builder candidates(List<MethodCandidate> list) {
            this.candidates = list;
            return this;
        }

        /** The link between the run's processes. */
        public Builder link(Link l) {
            this.link = l;
            return this;
        }

        /** The cores each process of the run will have (default: this process's). */
        public Builder cores(double c) {
            this.cores = c;
            return this;
        }

        /** Dense training's steps to the target on this model and data, if known (no time to the target without). */
        public Builder denseSteps(double steps) {
            return denseSteps(steps, "given");
        }

        /** {@link #denseSteps(double)}, saying where the figure comes from ({@code my 3 seeds}). */
        public Builder denseSteps(double steps, String source) {
            this.denseSteps = Optional.of(steps);
            this.denseStepsSource = Objects.requireNonNull(source, "source");
            return this;
        }

        /** The test accuracy the times are to (what the table says; the steps are the penalties'). */
        public Builder target(double accuracy) {
            this.target = accuracy;
            return this;
        }

        /**
         * Probe the model on rank {@code rank}'s data only, its gradient standing for every rank's in the dry runs:
         * for a source that reaches only its own rank's rows (a Spark task's). Methods whose ranks choose different
         * supports send less in the dry run than in a run.
         */
        public Builder probeRank(int rank) {
            this.probeRank = rank;
            return this;
        }

        /** Where progress lines go (default standard error). */
        public Builder log(PrintStream out) {
            this.log = out;
            return this;
        }

        /**
         * Measures this process and every candidate, and predicts.
         *
         * @throws IllegalArgumentException naming the setting that is missing or wrong
         * @throws IOException              when the data cannot be read
         */
        public Advice advise() throws IOException {
            Objects.requireNonNull(link, "link: the link between the processes");
            check();
            return new Advisor(this).run();
        }

        /**
         * {@code compressor: auto} for a program of one's own, called by every process {@code lgc launch} started
         * before it builds its trainer: they probe the links in an {@link AdviseSession}, rank 0 advises on that link
         * (a link given with {@link #link} is ignored) and every process learns the choice. Not launched, it advises
         * in this JVM on {@link Link#IN_PROCESS}, this process's cores shared by the workers.
         * <pre>{@code
         * AdviseSession.Outcome o = Advisor.builder().model(net).data(source).batchSizePerWorker(32)
         *         .candidates(candidates).adviseFromEnvironment();
         * MethodCandidate chosen = candidates.stream().filter(c -> c.id().equals(o.chosen())).findFirst().get();
         * chosen.applyTo(DistributedTrainer.builder().model(net).data(source).fromEnvironment()).build().fit(1);
         * }</pre>
         *
         * @return the chosen candidate's id on every process; the advice and the probe on rank 0
         * @throws IllegalStateException when a process advises among other candidates, nothing can be chosen, or the
         *                               launch started server processes of their own ({@code --servers})
         * @throws IOException           when the data cannot be read
         */
        public AdviseSession.Outcome adviseFromEnvironment() throws IOException {
            LaunchEnvironment env = LaunchEnvironment.current();
            long start = System.nanoTime();
            if (!env.launched()) {
                link = Link.IN_PROCESS;
                if (Double.isNaN(cores)) {
                    cores = CpuLimits.ofThisProcess().cores() / workers;
                }
                Advice advice = advise();
                return new AdviseSession.Outcome(advice.chosen().orElseThrow(() -> new IllegalStateException(
                        "nothing chosen: no candidate has a predicted time to the target")), Optional.of(advice),
                        Optional.empty(), (System.nanoTime() - start) / 1e9);
            }
            if (env.shards().servers() != null) {
                throw new IllegalStateException("the launch started server processes of their own (LGC_SERVERS="
                        + env.shards().servers() + "): a program chooses its method with the shards inside the workers; launch"
                        + " without --servers");
            }
            return adviseOver(TrainingRuntime.connector(env), env.requireWorldSize(), env.requireRank());
        }

        /**
         * As {@link #adviseFromEnvironment()}, for worker {@code rank} of {@code workers} joined by {@code connector}
         * (every worker calls it, each with its own; no server processes): the session, then the choice.
         *
         * @throws IOException when the data cannot be read
         */
        public AdviseSession.Outcome adviseOver(ClusterConnector connector, int workers, int rank) throws IOException {
            this.workers = workers;
            check();
            Runnable pass = ComputeProbe.warmedPass(model, data, rank, workers, batchSize, seed, compute);
            int probeBytes = AdviseSession.probeBytes(GradientLayout.of(model).length(), workers);
            boolean coresGiven = !Double.isNaN(cores);
            try (ClusterConnection c = connector
                    .connect(workers, r -> "rank " + r, AdviseSession.PLAN, AdviseSession.PLAN_MEANING)) {
                return AdviseSession.run(c.transport(), workers, digest(), probeBytes, pass, probe -> {
                    link = probe.link();
                    if (!coresGiven) {
                        cores = probe.cores();
                    }
                    return advise();
                }, log);
            }
        }

        /** What identifies the candidates and the target, which every process of a session must share. */
        private String digest() {
            StringBuilder b = new StringBuilder();
            for (MethodCandidate c : candidates) {
                b.append(c.id()).append('|').append(c.label()).append('|')
                        .append(c.topology().get().describe().withValues(c.values()).toMap()).append('|')
                        .append(c.stages()).append('|').append(c.overlap()).append('|').append(c.penalty())
                        .append('\n');
            }
            b.append(target).append('|').append(denseSteps);
            try {
                byte[] sha = MessageDigest.getInstance("SHA-256").digest(b.toString().getBytes(StandardCharsets.UTF_8));
                return "sha256:" + HexFormat.of().formatHex(sha).substring(0, 16);
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("this JVM has no SHA-256", e);
            }
        }

        private void check() {
            Objects.requireNonNull(model, "model: the model to advise for");
            Objects.requireNonNull(data, "data: the training data");
            Objects.requireNonNull(log, "log");
            if (workers < 1 || batchSize < 1) {
                throw new IllegalArgumentException("workers and batchSizePerWorker must be >= 1, found " + workers
                        + " and " + batchSize);
            }
            if (candidates.isEmpty()) {
                throw new IllegalArgumentException("candidates: at least one method to advise among");
            }
            Set<String> ids = new HashSet<>();
            for (MethodCandidate c : candidates) {
                if (!ids.add(c.id())) {
                    throw new IllegalArgumentException("candidates: '" + c.id() + "' names two candidates");
                }
            }
            if (!Double.isNaN(cores) && !(cores > 0)) {
                throw new IllegalArgumentException("cores must be > 0, found " + cores);
            }
            if (denseSteps.isPresent() && !(denseSteps.get() > 0)) {
                throw new IllegalArgumentException("denseSteps must be > 0, found " + denseSteps.get());
            }
            if (!(target > 0 && target <= 1)) {
                throw new IllegalArgumentException("target must be a fraction in (0, 1], found " + target);
            }
        }
    }

    private Advice run() throws IOException {
        long start = System.nanoTime();
        ComputeProbe.Result probe = ComputeProbe.measure(model, data, workers, batchSize, seed, compute, probeRank);
        log.printf(Locale.ROOT, "lgc advise: a pass takes %.1f ms of CPU (%.1f ms of wall here, the first %.1f;"
                + " forward alone %.1f), the update %.1f ms of CPU, the JIT's warm-up %.0f ms of CPU, on %d ranks'"
                + " first batches%n", probe.passCpuMs(), probe.busyMs(), probe.freshMs(), probe.forwardMs(),
                probe.applyCpuMs(), probe.warmupCpuMs(), workers);
        GradientLayout layout = GradientLayout.of(model);
        List<Advice.Row> rows = new ArrayList<>();
        for (MethodCandidate c : candidates) {
            rows.add(candidate(c, probe, layout));
        }
        rows = withBreakEven(rows);
        Optional<String> chosen = rows.stream().filter(r -> r.timeToTargetS().isPresent())
                .min((a, b) -> Double.compare(a.timeToTargetS().get(), b.timeToTargetS().get()))
                .map(Advice.Row::id);
        if (chosen.isEmpty() && denseSteps.isEmpty()) {
            // dense's steps unknown: the methods of dense's math need them all alike, so their steps compare
            chosen = rows.stream().filter(r -> r.penaltySource().equals(DENSE_MATH) && !r.stages().isEmpty())
                    .min((a, b) -> Double.compare(steadyMs(a), steadyMs(b))).map(Advice.Row::id);
        }
        return new Advice(rows, chosen, probe.passCpuMs() + probe.applyCpuMs(), cores, link, denseSteps,
                denseStepsSource, target,
                (System.nanoTime() - start) / 1e9);
    }

    private Advice.Row candidate(MethodCandidate c, ComputeProbe.Result probe, GradientLayout layout) {
        Topology topology = c.topology().get();
        List<Advice.StageRow> stages;
        try {
            stages = dryRun(topology, c, probe, layout);
        } catch (Exception e) {
            log.println("lgc advise: " + c.id() + " could not be dry-run: " + e.getMessage());
            return new Advice.Row(c.id(), c.label(), List.of(), Optional.empty(), "", Optional.empty(),
                    Optional.empty(), Optional.empty(), Optional.of(String.valueOf(e.getMessage())));
        }
        Optional<Double> penalty = c.penalty();
        String source = c.penaltySource();
        if (penalty.isEmpty() && MethodKey.of(topology.describe().withValues(c.values()).toMap(), c.stages(),
                c.overlap()).isDense()) {
            penalty = Optional.of(1.0);
            source = DENSE_MATH;
        }
        Optional<Double> steps = penalty.isPresent() && denseSteps.isPresent()
                ? Optional.of(TimeModel.targetSteps(penalty.get(), denseSteps.get())) : Optional.empty();
        Optional<Double> time = Optional.empty();
        if (steps.isPresent()) {
            Map<Stage, TimeModel.StageTime> times = new EnumMap<>(Stage.class);
            for (Advice.StageRow s : stages) {
                times.put(s.stage(), new TimeModel.StageTime(s.prediction().stepMs(), s.oneOffMs()));
            }
            time = Optional.of(TimeModel.timeMs(c.stages(), steps.get(), times) / 1e3);
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

    private List<Advice.StageRow> dryRun(Topology topology, MethodCandidate c, ComputeProbe.Result probe,
                                         GradientLayout layout) throws Exception {
        topology.check(layout, c.stages(), true);
        record Measured(Stage stage, DryRun.Cost first, DryRun.Cost steady, boolean streams) {
        }
        List<Measured> measured = new ArrayList<>();
        try (DryRun run = new DryRun(topology, workers, layout)) {
            int step = 0;
            for (Stage stage : stagesOf(c.stages())) {
                DryRun.Cost first = null;
                DryRun.Cost steady = null;
                boolean streams = false;
                for (int i = 0; i < STEPS_PER_STAGE; i++) {
                    StepTag tag = new StepTag(step++, stage, c.values());
                    // a step streams beside the backward pass only where its exchange takes the gradient in pieces
                    streams = c.overlap() == Overlap.BACKWARD && run.exchange(0).streams(tag);
                    run.step(tag, probe.gradients());
                    if (i == 0) {
                        first = run.lastCost();
                    }
                    steady = run.lastCost();
                }
                measured.add(new Measured(stage, first, steady, streams));
            }
        }
        // the process's CPU beyond the endpoints' threads in the quietest stage is the collector's and the JIT's;
        // what a stage adds to it is its lanes' work
        long baseline = measured.stream().mapToLong(m -> m.steady().otherCpuNanos()).min().orElse(0);
        boolean services = topology.serviceEndpoints(workers) > 0;
        List<Advice.StageRow> rows = new ArrayList<>();
        for (Measured m : measured) {
            // the first stage's dry-run steps hold the lanes' setup (an autoencoder's graphs built during the
            // warm-up), which a run pays once, not a step: its lane work is not a step's
            boolean lanes = services && !m.equals(measured.get(0));
            StepModel.Inputs steadyIn = inputs(m.steady(), probe, m.streams());
            StepModel.Prediction steadyStep = withLane(topology, m.stage(), StepModel.predict(steadyIn), steadyIn,
                    m.steady(), baseline, lanes);
            StepModel.Inputs firstIn = inputs(m.first(), probe, m.streams());
            StepModel.Prediction firstStep = withLane(topology, m.stage(), StepModel.predict(firstIn), firstIn,
                    m.first(), baseline, lanes);
            double oneOff = Math.max(0, firstStep.stepMs() - steadyStep.stepMs());
            if (rows.isEmpty() && steadyStep.bound() == StepModel.Bound.COMPUTE) {
                // a run's first steps also compile the pass; where the CPU bounds a step, that costs its time
                oneOff += probe.warmupCpuMs() / Math.min(1, cores);
            }
            rows.add(new Advice.StageRow(m.stage(), steadyStep, oneOff, m.steady().legs(), steadyIn.wire().upBytes(),
                    steadyIn.wire().downBytes()));
        }
        return rows;
    }

    /**
     * A service's lane counted ({@code docs/results/advise/lane/}): its CPU in the step beyond the baseline, charged
     * to the service. When it is more than the service's quota leaves in the step, the service is throttled and the
     * step waits for it ({@link StepModel#throttleWaitMs}); when the step waits for the lane's work
     * ({@link Topology#waitsForLane}), it takes at least the service's and the lane's CPU over the quota.
     */
    private StepModel.Prediction withLane(Topology topology, Stage stage, StepModel.Prediction p,
                                          StepModel.Inputs in, DryRun.Cost cost, long baseline, boolean services) {
        if (!services) {
            return p;
        }
        double laneMs = Math.max(0, cost.otherCpuNanos() - baseline) / 1e6;
        double share = Math.min(1, cores);
        double wait = laneMs / share > p.stepMs() ? StepModel.throttleWaitMs(cores) : 0;
        double bound = topology.waitsForLane(stage) ? (in.server().cpuMs() + laneMs) / share : 0;
        return StepModel.withLane(p, wait, bound);
    }

    /** The endpoint whose link carries the most bytes in a step: a service's directions take turns. */
    private record Busiest(long up, long down, boolean service) {
    }

    private Busiest busiest(DryRun.Cost cost) {
        Busiest most = null;
        for (int e = 0; e < cost.bytes().endpoints(); e++) {
            long up = cost.bytes().bytes(e, Direction.RECEIVED);
            long down = cost.bytes().bytes(e, Direction.SENT);
            if (most == null || up + down > most.up + most.down) {
                most = new Busiest(up, down, e >= workers);
            }
        }
        return most;
    }

    private StepModel.Inputs inputs(DryRun.Cost cost, ComputeProbe.Result probe, boolean streams) {
        long[] cpu = cost.cpuNanos();
        double rankCpuMs = 0;
        for (int r = 0; r < workers; r++) {
            rankCpuMs += cpu[r] / 1e6 / workers;
        }
        double serverCpuMs = 0;
        for (int s = workers; s < cpu.length; s++) {
            serverCpuMs = Math.max(serverCpuMs, cpu[s] / 1e6);
        }
        Busiest b = busiest(cost);
        // the rank applies the mean after the exchange, on its thread, within its quota as its pass
        return new StepModel.Inputs(new StepModel.Local(probe.passCpuMs() + probe.applyCpuMs(), rankCpuMs, cores),
                new StepModel.Wire(b.up, b.down, b.service, b.service ? link.serviceRateMbit() : link.rateMbit(),
                        link.psOverlap()),
                new StepModel.Legs(cost.legs(), link.hopMs(), link.stragglerMs()),
                new StepModel.Server(serverCpuMs, cores), new StepModel.Overlap(streams ? probe.backwardMs() : 0,
                cores >= 1));
    }
}

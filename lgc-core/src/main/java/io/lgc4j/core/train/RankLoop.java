package io.lgc4j.core.train;

import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.checkpoint.PartInfo;
import io.lgc4j.core.checkpoint.PartKind;
import io.lgc4j.core.checkpoint.Persistent.Regrouping;
import io.lgc4j.core.comm.StepTag;
import io.lgc4j.core.comm.TrafficMeter;
import io.lgc4j.core.compute.CpuStat;
import io.lgc4j.core.data.DataSource;
import io.lgc4j.core.metrics.Phase;
import io.lgc4j.core.metrics.PhaseClock;
import io.lgc4j.core.metrics.StepNotes;
import io.lgc4j.core.metrics.Timeline;
import io.lgc4j.core.metrics.TraceClock;
import io.lgc4j.core.metrics.TraceSettings;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.stage.StageSchedule;

import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One worker rank's training loop: compute its gradient → exchange it through the topology → apply the aggregate →
 * (when the exchange says so: local SGD) average the parameters → report the step. It sees only its
 * {@link ControlPlane} (a transport), its replica and its shard of the data (read through the run's
 * {@link DataSource}, ahead by a {@link BatchReader}), so the same loop runs on a thread of the in-process runtime
 * and alone in an OS process. Its parts, one job each: {@link DataAgreement} before step 0, {@link RankCompute} (the
 * pass, the update, the evaluation share), a {@link StepOrder} per overlap mode (what runs beside what),
 * {@link StepCollector} on rank 0 (every endpoint's reports into step metrics, checkpoints completed, the result),
 * {@link ClockProbes} on a traced cluster run.
 *
 * <p>Every rank but 0 reports each step to rank 0 ({@link RunReport.StepReport}: loss, phase times, its own bytes,
 * notes), and after a step that evaluates its share of the evaluation data ({@link RunReport.Evaluated}); when a
 * checkpoint is due, it writes its part first and reports it ({@link RunReport.Saved}).
 */
final class RankLoop {

    /** What the in-process runtime adds around a rank's step: turns on the shared CPU, aligned exchanges. */
    interface Gate {
        /** Before the forward and backward pass (timed as {@link Phase#CPU_WAIT} until it returns). */
        default void beforeCompute() {
        }

        /** After the forward and backward pass, also when it failed. */
        default void afterCompute() {
        }

        /** Before the exchange; may switch {@code clock} to {@link Phase#CPU_WAIT} while it waits. */
        default void beforeExchange(PhaseClock clock, int rank, int step) {
        }
    }

    /** A gate that adds nothing: one rank per process. */
    static final Gate OPEN = new Gate() {
    };

    /**
     * What every rank of one run shares, read-only: the run's settings, its plan (the steps of this fit), what the
     * method is, its checkpoints (null: none) and its evaluation data (null: none).
     */
    record Run(TrainingSpec spec, TrainingPlan plan, TopologyDescription method, Checkpointing checkpoints,
               EvaluationShares evalData, EpochMap epochs) {
        int workers() {
            return plan.workers();
        }

        int endpoints() {
            return plan.workers() + plan.serviceEndpoints();
        }

        int batchSize() {
            return spec.ranks().batchSize();
        }

        StageSchedule stages() {
            return spec.aggregation().stages();
        }

        /** The trace's settings, or null when the run is not traced. */
        TraceSettings trace() {
            return spec.observation().trace();
        }
    }

    private final Run run;
    private final int rank;
    private final ControlPlane link;
    private final ReplicaModel replica;
    private final GradientExchange exchange;
    private final StepNotes notes;
    private final TrafficMeter meter;
    private final Timeline timeline;
    private final Gate gate;
    private final RankCompute compute;
    private final UpdateFidelity fidelity; // the diagnostic mode's measurement, or null
    private final UpdateFidelity.Recorder offers;
    private ClockProbes probes; // a traced cluster run's, or null
    private volatile int step = -1;
    /** The traffic counters of this rank as last reported. */
    private long[] reported;

    /**
     * @param timeline where the rank's steps, phases and checkpoints are recorded ({@link Timeline#NOOP}: nowhere);
     *                 its frames are recorded by the {@link io.lgc4j.core.metrics.TracedTransport} the exchange was
     *                 given
     */
    RankLoop(Run run, int rank, ControlPlane link, ReplicaModel replica, GradientExchange exchange, StepNotes notes,
             TrafficMeter meter, Gate gate, Timeline timeline) {
        this.run = run;
        this.timeline = timeline;
        this.rank = rank;
        this.link = link;
        this.replica = replica;
        this.exchange = exchange;
        this.notes = notes;
        this.meter = meter;
        this.compute = new RankCompute(run, rank, replica, gate, timeline);
        UpdateFidelity f = run.spec().observation().diagnostics() ? new UpdateFidelity(run.plan().layout()) : null;
        this.fidelity = f != null && f.measurable() ? f : null;
        this.offers = fidelity == null ? null : fidelity.recorder();
        if (offers != null) {
            exchange.tap(offers);
        }
        this.gate = gate;
    }

    /**
     * A traced cluster run: rank 0 probes every endpoint's trace clock {@code rounds} times before step 0 and after
     * the last step ({@link ClockProbes}); the other ranks answer. In process, no probes: every endpoint shares one
     * clock.
     */
    void clockProbes(TraceClock clock, int rounds) {
        this.probes = rounds > 0 ? new ClockProbes(run, link, clock, rounds) : null;
    }

    /** The step this rank is in (-1 before the first), for messages about a failure. */
    int step() {
        return step;
    }

    /**
     * Trains every step of the plan.
     *
     * @return the run's result: on rank 0 with every step's metrics, on other ranks what rank 0 told them at the end
     */
    TrainingResult execute() {
        long start = System.nanoTime();
        TrainingPlan plan = run.plan();
        StepCollector collector = rank == 0 ? new StepCollector(run, link, exchange, notes, probes) : null;
        int first = Checkpointing.firstStep(run.checkpoints());
        DataAgreement agreement = new DataAgreement(run, rank, link, replica, timeline);
        agreement.checkData();
        // a fresh run starts from the parameters each rank built: the agreement refuses any that differ
        agreement.agree(first == 0);
        if (probes != null) {
            probes.beforeFirstStep(rank);
        }
        StepOrder order = StepOrder.of(run, offers != null, compute, exchange, link);
        try {
            reported = first > 0 ? resume(order, collector) : new long[TrafficMeter.ROW_LENGTH];
            link.releaseReceived();
            PhaseClock clock = new PhaseClock(timeline, Timeline.RANK_THREAD);
            // read only when tracing: the throttling and run-queue counters, sampled at every traced step boundary
            CpuStat cpu = timeline.on() ? CpuStat.system() : null;
            for (int s = first; s < plan.totalSteps(); s++) {
                step = s;
                train(s, first, order, collector, clock, cpu);
            }
        } finally {
            order.close(); // waits for a pass still running on a thread of the order's before its reader is closed
            compute.close();
        }
        RunReport.FinalReport last = new RunReport.FinalReport(DataAgreement.checksum(replica),
                meter.snapshot().row(rank));
        int lastStep = plan.totalSteps() - 1;
        if (rank != 0) {
            if (probes != null) {
                probes.answerAfterLastStep(lastStep);
            }
            link.sendReport(0, lastStep, Stage.SETUP, last);
            RunReport.Done done = link.receiveReport(0, RunReport.Done.class, lastStep, "rank 0");
            return TrainingResult.of(done, rank, run.method());
        }
        return collector.finish(last, System.nanoTime() - start);
    }

    /** Step {@code s}: its gradient, exchange and update in the run's order, then its report and checkpoint part. */
    private void train(int s, int first, StepOrder order, StepCollector collector, PhaseClock clock, CpuStat cpu) {
        TrainingPlan plan = run.plan();
        Stage stage = run.stages().stageAt(s);
        long stepStart = System.nanoTime();
        boolean traced = timeline.covers(s);
        clock.timeline(traced ? timeline : Timeline.NOOP);
        if (traced) {
            timeline.counter("cpu", stepStart, CpuStat.counterValues(cpu.sample()));
            if (s > first && run.stages().stageAt(s - 1) != stage) {
                timeline.instant(Timeline.RANK_THREAD, "stage", stepStart, Map.of("step", s, "stage",
                        stage.name()));
            }
        }
        clock.reset();
        boolean epochEnd = run.epochs().epochEnd(s);
        boolean last = s == plan.totalSteps() - 1;
        boolean evaluates = run.evalData() != null
                && (last || epochEnd || (run.spec().evaluation().everySteps() > 0 && (s + 1) % run.spec().evaluation().everySteps() == 0));
        boolean saves = run.checkpoints() != null && run.checkpoints().dueAfter(s);
        StepOrder.Step current = new StepOrder.Step(s, stage, new StepTag(s, stage, run.spec().aggregation().values()), epochEnd, last,
                evaluates, saves, traced);
        RankCompute.Computed computed = order.gradient(current, clock);
        float[] gradient = computed.gradient();
        if (!computed.exchanged()) {
            gate.beforeExchange(clock, rank, s);
            if (offers != null) {
                offers.begin(gradient);
            }
            exchange.allReduceMean(current.tag(), gradient, clock);
        }
        link.releaseReceived(); // every frame of the step is decoded: a network transport reuses its buffers
        if (offers != null) {
            clock.enter(Phase.EVALUATE);
            diagnose(s, stage, gradient);
        }
        RunReport.Evaluated evaluated = order.update(current, gradient, clock);
        clock.stop();
        long[] now = meter.snapshot().row(rank);
        long[] delta = minus(now, reported);
        reported = now;
        report(current, new RunReport.StepReport(computed.loss(), clock.snapshot(), notes.take(s), delta), evaluated,
                stepStart, now, order, collector);
        order.afterReport(current);
        if (traced) {
            long end = System.nanoTime();
            timeline.span(Timeline.RANK_THREAD, "step", "step", stepStart, end,
                    Map.of("step", s, "stage", stage.name(), "loss", computed.loss()));
            if (last || !timeline.covers(s + 1)) {
                // closes the last traced step's interval of the counter
                timeline.counter("cpu", end, CpuStat.counterValues(cpu.sample()));
            }
        }
    }

    /**
     * Step {@code step}'s report, after this rank's checkpoint part when one is due: rank 0 collects every endpoint's
     * (and completes the checkpoint); any other rank writes its part, then sends what it saved, its evaluation share
     * and its report.
     */
    private void report(StepOrder.Step step, RunReport.StepReport own, RunReport.Evaluated evaluated, long stepStart,
                        long[] traffic, StepOrder order, StepCollector collector) {
        int s = step.s();
        long saveStart = System.nanoTime();
        CheckpointPart.Builder saved = step.saves() ? save(order, traffic) : null;
        if (rank == 0) {
            long collect = System.nanoTime();
            collector.step(s, step.stage(), own, evaluated, stepStart, saved,
                    saved == null ? null : DataAgreement.checksum(replica));
            if (step.traced()) {
                // the other ranks' reports, and when a checkpoint is due rank 0's part and the manifest
                timeline.span(Timeline.RANK_THREAD, saved == null ? "collect" : "collect + checkpoint", "report",
                        saved == null ? collect : saveStart, System.nanoTime(), Map.of("step", s));
            }
            return;
        }
        if (saved != null) {
            PartInfo info = run.checkpoints().writeRank(s, rank, saved.build());
            if (step.traced()) {
                timeline.span(Timeline.RANK_THREAD, "checkpoint", "io", saveStart, System.nanoTime(),
                        Map.of("step", s, "bytes", info.size()));
            }
            link.sendReport(0, s, step.stage(), new RunReport.Saved(info.fileName(), info.size(), info.crc32c(),
                    DataAgreement.checksum(replica), System.nanoTime() - saveStart));
        }
        if (evaluated != null) {
            link.sendReport(0, s, step.stage(), evaluated);
        }
        link.sendReport(0, s, step.stage(), own);
    }

    /**
     * This rank's part of a checkpoint after the step just done: exchange state and traffic counters, and on rank 0
     * the replica and what the step order carries. Every rank's replica is the same one (rank 0 compares their
     * checksums before it writes the manifest), so one copy serves every rank at resume.
     */
    private CheckpointPart.Builder save(StepOrder order, long[] trafficRow) {
        CheckpointPart.Builder part = CheckpointPart.builder(PartKind.RANK);
        if (rank == 0) {
            replica.save(part, Checkpointing.REPLICA);
            order.save(part);
        }
        exchange.save(part, Checkpointing.EXCHANGE);
        part.section(Checkpointing.TRAFFIC).putLongs(trafficRow);
        return part;
    }

    /**
     * Restores this rank from its part of the checkpoint resumed from (on rank 0 also the run's history), in place of
     * the parameters it built.
     *
     * @return the restored traffic counters of this rank
     */
    private long[] resume(StepOrder order, StepCollector collector) {
        Checkpointing checkpoints = run.checkpoints();
        try {
            Regrouping rules = exchange.regrouping(Checkpointing.EXCHANGE);
            CheckpointPart part = checkpoints.rankPart(rank, rules);
            // the replica is in rank 0's part (a checkpoint of an earlier build has it in every part, all the same)
            CheckpointPart rank0 = rank == 0 ? part : checkpoints.rankPart(0, rules);
            replica.restore(rank0, Checkpointing.REPLICA);
            if (run.epochs().endedAtResume()) {
                replica.endEpoch(); // the epoch saved inside ended at the resume (a rank-local source at another K)
            }
            order.restore(rank0);
            exchange.restore(part, Checkpointing.EXCHANGE);
            long[] row = part.longs(Checkpointing.TRAFFIC, TrafficMeter.ROW_LENGTH);
            if (collector != null) {
                collector.restore(part);
            }
            meter.add(rank, row);
            return row;
        } catch (CheckpointException e) {
            throw new UncheckedIOException("rank " + rank + " cannot resume from "
                    + checkpoints.resume().directory() + ": " + e.getMessage(), e);
        }
    }

    /**
     * The diagnostic mode: every rank sends rank 0 its offer on the control plane; rank 0 notes how faithfully the
     * update it applies carries their mean ({@link UpdateFidelity}).
     */
    private void diagnose(int s, Stage stage, float[] applied) {
        if (stage != Stage.FULL && !offers.shown() && !run.method().compressor().equals("none")) {
            // a decorator that does not pass GradientExchange.tap on would have the gradient measured as the offer
            throw new IllegalStateException("diagnostic mode: the exchange of " + run.method().topology() + " with "
                    + run.method().compressor() + " showed no offer in " + stage + " step " + s
                    + "; an exchange that wraps another must pass GradientExchange.tap on to it");
        }
        RunReport.Offer own = offers.offer();
        if (rank != 0) {
            link.sendReport(0, s, stage, own);
            return;
        }
        List<RunReport.Offer> all = new ArrayList<>(run.workers());
        all.add(own);
        for (int r = 1; r < run.workers(); r++) {
            all.add(link.receiveReport(r, RunReport.Offer.class, s, "rank " + r));
        }
        fidelity.measure(all, applied).forEach((name, value) -> notes.put(s, name, value));
    }

    private static long[] minus(long[] a, long[] b) {
        long[] d = new long[a.length];
        for (int i = 0; i < a.length; i++) {
            d[i] = a[i] - b[i];
        }
        return d;
    }
}

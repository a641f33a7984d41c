package io.lgc4j.core.train;

import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.checkpoint.PartInfo;
import io.lgc4j.core.checkpoint.PartKind;
import io.lgc4j.core.checkpoint.SectionReader;
import io.lgc4j.core.comm.StepTag;
import io.lgc4j.core.comm.TransportClosedException;
import io.lgc4j.core.comm.TrafficMeter;
import io.lgc4j.core.compute.Nd4jThreads;
import io.lgc4j.core.data.DataPlan;
import io.lgc4j.core.data.DataSource;
import io.lgc4j.core.data.Shard;
import io.lgc4j.core.exchange.GradientPieces;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.metrics.ClockOffset;
import io.lgc4j.core.metrics.CpuStat;
import io.lgc4j.core.metrics.Phase;
import io.lgc4j.core.metrics.PhaseClock;
import io.lgc4j.core.metrics.StepMetrics;
import io.lgc4j.core.metrics.StepNotes;
import io.lgc4j.core.metrics.Timeline;
import io.lgc4j.core.metrics.TraceClock;
import io.lgc4j.core.metrics.TraceMerge;
import io.lgc4j.core.metrics.TracedTransport;
import io.lgc4j.core.runtime.ControlPlane;
import io.lgc4j.core.runtime.RunReport;
import io.lgc4j.core.stage.Stage;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

/**
 * One worker rank's training loop: compute its gradient → exchange it through the topology → apply the aggregate →
 * (when the exchange says so: local SGD) average the parameters → report the step. It sees only its
 * {@link ControlPlane} (a transport), its replica and its shard of the data (read through the run's
 * {@link DataSource}, ahead by a {@link BatchReader}), so the same loop runs on a thread of the in-process runtime
 * and alone in an OS process. Before step 0 the workers agree on the data with rank 0
 * ({@link RunReport.Data}), and rank 0 tells the services the run's length ({@link RunReport.Agreed}).
 *
 * <p>Every rank but 0 reports each step to rank 0 ({@link RunReport.StepReport}: loss, phase times, its own bytes,
 * notes), and after a step that evaluates its share of the evaluation data ({@link RunReport.Evaluated}); rank 0
 * assembles the {@link StepMetrics} the listeners see. A service endpoint reports a step once it has served it
 * ({@link io.lgc4j.core.runtime.ServiceReporter#endStep}), which may be after the step's last frame (the LGC-PS server
 * trains its autoencoder then). Rank 0 therefore completes step s at the end of step s when a checkpoint is due after
 * it, so that the checkpoint's manifest is written when the step ends, as on a topology without services; otherwise,
 * with services, at the end of step s + 1, so that the service's work after its last frame overlaps rank 0's next
 * step. At the end rank 0 stops the services, collects every endpoint's totals and replica checksum, and tells
 * everyone it is done; only then does any endpoint close its links.
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

    /** Everything every rank of one run shares, read-only. */
    record Run(TrainingPlan plan, io.lgc4j.core.stage.StageSchedule stages, DataSource data, DataPlan dataPlan,
               long seed, int prefetch, int batchSize, EvaluationShares evalData,
               int evalEverySteps, List<TrainingListener> listeners, TopologyDescription method,
               boolean diagnostics, io.lgc4j.core.comm.ValueEncoding values, Checkpointing checkpoints,
               io.lgc4j.core.metrics.TraceSettings trace, Overlap overlap, int bucketBytes,
               io.lgc4j.core.data.DataCheck dataCheck) {
        int workers() {
            return plan.workers();
        }

        int endpoints() {
            return plan.workers() + plan.serviceEndpoints();
        }
    }

    private final Run run;
    private final int rank;
    private final ControlPlane link;
    private final ReplicaModel replica;
    private final GradientExchange exchange;
    private final StepNotes notes;
    private final TrafficMeter meter;
    private final Gate gate;
    private final UpdateFidelity fidelity; // the diagnostic mode's measurement, or null
    private final UpdateFidelity.Recorder offers;
    private final Timeline timeline;
    private TraceClock probeClock;
    private int probeRounds;
    private long[][] startProbes; // rank 0: per endpoint {θ ns, RTT ns, at ns} of the least-RTT round before step 0
    private volatile int step = -1;
    /** The reader of the current epoch's batches; used by one thread at a time (the compute-ahead thread in turn). */
    private BatchReader batches;
    /** Delayed application: the mean of the last exchanged step, not yet applied (null when none is due). */
    private float[] pending;
    /** Delayed application: a gradient array free for the next step computed ahead. */
    private float[] spare;
    /** {@link Overlap#PREDICTED}: the mean applied last, applied once more to predict the parameters (else null). */
    private float[] predictor;

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
        this.gate = gate;
        UpdateFidelity f = run.diagnostics() ? new UpdateFidelity(run.plan().layout()) : null;
        this.fidelity = f != null && f.measurable() ? f : null;
        this.offers = fidelity == null ? null : fidelity.recorder();
        if (offers != null) {
            exchange.tap(offers);
        }
    }

    /**
     * A traced cluster run: rank 0 probes every endpoint's trace clock {@code rounds} times before step 0 and after
     * the last step ({@link RunReport.ClockProbe}), and writes the offsets to the trace's {@code clock.json}; the other
     * ranks answer. Every process must be told the same (the same {@code --trace} on every process). In-process, no
     * probes: every endpoint shares one clock.
     */
    void clockProbes(TraceClock clock, int rounds) {
        this.probeClock = clock;
        this.probeRounds = rounds;
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
        Collector collector = rank == 0 ? new Collector() : null;
        Checkpointing checkpoints = run.checkpoints();
        int first = Checkpointing.firstStep(checkpoints);
        checkData();
        agreeOnData(first == 0);
        if (probeRounds > 0) {
            if (rank == 0) {
                startProbes = probeClocks(-1);
            } else {
                answerProbes(-1);
            }
        }
        long[] reported;
        // a fresh run starts from the parameters each rank built: agreeOnData has refused any that differ
        reported = first > 0 ? resume(checkpoints, collector) : new long[TrafficMeter.ROW_LENGTH];
        link.releaseReceived();
        PhaseClock clock = new PhaseClock(timeline, Timeline.RANK_THREAD);
        // read only when tracing: the throttling and run-queue counters, sampled at every traced step boundary
        CpuStat cpu = timeline.on() ? CpuStat.system() : null;
        float[] gradient = null;
        boolean delayed = run.overlap().delaysApplication();
        boolean predicts = run.overlap() == Overlap.PREDICTED;
        ComputeAhead ahead = delayed ? new ComputeAhead() : null;
        ExchangeBeside beside = run.overlap() == Overlap.BACKWARD && offers == null ? new ExchangeBeside() : null;
        try {
            for (int s = first; s < plan.totalSteps(); s++) {
                step = s;
                int inEpoch = s % plan.stepsPerEpoch();
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
                boolean epochEnd = inEpoch == plan.stepsPerEpoch() - 1;
                boolean last = s == plan.totalSteps() - 1;
                boolean evaluates = run.evalData() != null
                        && (last || epochEnd || (run.evalEverySteps() > 0 && (s + 1) % run.evalEverySteps() == 0));
                boolean saves = checkpoints != null && checkpoints.dueAfter(s);
                Computed computed;
                RunReport.Evaluated evaluated = null;
                StepTag tag = new StepTag(s, stage, run.values());
                boolean streamed = beside != null && exchange.streams(tag);
                if (streamed) {
                    computed = beside.step(s, tag, clock, gradient, traced);
                    gradient = computed.gradient();
                } else if (!delayed) {
                    computed = compute(s, clock, gradient, null, null);
                    gradient = computed.gradient();
                } else {
                    computed = ahead.take(s, clock);
                    if (pending != null) {
                        // the mean of step s − 1, once step s's gradient is taken: it shares the model's gradient view
                        clock.enter(Phase.APPLY);
                        replica.applyGradient(pending, run.batchSize());
                        spare = pending;
                        predictor = predicts ? pending : null;
                        pending = null;
                    }
                    if (epochEnd) {
                        replica.endEpoch();
                    }
                    if (evaluates) {
                        clock.enter(Phase.EVALUATE);
                        evaluated = run.evalData().evaluate(replica, rank, run.workers());
                    }
                    if (!last && !saves) {
                        // a checkpoint saves the replica: the next gradient is then started after the save
                        ahead.start(s + 1, spare, predictor);
                        spare = null;
                    }
                    gradient = computed.gradient();
                }
                double loss = computed.loss();
                if (!streamed) {
                    gate.beforeExchange(clock, rank, s);
                    if (offers != null) {
                        offers.begin(gradient);
                    }
                    exchange.allReduceMean(tag, gradient, clock);
                }
                link.releaseReceived(); // every frame of the step is decoded: a network transport reuses its buffers
                if (offers != null) {
                    clock.enter(Phase.EVALUATE);
                    diagnose(s, stage, gradient);
                }
                if (!delayed) {
                    clock.enter(Phase.APPLY);
                    // DL4J's gradient is a sum over the mini-batch and its updater divides by the batch size; the mean
                    // over ranks of per-rank sums divided by b is the mean over all K·b examples.
                    replica.applyGradient(gradient, run.batchSize());
                    if (exchange.averagesParameters(tag)) {
                        averageParameters(tag, clock);
                    }
                    if (epochEnd) {
                        replica.endEpoch();
                    }
                } else {
                    // applied after the next step's pass; after the last step, kept in its checkpoint only, so that
                    // the state after step s is the same however long the run (the table's capped runs, an
                    // extended resume)
                    pending = gradient;
                }
                if (evaluates && !delayed) {
                    clock.enter(Phase.EVALUATE);
                    evaluated = run.evalData().evaluate(replica, rank, run.workers());
                }
                clock.stop();
                long[] now = meter.snapshot().row(rank);
                long[] delta = minus(now, reported);
                reported = now;
                RunReport.StepReport own = new RunReport.StepReport(loss, clock.snapshot(), notes.take(s), delta);
                long saveStart = System.nanoTime();
                CheckpointPart.Builder saved = saves ? save(now) : null;
                if (rank == 0) {
                    long collect = System.nanoTime();
                    collector.step(s, stage, own, evaluated, stepStart, saved,
                            saved == null ? null : checksum(replica));
                    if (traced) {
                        // the other ranks' reports, and when a checkpoint is due rank 0's part and the manifest
                        timeline.span(Timeline.RANK_THREAD, saved == null ? "collect" : "collect + checkpoint",
                                "report", saved == null ? collect : saveStart, System.nanoTime(), Map.of("step", s));
                    }
                } else {
                    if (saved != null) {
                        PartInfo info = checkpoints.writeRank(s, rank, saved.build());
                        if (traced) {
                            timeline.span(Timeline.RANK_THREAD, "checkpoint", "io", saveStart, System.nanoTime(),
                                    Map.of("step", s, "bytes", info.size()));
                        }
                        link.sendReport(0, s, stage, new RunReport.Saved(info.fileName(), info.size(), info.crc32c(),
                                checksum(replica), System.nanoTime() - saveStart));
                    }
                    if (evaluated != null) {
                        link.sendReport(0, s, stage, evaluated);
                    }
                    link.sendReport(0, s, stage, own);
                }
                if (delayed && saves && !last) {
                    ahead.start(s + 1, spare, predictor);
                    spare = null;
                }
                if (traced) {
                    long end = System.nanoTime();
                    timeline.span(Timeline.RANK_THREAD, "step", "step", stepStart, end,
                            Map.of("step", s, "stage", stage.name(), "loss", loss));
                    if (s == plan.totalSteps() - 1 || !timeline.covers(s + 1)) {
                        // closes the last traced step's interval of the counter
                        timeline.counter("cpu", end, CpuStat.counterValues(cpu.sample()));
                    }
                }
            }
        } finally {
            if (ahead != null) {
                ahead.close();
            }
            if (beside != null) {
                beside.close();
            }
            if (batches != null) {
                batches.close();
            }
        }
        RunReport.FinalReport last = new RunReport.FinalReport(checksum(replica), meter.snapshot().row(rank));
        if (rank != 0) {
            if (probeRounds > 0) {
                answerProbes(plan.totalSteps() - 1);
            }
            link.sendReport(0, plan.totalSteps() - 1, Stage.SETUP, last);
            RunReport.Done done = link.receiveReport(0, RunReport.Done.class, plan.totalSteps() - 1, "rank 0");
            return TrainingResult.of(done, rank, run.method());
        }
        return collector.finish(last, System.nanoTime() - start);
    }

    /** A step's loss and gradient, copied out of the model and checked finite. */
    private record Computed(int step, double loss, float[] gradient) {
    }

    /**
     * Step {@code s}'s forward and backward pass on this rank's shard: its batch (the epoch's reader opened at its
     * first step here and closed after its last), the in-process gate's turn on the CPU, the gradient copied into
     * {@code into} (a new array when null). {@code clock} times the turn and the pass on the rank's thread. With a
     * {@code predictor} (a mean, {@link Overlap#PREDICTED}) the pass runs at the parameters that mean would give,
     * and the replica is put back after it.
     */
    private Computed compute(int s, PhaseClock clock, float[] into, float[] predictor, StreamedGradient streamed) {
        TrainingPlan plan = run.plan();
        int inEpoch = s % plan.stepsPerEpoch();
        if (batches == null) {
            int count = Math.min(plan.stepsPerEpoch() - inEpoch, plan.totalSteps() - s);
            Shard shard = new Shard(rank, run.workers(), run.batchSize(), s / plan.stepsPerEpoch(), inEpoch,
                    run.seed());
            batches = BatchReader.open(run.data(), shard, count, run.prefetch(), timeline);
        }
        ReplicaModel.Snapshot current = null;
        if (predictor != null) {
            clock.enter(Phase.COMPUTE);
            current = replica.snapshot();
            replica.applyGradient(predictor, run.batchSize());
        }
        clock.enter(Phase.CPU_WAIT);
        gate.beforeCompute();
        double loss;
        try {
            clock.enter(Phase.COMPUTE);
            DataSet batch = batches.next();
            LayerRandomness.beginPass(run.seed(), rank, s);
            loss = streamed == null ? replica.computeGradient(batch.getFeatures(), batch.getLabels())
                    : replica.computeGradient(batch.getFeatures(), batch.getLabels(), streamed);
        } finally {
            gate.afterCompute();
        }
        if (inEpoch == plan.stepsPerEpoch() - 1 || s == plan.totalSteps() - 1) {
            batches.close();
            batches = null;
        }
        float[] gradient;
        if (streamed != null) {
            streamed.throwIfNonFinite(); // the pass copied every part it finished
            gradient = into;
        } else {
            INDArray view = replica.gradient();
            gradient = into != null ? into : new float[(int) view.length()];
            copyChecked(view, gradient, s);
        }
        if (current != null) {
            replica.reset(current);
        }
        return new Computed(s, loss, gradient);
    }

    /**
     * Delayed application ({@link Overlap#DELAYED}): the thread that computes step s + 1's gradient while the rank's
     * thread exchanges step s's. It touches only the replica's forward and backward pass, the batch reader and its
     * own gradient array; the rank's thread does not touch them until it has taken the result ({@link #take}), and
     * every send and receive stays on the rank's thread.
     */
    private final class ComputeAhead implements AutoCloseable {
        private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(() -> {
                Nd4jThreads.adopt();
                r.run();
            }, "lgc-compute-ahead-rank-" + rank);
            t.setDaemon(true);
            return t;
        });
        private Future<Computed> next;

        ComputeAhead() {
            timeline.threadName(Timeline.COMPUTE_THREAD, "compute ahead");
        }

        /**
         * Starts computing step {@code s}'s gradient into {@code into} (a new array when null), at the parameters
         * {@code predictor} would give when not null.
         */
        void start(int s, float[] into, float[] predictor) {
            next = thread.submit(() -> {
                long start = System.nanoTime();
                PhaseClock own = new PhaseClock(Timeline.NOOP, Timeline.COMPUTE_THREAD);
                Computed c = compute(s, own, into, predictor, null);
                if (timeline.covers(s)) {
                    timeline.span(Timeline.COMPUTE_THREAD, "compute", "compute", start, System.nanoTime(),
                            Map.of("step", s));
                }
                return c;
            });
        }

        /**
         * Step {@code s}'s gradient: the one computed ahead (the wait timed as {@link Phase#COMPUTE}), or, when none
         * was started (the first step, the step after a checkpoint), computed now on this thread.
         */
        Computed take(int s, PhaseClock clock) {
            if (next == null) {
                Computed c = compute(s, clock, spare, predictor, null);
                spare = null;
                return c;
            }
            clock.enter(Phase.COMPUTE);
            Future<Computed> f = next;
            next = null;
            Computed c = outcome(f, s, "gradient");
            if (c.step() != s) {
                throw new IllegalStateException("rank " + rank + " expected step " + s + "'s gradient, got step "
                        + c.step() + "'s");
            }
            return c;
        }

        /** Waits for a computation still running (a failed step's), so the batch reader can be closed after. */
        @Override
        public void close() {
            thread.shutdown();
            try {
                if (!thread.awaitTermination(60, TimeUnit.SECONDS)) {
                    thread.shutdownNow();
                }
            } catch (InterruptedException e) {
                thread.shutdownNow();
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * {@link Overlap#BACKWARD}: the thread that runs a step's exchange while the rank's thread runs its backward pass.
     * The exchange reads a piece of the gradient only once the pass has finished it ({@link StreamedGradient}); it is
     * the only thread that sends or receives until the rank's thread has its result, and it touches neither the
     * replica nor the control plane. Its phases are traced on their own track; the rank's clock reports the pass as
     * compute and the wait for the exchange after it as communicate (the part the pass did not hide).
     */
    private final class ExchangeBeside implements AutoCloseable {
        private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(() -> {
                TracedTransport.trackThisThread(Timeline.EXCHANGE_THREAD);
                Nd4jThreads.adopt();
                r.run();
            }, "lgc-exchange-rank-" + rank);
            t.setDaemon(true);
            return t;
        });
        private final List<GradientPieces.Piece> pieces = GradientPieces.plan(run.plan().layout(), run.bucketBytes());
        private final PhaseClock own = new PhaseClock(Timeline.NOOP, Timeline.EXCHANGE_THREAD);

        ExchangeBeside() {
            timeline.threadName(Timeline.EXCHANGE_THREAD, "exchange beside the backward pass");
        }

        /** Step {@code s}'s pass with its exchange beside it; returns once this rank holds the step's mean. */
        Computed step(int s, StepTag tag, PhaseClock clock, float[] into, boolean traced) {
            float[] gradient = into != null ? into : new float[run.plan().layout().length()];
            StreamedGradient streamed = new StreamedGradient(pieces, run.plan().layout(), replica::gradient, gradient,
                    rank, s);
            Future<?> exchanged = thread.submit(() -> {
                own.timeline(traced ? timeline : Timeline.NOOP);
                own.reset();
                exchange.allReduceMean(tag, gradient, own, streamed);
                own.stop();
            });
            Computed computed;
            try {
                computed = compute(s, clock, gradient, null, streamed);
            } catch (RuntimeException | Error e) {
                streamed.fail();
                throw e;
            }
            clock.enter(Phase.COMMUNICATE);
            outcome(exchanged, s, "exchange");
            return computed;
        }

        /** Stops the thread; an exchange still running (a failed step's) ends when the links close. */
        @Override
        public void close() {
            thread.shutdownNow();
        }
    }

    /**
     * What {@code work} (step {@code s}'s {@code what}, run on a thread of this rank's) came to: its result, or what it
     * threw, thrown here as it was.
     */
    private <T> T outcome(Future<T> work, int s, String what) {
        try {
            return work.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TransportClosedException("rank " + rank + " was interrupted waiting for step " + s + "'s "
                    + what);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException("rank " + rank + " step " + s + ": " + e.getCause(), e.getCause());
        }
    }

    /** Rank 0's side: the reports of every endpoint, assembled into step metrics and the result. */
    private final class Collector {
        private final List<StepMetrics> history = new ArrayList<>();
        private final Deque<Pending> pending = new ArrayDeque<>();
        private double lastAccuracy = Double.NaN;

        /**
         * A step whose workers have reported, waiting for its services' reports; when a checkpoint is due after it,
         * rank 0's part (its state at the end of the step) and the parts the other ranks wrote.
         */
        private record Pending(int step, Stage stage, double loss, long[] mean, long[] max, long wallNanos,
                               double accuracy, long[][] rows, Map<String, Double> notes, CheckpointPart.Builder own,
                               String ownChecksum, List<RunReport.Saved> saved) {
        }

        /**
         * Rank 0's step {@code s}: its own report, and when the step evaluated ({@code evaluated} not null) its
         * share of the evaluation; receives the other workers' reports and shares.
         */
        void step(int s, Stage stage, RunReport.StepReport own, RunReport.Evaluated evaluated, long stepStart,
                  CheckpointPart.Builder ownPart, String ownChecksum) {
            int workers = run.workers();
            List<RunReport.Saved> saved = ownPart == null ? null : new ArrayList<>();
            long[][] rows = new long[run.endpoints()][];
            Map<String, Double> merged = new HashMap<>(own.notes());
            double loss = own.loss();
            int phaseCount = Phase.values().length;
            long[] mean = own.phaseNanos().clone();
            long[] max = own.phaseNanos().clone();
            rows[0] = own.traffic();
            List<RunReport.Evaluated> shares = evaluated == null ? null : new ArrayList<>(List.of(evaluated));
            for (int r = 1; r < workers; r++) {
                if (saved != null) {
                    saved.add(link.receiveReport(r, RunReport.Saved.class, s, "rank " + r));
                }
                if (shares != null) {
                    shares.add(link.receiveReport(r, RunReport.Evaluated.class, s, "rank " + r));
                }
                RunReport.StepReport report = link.receiveReport(r, RunReport.StepReport.class, s, "rank " + r);
                loss += report.loss();
                for (int p = 0; p < phaseCount; p++) {
                    mean[p] += report.phaseNanos()[p];
                    max[p] = Math.max(max[p], report.phaseNanos()[p]);
                }
                rows[r] = report.traffic();
                merged.putAll(report.notes());
            }
            for (int p = 0; p < phaseCount; p++) {
                mean[p] /= workers;
            }
            double accuracy = shares == null ? Double.NaN : EvaluationShares.accuracy(shares);
            pending.add(new Pending(s, stage, loss / workers, mean, max, System.nanoTime() - stepStart, accuracy,
                    rows, merged, ownPart, ownChecksum, saved));
            // a service reports step s once it has served it, or the next; a checkpoint waits for those reports (and
            // for notes this exchange writes after the step), any other step completes at the end of the next
            boolean checkpoint = ownPart != null;
            boolean lagging = run.plan().serviceEndpoints() > 0 || exchange.notesLag();
            while (!pending.isEmpty() && (!lagging || checkpoint || pending.peek().step() < s)) {
                complete(pending.poll());
            }
        }

        private void complete(Pending p) {
            if (exchange.notesLag()) {
                exchange.awaitNotes(p.step());
                p.notes().putAll(notes.take(p.step()));
            }
            for (int e = run.workers(); e < run.endpoints(); e++) {
                if (p.saved() != null) {
                    p.saved().add(link.receiveReport(e, RunReport.Saved.class, p.step(), "service endpoint " + e));
                }
                RunReport.StepReport report = link.receiveReport(e, RunReport.StepReport.class, p.step(),
                        "service endpoint " + e);
                p.rows()[e] = report.traffic();
                p.notes().putAll(report.notes());
            }
            if (!Double.isNaN(p.accuracy())) {
                lastAccuracy = p.accuracy();
            }
            StepMetrics m = new StepMetrics(p.step(), p.step() / run.plan().stepsPerEpoch(), p.stage(), p.loss(),
                    p.accuracy(), p.mean(), p.max(), p.wallNanos(), TrafficMeter.Snapshot.ofRows(p.rows()),
                    run.workers(), p.notes());
            history.add(m);
            for (TrainingListener l : run.listeners()) {
                l.onStep(m);
            }
            if (p.own() != null) {
                completeCheckpoint(p);
            }
        }

        /**
         * Rank 0's part (its state at the end of the step, the metrics of every step so far, the last accuracy),
         * then the manifest listing every part: the checkpoint is complete. The replicas every rank saved must be
         * identical; if not, no manifest is written.
         */
        private void completeCheckpoint(Pending p) {
            Checkpointing checkpoints = run.checkpoints();
            String own = p.ownChecksum();
            for (int r = 1; r < run.workers(); r++) {
                String other = p.saved().get(r - 1).replicaChecksum();
                if (!other.equals(own)) {
                    throw new IllegalStateException("the replicas differ at the checkpoint after step " + p.step()
                            + ": rank 0 saved parameters with checksum " + own + ", rank " + r + " with " + other
                            + "; the checkpoint is left without a manifest");
                }
            }
            long start = System.nanoTime();
            StepHistory.write(p.own().section(Checkpointing.HISTORY), history);
            p.own().section(Checkpointing.ACCURACY).putDouble(lastAccuracy);
            List<PartInfo> parts = new ArrayList<>();
            parts.add(checkpoints.writeRank(p.step(), 0, p.own().build()));
            long slowest = System.nanoTime() - start;
            String slowestName = "rank 0";
            for (RunReport.Saved saved : p.saved()) {
                parts.add(new PartInfo(saved.file(), saved.size(), saved.crc32c()));
                if (saved.writeNanos() > slowest) {
                    slowest = saved.writeNanos();
                    slowestName = saved.file();
                }
            }
            for (TrainingListener l : run.listeners()) {
                l.onCheckpoint(p.step());
            }
            checkpoints.writeManifest(p.step(), parts, slowest, slowestName);
        }

        /** Starts from a checkpoint's history and last accuracy. */
        void restore(CheckpointPart part) throws CheckpointException {
            history.addAll(StepHistory.read(part.section(Checkpointing.HISTORY)));
            SectionReader accuracy = part.section(Checkpointing.ACCURACY);
            lastAccuracy = accuracy.getDouble();
            accuracy.end();
        }

        TrainingResult finish(RunReport.FinalReport own, long wallNanos) {
            int lastStep = run.plan().totalSteps() - 1;
            long[][] totals = new long[run.endpoints()][];
            List<String> checksums = new ArrayList<>();
            totals[0] = own.traffic();
            checksums.add(own.replicaChecksum());
            for (int e = run.workers(); e < run.endpoints(); e++) {
                link.sendReport(e, lastStep, Stage.SETUP, new RunReport.Stop());
            }
            while (!pending.isEmpty()) {
                complete(pending.poll());
            }
            for (int e = run.workers(); e < run.endpoints(); e++) {
                totals[e] = link.receiveReport(e, RunReport.FinalReport.class, lastStep, "service endpoint " + e)
                        .traffic();
            }
            if (probeRounds > 0) {
                // the links are idle: the workers wait to send their totals, the services for rank 0's word
                writeClockOffsets(startProbes, probeClocks(lastStep));
            }
            for (int r = 1; r < run.workers(); r++) {
                RunReport.FinalReport f = link.receiveReport(r, RunReport.FinalReport.class, lastStep, "rank " + r);
                totals[r] = f.traffic();
                checksums.add(f.replicaChecksum());
            }
            RunReport.Done done = new RunReport.Done(lastAccuracy, history.size(), wallNanos, checksums, totals);
            for (int e = 1; e < run.endpoints(); e++) {
                link.sendReport(e, lastStep, Stage.SETUP, done);
            }
            return new TrainingResult(history, lastAccuracy, TrafficMeter.Snapshot.ofRows(totals), wallNanos,
                    run.method(), checksums);
        }
    }

    /**
     * This rank's part of a checkpoint after the step just done: exchange state and traffic counters, and on rank 0
     * the replica. Every rank's replica is the same one (rank 0 compares their checksums before it writes the
     * manifest), so one copy serves every rank at resume.
     */
    private CheckpointPart.Builder save(long[] trafficRow) {
        CheckpointPart.Builder part = CheckpointPart.builder(PartKind.RANK);
        if (rank == 0) {
            replica.save(part, Checkpointing.REPLICA);
            if (pending != null) {
                // delayed application: the mean of this step, applied after the next step's gradient is taken
                part.section(Checkpointing.PENDING).putFloats(pending);
            }
            if (predictor != null) {
                // predicted: the mean applied in this step, which predicts the parameters of the next step's pass
                part.section(Checkpointing.PREDICTOR).putFloats(predictor);
            }
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
    private long[] resume(Checkpointing checkpoints, Collector collector) {
        CheckpointPart part = checkpoints.rankPart(rank);
        try {
            // the replica is in rank 0's part (a checkpoint of an earlier build has it in every part, all the same)
            CheckpointPart rank0 = rank == 0 ? part : checkpoints.rankPart(0);
            replica.restore(rank0, Checkpointing.REPLICA);
            if (run.overlap().delaysApplication() && rank0.has(Checkpointing.PENDING)) {
                pending = rank0.floats(Checkpointing.PENDING, run.plan().layout().length());
            }
            if (run.overlap() == Overlap.PREDICTED && rank0.has(Checkpointing.PREDICTOR)) {
                predictor = rank0.floats(Checkpointing.PREDICTOR, run.plan().layout().length());
            }
            exchange.restore(part, Checkpointing.EXCHANGE);
            long[] row = part.longs(Checkpointing.TRAFFIC, TrafficMeter.ROW_LENGTH);
            if (collector != null) {
                collector.restore(part);
            }
            meter.add(rank, row);
            return row;
        } catch (CheckpointException e) {
            throw new java.io.UncheckedIOException("rank " + rank + " cannot resume from "
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

    /**
     * Rank 0: {@link #probeRounds} probes to every other endpoint, one at a time.
     *
     * @return per endpoint (0: null) {θ, RTT, midpoint} in nanoseconds of the round with the least round trip, θ being
     *         how far the endpoint's trace clock is ahead of rank 0's
     */
    private long[][] probeClocks(int s) {
        long anchor = probeClock.anchorNanos();
        long[][] best = new long[run.endpoints()][];
        for (int e = 1; e < run.endpoints(); e++) {
            String who = e < run.workers() ? "rank " + e : "service endpoint " + e;
            for (int i = 0; i < probeRounds; i++) {
                long t0 = System.nanoTime() - anchor;
                link.sendReport(e, s, Stage.SETUP, new RunReport.ClockProbe(t0));
                RunReport.ClockEcho echo = link.receiveReport(e, RunReport.ClockEcho.class, s, who);
                long t3 = System.nanoTime() - anchor;
                long mid = t0 + (t3 - t0) / 2;
                if (best[e] == null || t3 - t0 < best[e][1]) {
                    best[e] = new long[] {echo.endpointNanos() - mid, t3 - t0, mid};
                }
            }
        }
        return best;
    }

    /** Not rank 0: answers rank 0's probes at once with this process's trace clock. */
    private void answerProbes(int s) {
        for (int i = 0; i < probeRounds; i++) {
            RunReport.ClockProbe probe = link.receiveReport(0, RunReport.ClockProbe.class, s, "rank 0");
            link.sendReport(0, s, Stage.SETUP, new RunReport.ClockEcho(probe.rank0Nanos(),
                    System.nanoTime() - probeClock.anchorNanos()));
        }
    }

    /** Rank 0: {@code clock.json} from the estimates before step 0 and after the last step. */
    private void writeClockOffsets(long[][] before, long[][] after) {
        List<ClockOffset> offsets = new ArrayList<>();
        for (int e = 1; e < run.endpoints(); e++) {
            long[] a = before[e];
            long[] b = after[e];
            double drift = b[2] == a[2] ? 0 : (b[0] - a[0]) * 1e6 / (b[2] - a[2]);
            // the merge shifts by the estimate before step 0: drift over a run is within the bound on one host
            offsets.add(new ClockOffset(e, -a[0] / 1_000.0, a[1] / 2_000.0, drift));
        }
        try {
            TraceMerge.writeOffsets(run.trace().directory(), offsets);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot write the trace's clock offsets into "
                    + run.trace().directory() + ": " + e, e);
        }
    }

    /** Before step 0: this rank reads its share of the data as {@link Run#dataCheck()} says; a bad row fails it. */
    private void checkData() {
        if (run.dataCheck() == io.lgc4j.core.data.DataCheck.NONE) {
            return;
        }
        long start = System.nanoTime();
        long rows;
        try {
            rows = run.data().check(rank, run.workers(), run.dataCheck());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e.getMessage(), e);
        }
        if (timeline.on() && rows > 0) { // a source in memory has nothing to check, and its trace shows nothing
            timeline.span(Timeline.RANK_THREAD, "data check", "io", start, System.nanoTime(), Map.of("rows", rows,
                    "check", run.dataCheck().configName()));
        }
    }

    /**
     * Before step 0: every worker tells rank 0 what its data source holds and, on a fresh start, the checksum of the
     * model it built; rank 0 refuses a worker whose steps per epoch, examples, data or initial model differ from its
     * own (naming both), and tells every service the run's length.
     */
    private void agreeOnData(boolean fresh) {
        DataPlan own = run.dataPlan();
        RunReport.Data mine = new RunReport.Data(own.examples(), own.stepsPerEpoch(), own.fingerprint(),
                fresh ? initialModel() : 0);
        if (rank != 0) {
            link.sendReport(0, -1, Stage.SETUP, mine);
            return;
        }
        for (int r = 1; r < run.workers(); r++) {
            RunReport.Data other = link.receiveReport(r, RunReport.Data.class, -1, "rank " + r);
            String differs = disagreement(mine, other, r);
            if (differs != null) {
                throw new IllegalStateException(differs);
            }
        }
        RunReport.Agreed agreed = new RunReport.Agreed(own.stepsPerEpoch(), run.plan().totalSteps());
        for (int e = run.workers(); e < run.endpoints(); e++) {
            link.sendReport(e, -1, Stage.SETUP, agreed);
        }
    }

    /** What makes rank {@code r}'s data another than rank 0's, or null when they agree. */
    private String disagreement(RunReport.Data own, RunReport.Data other, int r) {
        String batch = "batch " + run.batchSize() + " × " + run.workers() + " ranks";
        if (other.stepsPerEpoch() != own.stepsPerEpoch() || other.examples() != own.examples()) {
            return String.format("the ranks disagree on the data: rank 0 has %,d steps per epoch (%,d examples, %s),"
                            + " rank %d has %,d (%,d examples)", own.stepsPerEpoch(), own.examples(), batch, r,
                    other.stepsPerEpoch(), other.examples());
        }
        if (own.fingerprint() != 0 && other.fingerprint() != 0 && own.fingerprint() != other.fingerprint()) {
            return String.format("rank %d reads other data than rank 0 (%,d examples each; fingerprint 0x%x vs 0x%x)",
                    r, own.examples(), other.fingerprint(), own.fingerprint());
        }
        if (own.initialModel() != 0 && other.initialModel() != 0 && own.initialModel() != other.initialModel()) {
            return String.format("rank %d built another initial model than rank 0 (parameters' digest %016x vs"
                    + " %016x): the processes initialize it differently, so no run of it would repeat; seed it"
                    + " (NeuralNetConfiguration.Builder#seed) or load one saved model in every process", r,
                    other.initialModel(), own.initialModel());
        }
        return null;
    }

    /**
     * The replica's parameters as the process built them, digested: the first 64 bits of their SHA-256, never 0
     * (0 means: not compared). Equal digests are what lets every rank start from its own parameters, with no
     * broadcast.
     */
    private long initialModel() {
        long digest;
        try {
            digest = ByteBuffer.wrap(MessageDigest.getInstance("SHA-256").digest(parameterBytes(replica))).getLong();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
        return digest == 0 ? 1 : digest;
    }

    /**
     * Local SGD: this rank's parameters, after step {@code tag}'s update, replaced by their mean over the ranks
     * ({@link GradientExchange#averageParameters}), so that every replica holds the same bits again. The copies out
     * and back count as communicate; the averaging times its own phases.
     */
    private void averageParameters(StepTag tag, PhaseClock clock) {
        clock.enter(Phase.COMMUNICATE);
        INDArray own = replica.params();
        float[] params = new float[Math.toIntExact(own.length())];
        HostCopy.toHeap(own, params);
        exchange.averageParameters(tag, params, clock);
        clock.enter(Phase.COMMUNICATE);
        HostCopy.fromHeap(params, own);
        link.releaseReceived(); // every frame of the averaging is decoded
    }

    private void copyChecked(INDArray view, float[] into, int s) {
        HostCopy.toHeap(view, into);
        for (int i = 0; i < into.length; i++) {
            float v = into[i];
            if (!Float.isFinite(v)) {
                ParamBlock block = run.plan().layout().blockAt(i);
                throw new NonFiniteGradientException("rank " + rank + " step " + s + ": gradient element " + i + " is "
                        + v + " (block " + block.qualifiedName() + ", element " + (i - block.offset()) + " of "
                        + block.length() + "); it was not sent");
            }
        }
    }

    private static long[] minus(long[] a, long[] b) {
        long[] d = new long[a.length];
        for (int i = 0; i < a.length; i++) {
            d[i] = a[i] - b[i];
        }
        return d;
    }

    /**
     * CRC32C of a replica's parameters (their float bits, big-endian) as 8 hex digits: equal on every rank when the
     * replicas stayed bit-identical.
     */
    static String checksum(ReplicaModel replica) {
        CRC32C crc = new CRC32C();
        crc.update(parameterBytes(replica));
        return String.format("%08x", crc.getValue());
    }

    /** The replica's parameters as big-endian float32 bytes, what both its checksum and its digest read. */
    private static byte[] parameterBytes(ReplicaModel replica) {
        float[] params = replica.params().toFloatVector();
        ByteBuffer bytes = ByteBuffer.allocate(4 * params.length);
        bytes.asFloatBuffer().put(params);
        return bytes.array();
    }
}

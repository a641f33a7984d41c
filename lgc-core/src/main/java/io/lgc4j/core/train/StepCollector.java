package io.lgc4j.core.train;

import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.checkpoint.PartInfo;
import io.lgc4j.core.checkpoint.SectionReader;
import io.lgc4j.core.comm.TrafficMeter;
import io.lgc4j.core.metrics.Phase;
import io.lgc4j.core.metrics.StepMetrics;
import io.lgc4j.core.metrics.StepNotes;
import io.lgc4j.core.stage.Stage;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Rank 0's side of a run: the reports of every endpoint, assembled into the {@link StepMetrics} the listeners see, the
 * checkpoints completed, the result. A service endpoint reports a step once it has served it
 * ({@link ServiceReporter#endStep}), which may be after the step's last frame (the LGC-PS server
 * trains its autoencoder then). So step s completes at the end of step s when a checkpoint is due after it, so that
 * the checkpoint's manifest is written when the step ends, as on a topology without services; otherwise, with
 * services, at the end of step s + 1, so that the service's work after its last frame overlaps rank 0's next step. At
 * the end rank 0 stops the services, collects every endpoint's totals and replica checksum, and tells everyone it is
 * done; only then does any endpoint close its links.
 */
final class StepCollector {
    private final RankLoop.Run run;
    private final ControlPlane link;
    private final GradientExchange exchange;
    private final StepNotes notes;
    private final ClockProbes probes; // null: none
    private final List<StepMetrics> history = new ArrayList<>();
    private final Deque<Pending> pending = new ArrayDeque<>();
    private double lastAccuracy = Double.NaN;

    StepCollector(RankLoop.Run run, ControlPlane link, GradientExchange exchange, StepNotes notes, ClockProbes probes) {
        this.run = run;
        this.link = link;
        this.exchange = exchange;
        this.notes = notes;
        this.probes = probes;
    }

    /**
     * A step whose workers have reported, waiting for its services' reports (their traffic rows and notes join
     * {@code rows} and {@code notes}); {@code due} is null when no checkpoint is due after it.
     */
    private record Pending(int step, Stage stage, Merged workers, long[][] rows, Map<String, Double> notes,
                           Due due) {
    }

    /**
     * The workers' reports of a step, merged: their mean loss, the mean and the longest time of each phase, rank 0's
     * wall time of the step and, when the step evaluated, the accuracy (NaN otherwise).
     */
    private record Merged(double loss, long[] mean, long[] max, long wallNanos, double accuracy) {
    }

    /**
     * A checkpoint due after a step: rank 0's part (its state at the end of the step) with its replica checksum, and
     * the parts the other ranks wrote (the services' join when they report).
     */
    private record Due(CheckpointPart.Builder own, String ownChecksum, List<RunReport.Saved> saved) {
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
        pending.add(new Pending(s, stage, new Merged(loss / workers, mean, max, System.nanoTime() - stepStart,
                accuracy), rows, merged, ownPart == null ? null : new Due(ownPart, ownChecksum, saved)));
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
            if (p.due() != null) {
                p.due().saved().add(link.receiveReport(e, RunReport.Saved.class, p.step(), "service endpoint " + e));
            }
            RunReport.StepReport report = link.receiveReport(e, RunReport.StepReport.class, p.step(),
                    "service endpoint " + e);
            p.rows()[e] = report.traffic();
            p.notes().putAll(report.notes());
        }
        Merged w = p.workers();
        if (!Double.isNaN(w.accuracy())) {
            lastAccuracy = w.accuracy();
        }
        StepMetrics m = new StepMetrics(p.step(), run.epochs().epochOf(p.step()), p.stage(), w.loss(),
                w.accuracy(), w.mean(), w.max(), w.wallNanos(), TrafficMeter.Snapshot.ofRows(p.rows()),
                run.workers(), p.notes());
        history.add(m);
        for (TrainingListener l : run.spec().observation().listeners()) {
            l.onStep(m);
        }
        if (p.due() != null) {
            completeCheckpoint(p.step(), p.due());
        }
    }

    /**
     * Rank 0's part (its state at the end of the step, the metrics of every step so far, the last accuracy),
     * then the manifest listing every part: the checkpoint is complete. The replicas every rank saved must be
     * identical; if not, no manifest is written.
     */
    private void completeCheckpoint(int step, Due due) {
        Checkpointing checkpoints = run.checkpoints();
        String own = due.ownChecksum();
        for (int r = 1; r < run.workers(); r++) {
            String other = due.saved().get(r - 1).replicaChecksum();
            if (!other.equals(own)) {
                throw new IllegalStateException("the replicas differ at the checkpoint after step " + step
                        + ": rank 0 saved parameters with checksum " + own + ", rank " + r + " with " + other
                        + "; the checkpoint is left without a manifest");
            }
        }
        long start = System.nanoTime();
        StepHistory.write(due.own().section(Checkpointing.HISTORY), history);
        due.own().section(Checkpointing.ACCURACY).putDouble(lastAccuracy);
        List<PartInfo> parts = new ArrayList<>();
        parts.add(checkpoints.writeRank(step, 0, due.own().build()));
        long slowest = System.nanoTime() - start;
        String slowestName = "rank 0";
        for (RunReport.Saved saved : due.saved()) {
            parts.add(new PartInfo(saved.file(), saved.size(), saved.crc32c()));
            if (saved.writeNanos() > slowest) {
                slowest = saved.writeNanos();
                slowestName = saved.file();
            }
        }
        for (TrainingListener l : run.spec().observation().listeners()) {
            l.onCheckpoint(step);
        }
        checkpoints.writeManifest(step, parts, slowest, slowestName);
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
        if (probes != null) {
            // the links are idle: the workers wait to send their totals, the services for rank 0's word
            probes.writeAfterLastStep(lastStep);
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

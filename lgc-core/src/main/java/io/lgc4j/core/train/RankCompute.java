package io.lgc4j.core.train;

import io.lgc4j.core.data.Shard;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.metrics.Phase;
import io.lgc4j.core.metrics.PhaseClock;
import io.lgc4j.core.metrics.Timeline;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;

/**
 * What one rank computes on its replica: the forward and backward pass over its shard, the update by a mean, its
 * share of an evaluation. One thread at a time uses it (a rank's thread, or the thread that computes ahead of it while
 * the rank's thread exchanges the step before).
 */
final class RankCompute implements AutoCloseable {

    /** A step's loss and gradient; {@code exchanged}: the gradient is already the step's mean over the ranks. */
    record Computed(int step, double loss, float[] gradient, boolean exchanged) {
    }

    private final RankLoop.Run run;
    private final int rank;
    private final ReplicaModel replica;
    private final RankLoop.Gate gate;
    private final Timeline timeline;
    /** The reader of the current epoch's batches, opened at the epoch's first step here and closed after its last. */
    private BatchReader batches;

    RankCompute(RankLoop.Run run, int rank, ReplicaModel replica, RankLoop.Gate gate, Timeline timeline) {
        this.run = run;
        this.rank = rank;
        this.replica = replica;
        this.gate = gate;
        this.timeline = timeline;
    }

    int rank() {
        return rank;
    }

    ReplicaModel replica() {
        return replica;
    }

    Timeline timeline() {
        return timeline;
    }

    /** The length of a gradient: the layout's. */
    int gradientLength() {
        return run.plan().layout().length();
    }

    /**
     * Step {@code s}'s forward and backward pass on this rank's shard: its batch, the in-process gate's turn on the
     * CPU, the gradient copied into {@code into} (a new array when null) and checked finite. {@code clock} times the
     * turn and the pass. With a {@code predictor} (a mean, {@link Overlap#PREDICTED}) the pass runs at the parameters
     * that mean would give, and the replica is put back after it; with {@code streamed} the pass hands each finished
     * piece of the gradient to an exchange running beside it.
     */
    Computed pass(int s, PhaseClock clock, float[] into, float[] predictor, StreamedGradient streamed) {
        TrainingPlan plan = run.plan();
        EpochMap epochs = run.epochs();
        int inEpoch = epochs.partStep(s);
        if (batches == null) {
            int count = Math.min(epochs.partSteps(s) - inEpoch, plan.totalSteps() - s);
            Shard shard = new Shard(rank, run.workers(), run.batchSize(), epochs.epochOf(s), inEpoch,
                    run.spec().ranks().seed(), epochs.before(s));
            batches = BatchReader.open(run.spec().input().source(), shard, count, run.spec().input().prefetch(), timeline);
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
            LayerRandomness.beginPass(run.spec().ranks().seed(), rank, s);
            loss = streamed == null ? replica.computeGradient(batch.getFeatures(), batch.getLabels())
                    : replica.computeGradient(batch.getFeatures(), batch.getLabels(), streamed);
        } finally {
            gate.afterCompute();
        }
        if (epochs.epochEnd(s) || s == plan.totalSteps() - 1) {
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
        return new Computed(s, loss, gradient, false);
    }

    /**
     * The update by a step's mean. DL4J's gradient is a sum over the mini-batch and its updater divides by the batch
     * size; the mean over ranks of per-rank sums divided by b is the mean over all K·b examples.
     */
    void apply(float[] mean, PhaseClock clock) {
        clock.enter(Phase.APPLY);
        replica.applyGradient(mean, run.batchSize());
    }

    /** This rank's share of the evaluation data, evaluated on the replica as it is now. */
    RunReport.Evaluated evaluate(PhaseClock clock) {
        clock.enter(Phase.EVALUATE);
        return run.evalData().evaluate(replica, rank, run.workers());
    }

    /** Closes the epoch's batch reader (a failed run's). */
    @Override
    public void close() {
        if (batches != null) {
            batches.close();
        }
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
}

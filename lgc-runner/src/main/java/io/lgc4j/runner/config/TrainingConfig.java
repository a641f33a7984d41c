package io.lgc4j.runner.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.lgc4j.core.train.Overlap;

import java.util.Arrays;
import java.util.List;

/**
 * The {@code training} section: how many workers, how much data per step, and how long.
 * <pre>{@code
 * training:
 *   workers: 4               # K, 1..256
 *   batchSizePerWorker: 32   # > 0; the global batch is K times this
 *   epochs: 1                # >= 1
 *   maxSteps: 0              # stop after this many steps; 0 = no cap
 *   evalEverySteps: 100      # evaluate on the test set every N steps; 0 = only at epoch ends
 *   diagnostics: false       # measure the fidelity of each applied update (notes applied_*; run unchanged)
 *   checkpointEverySteps: 0  # save a checkpoint every N steps and at the end (lgc run --resume); 0 = none
 *   trace: {file: "", steps: "0.."}   # a Chrome/Perfetto trace of the run (TraceSection); "" = none
 *   overlap: none            # none | delayed | predicted (both change the math; opt-in) | backward (same math in fp32)
 *   bucketBytes: 1048576     # backward: the least a piece holds before it goes (whole layers, from the last)
 * }</pre>
 * @param workers            K, the number of data-parallel ranks
 * @param batchSizePerWorker examples per rank per step
 * @param epochs             passes over the training data
 * @param maxSteps           a cap on the number of steps, 0 for none
 * @param evalEverySteps     steps between evaluations, 0 to evaluate only at the end of each epoch
 * @param diagnostics        the diagnostic mode ({@code DistributedTrainer.Builder#diagnostics})
 * @param checkpointEverySteps a checkpoint into {@code <run dir>/checkpoints/} after every this many steps and after
 *                           the last; 0 for none. It changes no result, and a resume ignores it
 * @param trace              the run's trace ({@link TraceSection}); it changes no result, and a resume ignores it
 * @param overlap            {@code none}, {@code delayed}, {@code predicted} or {@code backward}
 *                           ({@code io.lgc4j.core.train.Overlap}); part of the run's identity, a checkpoint resumes
 *                           only in its own mode
 * @param bucketBytes        with {@code backward}: the least float32 bytes a piece holds before it goes; part of the
 *                           run's identity (fp16 rounds per piece)
 */
@JsonPropertyOrder({"workers", "batchSizePerWorker", "epochs", "maxSteps", "evalEverySteps", "diagnostics",
        "checkpointEverySteps", "trace", "overlap", "bucketBytes"})
public record TrainingConfig(int workers, int batchSizePerWorker, int epochs, int maxSteps, int evalEverySteps,
                             boolean diagnostics, int checkpointEverySteps, TraceSection trace, String overlap,
                             int bucketBytes) {

    /** Default of {@code training.workers}. */
    public static final int DEFAULT_WORKERS = 4;
    /** Largest allowed {@code training.workers}: ranks are threads of one JVM in the embedded cluster. */
    public static final int MAX_WORKERS = 256;
    /** Default of {@code training.batchSizePerWorker}. */
    public static final int DEFAULT_BATCH_SIZE_PER_WORKER = 32;
    /** Default of {@code training.epochs}. */
    public static final int DEFAULT_EPOCHS = 1;
    /** Default of {@code training.maxSteps}: no cap. */
    public static final int NO_STEP_CAP = 0;
    /** Default of {@code training.evalEverySteps}. */
    public static final int DEFAULT_EVAL_EVERY_STEPS = 100;
    /** Default of {@code training.overlap}: compute, exchange and apply in turn. */
    public static final String DEFAULT_OVERLAP = "none";
    /** Default of {@code training.bucketBytes}: 1 MiB. */
    public static final int DEFAULT_BUCKET_BYTES = Overlap.DEFAULT_BUCKET_BYTES;

    /**
     * Checks every component; the first bad one is reported by its key.
     *
     * @param workers            K, the number of data-parallel ranks
     * @param batchSizePerWorker examples per rank per step
     * @param epochs             passes over the training data
     * @param maxSteps           a cap on the number of steps, 0 for none
     * @param evalEverySteps     steps between evaluations, 0 to evaluate only at the end of each epoch
     * @param diagnostics        the diagnostic mode
     * @param checkpointEverySteps a checkpoint after every this many steps and at the end; 0 for none
     * @param trace              the run's trace
     * @param overlap            {@code none}, {@code delayed}, {@code predicted} or {@code backward}
     * @param bucketBytes        the least a piece holds under {@code backward}, > 0
     * @throws ConfigException if a component is missing or out of range
     */
    public TrainingConfig {
        // Checked here rather than in the loader so that records built in code are held to the same rules.
        Checks.atLeast("training.workers", workers, 1);
        Checks.atMost("training.workers", workers, MAX_WORKERS);
        Checks.positive("training.batchSizePerWorker", batchSizePerWorker);
        Checks.atLeast("training.epochs", epochs, 1);
        Checks.atLeast("training.maxSteps", maxSteps, 0);
        Checks.atLeast("training.evalEverySteps", evalEverySteps, 0);
        Checks.atLeast("training.checkpointEverySteps", checkpointEverySteps, 0);
        Checks.required("training.trace", trace);
        Checks.required("training.overlap", overlap);
        List<String> modes = Arrays.stream(Overlap.values()).map(Overlap::configName).sorted().toList();
        if (!modes.contains(overlap)) {
            throw ConfigException.forKey("training.overlap", "expects one of " + modes + ", found \"" + overlap
                    + "\"");
        }
        Checks.positive("training.bucketBytes", bucketBytes);
    }

    /** The section with {@code overlap} and the default bucket size. */
    public TrainingConfig(int workers, int batchSizePerWorker, int epochs, int maxSteps, int evalEverySteps,
                          boolean diagnostics, int checkpointEverySteps, TraceSection trace, String overlap) {
        this(workers, batchSizePerWorker, epochs, maxSteps, evalEverySteps, diagnostics, checkpointEverySteps, trace,
                overlap, DEFAULT_BUCKET_BYTES);
    }

    /** The section with compute, exchange and apply in turn ({@code overlap: none}). */
    public TrainingConfig(int workers, int batchSizePerWorker, int epochs, int maxSteps, int evalEverySteps,
                          boolean diagnostics, int checkpointEverySteps, TraceSection trace) {
        this(workers, batchSizePerWorker, epochs, maxSteps, evalEverySteps, diagnostics, checkpointEverySteps, trace,
                DEFAULT_OVERLAP);
    }

    /** {@code training.overlap} as the trainer takes it. */
    public Overlap overlapMode() {
        return Overlap.parse(overlap);
    }

    /** The section without a trace. */
    public TrainingConfig(int workers, int batchSizePerWorker, int epochs, int maxSteps, int evalEverySteps,
                          boolean diagnostics, int checkpointEverySteps) {
        this(workers, batchSizePerWorker, epochs, maxSteps, evalEverySteps, diagnostics, checkpointEverySteps,
                TraceSection.OFF);
    }

    /** The section without checkpoints. */
    public TrainingConfig(int workers, int batchSizePerWorker, int epochs, int maxSteps, int evalEverySteps,
                          boolean diagnostics) {
        this(workers, batchSizePerWorker, epochs, maxSteps, evalEverySteps, diagnostics, 0);
    }

    /** The section without the diagnostic mode. */
    public TrainingConfig(int workers, int batchSizePerWorker, int epochs, int maxSteps, int evalEverySteps) {
        this(workers, batchSizePerWorker, epochs, maxSteps, evalEverySteps, false);
    }

    /** @return the training section with every key at its default */
    public static TrainingConfig defaults() {
        return new TrainingConfig(DEFAULT_WORKERS, DEFAULT_BATCH_SIZE_PER_WORKER, DEFAULT_EPOCHS, NO_STEP_CAP,
                DEFAULT_EVAL_EVERY_STEPS);
    }

    /**
     * @param newMaxSteps a cap on the number of steps, 0 for none
     * @return this section with {@code maxSteps} replaced
     */
    public TrainingConfig withMaxSteps(int newMaxSteps) {
        return new TrainingConfig(workers, batchSizePerWorker, epochs, newMaxSteps, evalEverySteps, diagnostics,
                checkpointEverySteps, trace, overlap, bucketBytes);
    }

    /**
     * @param newWorkers K, the number of data-parallel ranks
     * @return this section with {@code workers} replaced
     */
    public TrainingConfig withWorkers(int newWorkers) {
        return new TrainingConfig(newWorkers, batchSizePerWorker, epochs, maxSteps, evalEverySteps, diagnostics,
                checkpointEverySteps, trace, overlap, bucketBytes);
    }

    /**
     * @param newEpochs passes over the training data
     * @return this section with {@code epochs} replaced
     */
    public TrainingConfig withEpochs(int newEpochs) {
        return new TrainingConfig(workers, batchSizePerWorker, newEpochs, maxSteps, evalEverySteps, diagnostics,
                checkpointEverySteps, trace, overlap, bucketBytes);
    }

    /**
     * @param on the diagnostic mode
     * @return this section with {@code diagnostics} replaced
     */
    public TrainingConfig withDiagnostics(boolean on) {
        return new TrainingConfig(workers, batchSizePerWorker, epochs, maxSteps, evalEverySteps, on,
                checkpointEverySteps, trace, overlap, bucketBytes);
    }

    /**
     * @param steps a checkpoint after every this many steps and at the end; 0 for none
     * @return this section with {@code checkpointEverySteps} replaced
     */
    public TrainingConfig withCheckpointEverySteps(int steps) {
        return new TrainingConfig(workers, batchSizePerWorker, epochs, maxSteps, evalEverySteps, diagnostics, steps,
                trace, overlap, bucketBytes);
    }

    /**
     * @param newTrace the run's trace
     * @return this section with {@code trace} replaced
     */
    public TrainingConfig withTrace(TraceSection newTrace) {
        return new TrainingConfig(workers, batchSizePerWorker, epochs, maxSteps, evalEverySteps, diagnostics,
                checkpointEverySteps, newTrace, overlap, bucketBytes);
    }

    /**
     * @param newOverlap {@code none}, {@code delayed} or {@code predicted}
     * @return this section with {@code overlap} replaced
     */
    public TrainingConfig withOverlap(String newOverlap) {
        return new TrainingConfig(workers, batchSizePerWorker, epochs, maxSteps, evalEverySteps, diagnostics,
                checkpointEverySteps, trace, newOverlap, bucketBytes);
    }

    /**
     * @param newBucketBytes the least a piece holds under {@code backward}
     * @return this section with {@code bucketBytes} replaced
     */
    public TrainingConfig withBucketBytes(int newBucketBytes) {
        return new TrainingConfig(workers, batchSizePerWorker, epochs, maxSteps, evalEverySteps, diagnostics,
                checkpointEverySteps, trace, overlap, newBucketBytes);
    }

    @JsonCreator
    private static TrainingConfig fromYaml(@JsonProperty("workers") Integer workers,
                                           @JsonProperty("batchSizePerWorker") Integer batchSizePerWorker,
                                           @JsonProperty("epochs") Integer epochs,
                                           @JsonProperty("maxSteps") Integer maxSteps,
                                           @JsonProperty("evalEverySteps") Integer evalEverySteps,
                                           @JsonProperty("diagnostics") Boolean diagnostics,
                                           @JsonProperty("checkpointEverySteps") Integer checkpointEverySteps,
                                           @JsonProperty("trace") TraceSection trace,
                                           @JsonProperty("overlap") String overlap,
                                           @JsonProperty("bucketBytes") Integer bucketBytes) {
        return new TrainingConfig(
                Checks.orDefault(workers, DEFAULT_WORKERS),
                Checks.orDefault(batchSizePerWorker, DEFAULT_BATCH_SIZE_PER_WORKER),
                Checks.orDefault(epochs, DEFAULT_EPOCHS),
                Checks.orDefault(maxSteps, NO_STEP_CAP),
                Checks.orDefault(evalEverySteps, DEFAULT_EVAL_EVERY_STEPS),
                diagnostics != null && diagnostics,
                Checks.orDefault(checkpointEverySteps, 0),
                trace == null ? TraceSection.OFF : trace,
                Checks.orDefault(overlap, DEFAULT_OVERLAP),
                Checks.orDefault(bucketBytes, DEFAULT_BUCKET_BYTES));
    }
}

package io.lgc4j.core.train;

import io.lgc4j.core.checkpoint.Checkpoint;
import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointManifest;
import io.lgc4j.core.checkpoint.ModelIdentity;
import io.lgc4j.core.checkpoint.RunSignature;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.compute.ComputeSettings;
import io.lgc4j.core.data.DataCheck;
import io.lgc4j.core.data.DataPlan;
import io.lgc4j.core.data.DataSource;
import io.lgc4j.core.data.EpochCursor;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.metrics.TraceSettings;
import io.lgc4j.core.stage.StageSchedule;

import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;

import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Everything a run is told, concluded once by {@link DistributedTrainer.Builder#build()}: every setting checked, the
 * defaults filled in (the layout with its policies, the stage schedule, the run's identity), immutable. The trainer
 * and every rank's loop read it; nothing copies it field by field.
 */
record TrainingSpec(Ranks ranks, Input input, Evaluation evaluation, Aggregation aggregation, ComputeSettings compute,
                    Checkpoints checkpoints, Observation observation, TrainingRuntime runtime) {

    /** K worker ranks of {@code batchSize} examples a step, the data order's seed, a cap on steps (0: none). */
    record Ranks(int workers, int batchSize, long seed, int maxSteps) {
    }

    /**
     * Where each worker reads its shard, what its plan holds (every worker must agree on it), batches read ahead, and
     * how much every worker reads before step 0.
     */
    record Input(DataSource source, DataPlan plan, int prefetch, DataCheck check) {
    }

    /** The data evaluated every {@code everySteps} steps (0: at epoch ends) and at the last step; null: none. */
    record Evaluation(DataSetIterator data, int everySteps) {
    }

    /**
     * How the ranks aggregate: the topology, the gradient's layout with its policies, each step's stage, the values'
     * encoding, what a step overlaps and, when it overlaps the backward pass, the least bytes of a piece.
     */
    record Aggregation(Topology topology, GradientLayout layout, StageSchedule stages, ValueEncoding values,
                       Overlap overlap, int bucketBytes) {

        /** What the run is: the topology's description of itself, with the run's value encoding. */
        TopologyDescription describe() {
            return topology.describe().withValues(values);
        }
    }

    /**
     * Where checkpoints go (null: nowhere), after how many steps (0: none on the way) and whether after the last; the
     * checkpoint resumed from (null: a fresh run) and whether it may have been written by another K; the name and
     * configuration a checkpoint records and a resume compares, ignoring {@code ignoredKeys}.
     */
    record Checkpoints(Path runDirectory, int everySteps, boolean atEnd, Checkpoint resume, boolean allowResize,
                       String runName, Map<String, String> runConfig, Collection<String> ignoredKeys) {
    }

    /** What watches the run: the listeners, the diagnostic mode, the trace (null: none). */
    record Observation(List<TrainingListener> listeners, boolean diagnostics, TraceSettings trace) {
    }

    /** The config key of K: a resize changes it. */
    static final String WORKERS_KEY = "training.workers";

    /**
     * Whether config key {@code key} says how the parameter server is sharded (S, its fusion buffers, its placement:
     * {@code topology.servers}, a library run's {@code method.topologySettings.…servers}): a sharded server computes
     * the unsharded server's bits, so a resize may change these with S.
     */
    static boolean isSharding(String key) {
        if (!key.startsWith("topology.") && !key.startsWith("method.topologySettings.")) {
            return false;
        }
        String last = key.substring(key.lastIndexOf('.') + 1);
        return last.equals("servers") || last.equals("fusionBufferBytes") || last.equals("shardBy");
    }

    /** What a checkpoint of this run must match to be resumed: K, S, the model and the configuration. */
    RunSignature signature() {
        return new RunSignature(ranks.workers(), aggregation.topology().serviceEndpoints(ranks.workers()),
                ModelIdentity.of(aggregation.layout()), checkpoints.runConfig());
    }

    /**
     * Refuses a resume from a checkpoint of another run (another K or S unless allowed, model or configuration),
     * listing every difference; and a resume at another K inside an epoch from a source that cannot re-split it.
     */
    void checkResumable() {
        if (checkpoints.resume() == null) {
            return;
        }
        CheckpointManifest manifest = checkpoints.resume().manifest();
        int written = manifest.run().workers();
        int writtenServices = manifest.run().services();
        RunSignature mine = signature();
        boolean resized = written != ranks.workers();
        boolean resharded = writtenServices != mine.services();
        if ((resized || resharded) && checkpoints.allowResize()) {
            // K, S and how the server is sharded are what a resize may change, as the signature and as config keys
            Map<String, String> config = new TreeMap<>(mine.config());
            config.computeIfPresent(WORKERS_KEY, (k, v) -> String.valueOf(written));
            config.keySet().removeIf(TrainingSpec::isSharding);
            manifest.run().config().forEach((k, v) -> {
                if (isSharding(k)) {
                    config.put(k, v);
                }
            });
            mine = new RunSignature(written, writtenServices, mine.model(), config);
        }
        try {
            manifest.checkCompatible(mine, checkpoints.ignoredKeys());
        } catch (CheckpointException e) {
            String hint = (resized || resharded) && !checkpoints.allowResize() ? "\n  to go on at K = "
                    + ranks.workers() + (resharded ? " and S = " + mine.services() : "") + " from this checkpoint,"
                    + " allow a resize: DistributedTrainer.Builder#allowResize(true), lgc run --resume DIR --workers "
                    + ranks.workers() + ", lgc launch --resume --resize" : "";
            throw new CheckpointMismatchException(e.getMessage() + hint, e);
        }
        if (resized) {
            aggregation.topology().checkResize(written, ranks.workers());
        }
        if (resized && !epochs().before((int) manifest.nextStep()).isEmpty() && !input.source().resplits()) {
            throw new CheckpointMismatchException("cannot resume " + checkpoints.resume().directory().getFileName()
                    + " of K = " + written + " at K = " + ranks.workers() + ": it stopped inside epoch "
                    + epochs().epochOf((int) manifest.nextStep()) + ", and the data source (" + input.source()
                    .describe() + ") cannot read the rest of an epoch at another K (DataSource.resplits); resume at"
                    + " K = " + written + " or from a checkpoint at an epoch's first step", null);
        }
    }

    /**
     * Which epoch each step is in: from step 0, or from where the checkpoint resumed from stopped (its cursor, or,
     * written by a run that never changed K, what its next step says at its K).
     */
    EpochMap epochs() {
        int perEpoch = input.plan().stepsPerEpoch();
        Checkpoint resume = checkpoints.resume();
        if (resume == null) {
            return EpochMap.plain(ranks.workers(), ranks.batchSize(), perEpoch);
        }
        CheckpointManifest m = resume.manifest();
        int written = m.run().workers();
        // a checkpoint without a cursor never changed K: its epochs were the source's plan at its K
        int writtenPerEpoch = written == ranks.workers() ? perEpoch
                : input.source().plan(written, ranks.batchSize()).stepsPerEpoch();
        EpochCursor cursor = m.cursor() != null ? m.cursor() : EpochMap.derived(m.nextStep(), written,
                writtenPerEpoch);
        return EpochMap.resumed(input.plan().examples(), ranks.workers(), ranks.batchSize(), perEpoch,
                Math.toIntExact(m.nextStep()), cursor, !input.source().resplits()
                        && input.source().endsEpochOnResize());
    }

    /**
     * The configuration a library run's checkpoints carry when the caller gives none
     * ({@link DistributedTrainer.Builder#runIdentity}): the trainer's settings and the method's own description,
     * flattened to dotted keys.
     */
    static Map<String, String> ownConfig(Ranks ranks, Aggregation aggregation, ComputeSettings compute) {
        Map<String, String> config = new TreeMap<>();
        config.put(WORKERS_KEY, String.valueOf(ranks.workers()));
        config.put("training.batchSizePerWorker", String.valueOf(ranks.batchSize()));
        config.put("run.seed", String.valueOf(ranks.seed()));
        config.put("compressor.values", aggregation.values().toString());
        config.put("training.overlap", aggregation.overlap().configName());
        if (aggregation.overlap() == Overlap.BACKWARD) {
            // in fp16 the pieces round each with their own scale
            config.put("training.bucketBytes", String.valueOf(aggregation.bucketBytes()));
        }
        // oneDNN sums in another order: a resume on the other path would not end where the run would have
        config.put("compute.oneDnn", String.valueOf(compute.oneDnn()));
        if (compute.threads() != 1) {
            // so do more threads (absent at one, the count every run had before it was a setting)
            config.put("compute.threads", String.valueOf(compute.threads()));
        }
        flatten("method", aggregation.describe().toMap(), config);
        return config;
    }

    private static void flatten(String prefix, Map<?, ?> map, Map<String, String> into) {
        for (Map.Entry<?, ?> e : map.entrySet()) {
            String key = prefix + "." + e.getKey();
            if (e.getValue() instanceof Map<?, ?> inner) {
                flatten(key, inner, into);
            } else {
                into.put(key, String.valueOf(e.getValue()));
            }
        }
    }
}

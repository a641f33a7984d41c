package io.lgc4j.core.train;

import io.lgc4j.core.checkpoint.Checkpoint;
import io.lgc4j.core.checkpoint.CheckpointDirectory;
import io.lgc4j.core.checkpoint.CheckpointManifest;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.compute.ComputeReport;
import io.lgc4j.core.compute.ComputeSettings;
import io.lgc4j.core.compute.ComputeThreads;
import io.lgc4j.core.compute.Nd4jThreads;
import io.lgc4j.core.data.DataCheck;
import io.lgc4j.core.data.DataPlan;
import io.lgc4j.core.data.DataSource;
import io.lgc4j.core.data.MemorySource;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.metrics.StepNotes;
import io.lgc4j.core.metrics.TraceSettings;
import io.lgc4j.core.runtime.ClusterConnector;
import io.lgc4j.core.runtime.LaunchEnvironment;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.stage.StageSchedule;

import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.util.ModelSerializer;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.learning.config.NoOp;
import org.nd4j.linalg.learning.config.Sgd;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * Data-parallel training of a DL4J model on K worker ranks: each replica reads a disjoint shuffled shard, computes its
 * gradient, aggregates it through a {@link Topology} (real frames, every byte metered) and applies the identical
 * aggregate with the model's own updater, so replicas stay bit-identical. Each rank runs {@link RankLoop} on the
 * run's {@link TrainingRuntime}: threads of this JVM by default, or one endpoint per process on
 * {@link TrainingRuntime#cluster}, every process building the same trainer. {@link #fit} may be called once; the
 * model passed in is not modified, and rank 0's replica is the trained model ({@link #trainedModel()}).
 *
 * <pre>{@code
 * TrainingResult result = DistributedTrainer.builder()
 *         .model(net)                        // a MultiLayerNetwork or ComputationGraph, initialized
 *         .data(trainIterator)               // read once into memory; or a DataSource each rank streams
 *         .workers(4).batchSizePerWorker(32)
 *         .topology(new RingTopology())
 *         .evaluation(testIterator, 100)     // every 100 steps and at each epoch's end
 *         .seed(42)
 *         .build().fit(1);
 * }</pre>
 */
public final class DistributedTrainer {
    private final TrainingSpec spec;
    private final List<ReplicaModel> replicas;
    private final ComputeReport computeReport;
    private boolean used;
    private TrainingResult result;

    private DistributedTrainer(ReplicaModel origin, TrainingSpec spec) {
        this.spec = spec;
        // every thread of the run computes with the run's count of OpenMP threads, whatever the JVM started with
        Nd4jThreads.use(spec.compute().threads());
        // every replica is built here, after the user's model: its layers get the helpers the settings ask for
        this.replicas = spec.runtime().replicas(origin, spec.compute(), spec.ranks().workers());
        this.computeReport = ComputeReport.of(replicas.get(0).model(), spec.compute());
    }

    /** A compressor that applies momentum itself needs the model's updater to be plain SGD. */
    private static void requirePlainSgd(Model model, String compressor) {
        Layer[] layers = model instanceof MultiLayerNetwork n ? n.getLayers() : ((ComputationGraph) model).getLayers();
        for (Layer layer : layers) {
            if (layer.conf().getLayer() instanceof BaseLayer base
                    && layer.numParams() > 0 && !(base.getIUpdater() instanceof Sgd)
                    && !(base.getIUpdater() instanceof NoOp)) {
                throw new IllegalArgumentException("compressor '" + compressor + "' applies momentum itself, so the"
                        + " model's updater must be plain SGD; layer '" + base.getLayerName() + "' uses "
                        + base.getIUpdater().getClass().getSimpleName());
            }
        }
    }

    /** A builder; see the class example. */
    public static Builder builder() {
        return new Builder();
    }

    /** The layout of the model's gradient, with the policies in force. */
    public GradientLayout layout() {
        return spec.aggregation().layout();
    }

    /** Where the run's endpoints execute. */
    public TrainingRuntime runtime() {
        return spec.runtime();
    }

    /**
     * Every rank's replica, for inspection; index = rank. On a cluster runtime, only this process's replica (none on
     * a service endpoint, after {@link #fit}).
     */
    public List<ReplicaModel> replicas() {
        return List.copyOf(replicas);
    }

    /**
     * How the replicas compute: the settings, whether oneDNN is there, and which helper each layer of a replica
     * runs on (every replica is built the same way).
     */
    public ComputeReport compute() {
        return computeReport;
    }

    /** The trained model (rank 0's replica, or this process's; every replica holds the same parameters). */
    public Model trainedModel() {
        if (replicas.isEmpty()) {
            throw new IllegalStateException("this process hosts a service endpoint of the run: it holds no replica");
        }
        return replicas.get(0).model();
    }

    /**
     * Saves the trained model with DL4J's {@code ModelSerializer} (updater state included, so training can go on
     * from it), on rank 0 only: every replica is the same, and one process writing one file is what a cluster
     * wants. The file is written whole or not at all (a temporary file, then a rename).
     *
     * @return true when this process wrote the file (in one JVM, or rank 0's process); false on any other endpoint
     * @throws IllegalStateException before {@link #fit}
     */
    public boolean saveModel(Path file) throws IOException {
        if (result == null) {
            throw new IllegalStateException("saveModel saves the trained model: call fit first");
        }
        if (result.endpoint() != 0) {
            return false;
        }
        Path target = file.toAbsolutePath();
        Path temporary = target.resolveSibling(target.getFileName() + ".tmp");
        ModelSerializer.writeModel(trainedModel(), temporary.toFile(), true);
        Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return true;
    }

    /** The settings the builder concluded. */
    TrainingSpec spec() {
        return spec;
    }

    /** Steps one epoch takes. */
    public int stepsPerEpoch() {
        return spec.input().plan().stepsPerEpoch();
    }

    /** The training data: where each worker reads its shard. */
    public DataSource data() {
        return spec.input().source();
    }

    /**
     * Trains for {@code epochs} passes over the data (or until the builder's {@code maxSteps}).
     *
     * @throws NonFiniteGradientException when a rank computes a NaN or infinite gradient
     * @throws TrainingFailedException    when a rank fails otherwise; the cause is that rank's exception
     */
    public TrainingResult fit(int epochs) {
        if (epochs < 1) {
            throw new IllegalArgumentException("epochs must be >= 1, found " + epochs);
        }
        if (used) {
            throw new IllegalStateException("fit may be called once per DistributedTrainer");
        }
        used = true;
        EpochMap map = spec.epochs();
        TrainingPlan plan = plan(epochs, map);
        EvaluationShares evaluation = spec.evaluation().data() == null ? null
                : EvaluationShares.lazy(spec.evaluation().data());
        RankLoop.Run run = new RankLoop.Run(spec, plan, spec.aggregation().describe(),
                checkpointing(plan.totalSteps(), map), evaluation, map);
        List<TrainingListener> listeners = spec.observation().listeners();
        listeners.forEach(l -> l.onStart(plan));
        TrainingResult outcome = null;
        try {
            outcome = spec.runtime().fit(run, replicas);
            result = outcome;
            return outcome;
        } finally {
            TrainingResult ended = outcome;
            listeners.forEach(l -> l.onEnd(ended));
        }
    }

    /**
     * The plan of a run of {@code epochs} passes over the data, capped at the builder's {@code maxSteps}; a run
     * resumed at another K inside an epoch reads the rest of it at its K ({@code map}).
     */
    private TrainingPlan plan(int epochs, EpochMap map) {
        TrainingSpec.Ranks ranks = spec.ranks();
        DataPlan data = spec.input().plan();
        int perEpoch = data.stepsPerEpoch();
        int total = map.totalSteps(epochs);
        if (ranks.maxSteps() > 0) {
            total = Math.min(total, ranks.maxSteps());
        }
        Topology topology = spec.aggregation().topology();
        return new TrainingPlan(topology.name(), ranks.workers(), topology.serviceEndpoints(ranks.workers()),
                ranks.batchSize(), perEpoch, total, (int) data.examples(), spec.aggregation().layout());
    }

    /** Where and when a run of {@code total} steps saves its checkpoints and what it resumes from; null: neither. */
    private Checkpointing checkpointing(int total, EpochMap epochs) {
        TrainingSpec.Checkpoints c = spec.checkpoints();
        if (c.runDirectory() == null && c.resume() == null) {
            return null;
        }
        if (c.resume() != null && c.resume().nextStep() > total) {
            throw new CheckpointMismatchException("the checkpoint " + c.resume().directory() + " is after step "
                    + c.resume().nextStep() + ", beyond this run's " + total + " steps", null);
        }
        CheckpointDirectory dir = c.runDirectory() != null ? CheckpointDirectory.in(c.runDirectory())
                : CheckpointDirectory.in(c.resume().directory().getParent().getParent());
        int services = spec.signature().services();
        Regroup regroup = c.resume() != null && Regroup.needed(c.resume(), spec.ranks().workers(), services)
                ? new Regroup(c.resume(), spec.ranks().workers(), services) : null;
        return new Checkpointing(dir, c.everySteps(), c.atEnd() && c.runDirectory() != null, c.runName(),
                spec.signature(), spec.aggregation().stages(), total, c.resume(), epochs, regroup);
    }

    /** Builds a {@link DistributedTrainer}; {@link #build()} checks every setting and names the one that is wrong. */
    public static final class Builder {
        private Model model;
        private DataSource data;
        private int prefetch = 2;
        private int workers = 1;
        private int batchSizePerWorker = 32;
        private long seed = 42;
        private Topology topology;
        private DataSetIterator evalData;
        private int evalEverySteps;
        private int maxSteps;
        private ComputeSettings compute = ComputeSettings.DEFAULT;
        private boolean diagnostics;
        private ValueEncoding values = ValueEncoding.FP32;
        private StageSchedule stages;
        private Function<ParamBlock, LayerPolicy> policy;
        private TrainingRuntime runtime = TrainingRuntime.inProcess();
        private final List<TrainingListener> listeners = new ArrayList<>();
        private Path checkpointRunDir;
        private int checkpointEverySteps;
        private boolean checkpointAtEnd = true;
        private Checkpoint resume;
        private boolean allowResize;
        private String runName = "run";
        private Map<String, String> runConfig;
        private Collection<String> resumeIgnoredKeys = CheckpointManifest.DEFAULT_IGNORED_KEYS;
        private TraceSettings trace;
        private Overlap overlap = Overlap.NONE;
        private int bucketBytes = Overlap.DEFAULT_BUCKET_BYTES;
        private DataCheck dataCheck = DataCheck.FULL;

        private Builder() {
        }

        /** The model to train, initialized; each rank trains a copy. */
        public Builder model(Model model) {
            this.model = Objects.requireNonNull(model, "model");
            return this;
        }

        /**
         * The training data, read into memory now ({@link MemorySource#read}: the iterator is reset first and
         * consumed). For data larger than memory, or read by each rank from its own part, give a
         * {@link DataSource}.
         */
        public Builder data(DataSetIterator data) {
            return data(MemorySource.read(data));
        }

        /** The training data as one in-memory data set ({@link MemorySource#of}). */
        public Builder data(DataSet data) {
            return data(MemorySource.of(data));
        }

        /**
         * Where each worker reads its examples: every worker opens {@code source} for its own shard of each epoch
         * (service endpoints never do), and before step 0 the workers check that they agree on its
         * {@link DataSource#plan}. The caller owns the source: the trainer does not close it (a file source holds
         * open files until {@code close()}; try-with-resources around {@code build()} and {@code fit}).
         */
        public Builder data(DataSource source) {
            this.data = Objects.requireNonNull(source, "data");
            return this;
        }

        /**
         * How much of the training data every worker reads before step 0 (default {@link
         * io.lgc4j.core.data.DataCheck#FULL}): each its own contiguous share of the rows, all at once, so that a bad
         * row fails the run before it trains, with the message its batch would have failed with. A source whose
         * examples are in memory has nothing to check; {@code SAMPLE} reads about one row in a hundred, {@code NONE}
         * nothing.
         */
        public Builder checkData(DataCheck how) {
            this.dataCheck = Objects.requireNonNull(how, "how");
            return this;
        }

        /**
         * Batches each worker reads ahead of its compute, on a thread of its own (default 2; 0: on the rank's
         * thread). Changes when examples are read, not which: the run is the same bit for bit.
         */
        public Builder prefetch(int batches) {
            this.prefetch = batches;
            return this;
        }

        /** Number of worker ranks K (default 1). */
        public Builder workers(int workers) {
            this.workers = workers;
            return this;
        }

        /** Examples per rank per step b (default 32); one step consumes K·b examples. */
        public Builder batchSizePerWorker(int batchSize) {
            this.batchSizePerWorker = batchSize;
            return this;
        }

        /** The seed of data order (default 42); the model's own seed fixes its initialization. */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /** How the ranks aggregate gradients. */
        public Builder topology(Topology topology) {
            this.topology = Objects.requireNonNull(topology, "topology");
            return this;
        }

        /**
         * Evaluates the replicas on {@code data} every {@code everySteps} steps (0: only at epoch ends) and at the
         * last step. The data is read into memory once, at the first evaluation, and only by worker processes; each
         * worker evaluates every K-th of its batches and rank 0 adds the counts, which gives one replica's accuracy on
         * all of it.
         */
        public Builder evaluation(DataSetIterator data, int everySteps) {
            this.evalData = Objects.requireNonNull(data, "evaluation data");
            this.evalEverySteps = everySteps;
            return this;
        }

        /** Stops after this many steps (0: no cap). */
        public Builder maxSteps(int maxSteps) {
            this.maxSteps = maxSteps;
            return this;
        }

        /**
         * How every replica computes (default {@link ComputeSettings#DEFAULT}: DL4J's oneDNN helpers on every
         * convolution, pooling and batch-norm layer, cache mode HOST, one OpenMP thread per rank);
         * {@link ComputeSettings#BUILT_IN} runs DL4J's own path. {@link DistributedTrainer#compute()} says which layer
         * got which helper. The thread count is applied on every thread of the run in every runtime, whatever
         * {@code OMP_NUM_THREADS} the JVM started with, so a run computes the same bits in one JVM and launched.
         */
        public Builder compute(ComputeSettings compute) {
            this.compute = Objects.requireNonNull(compute, "compute");
            return this;
        }

        /**
         * What a rank's step overlaps (default {@link Overlap#NONE}: compute, exchange, apply in turn).
         * {@link Overlap#DELAYED} computes step t + 1's gradient while step t's is exchanged and applies step t's mean
         * one step late: it hides the exchange behind the next forward and backward pass where the two fit in the
         * process's cores, at the price of gradients one step stale (the math changes; every method and topology
         * takes it, and a run stays bit-identical across runtimes and resumes exactly). {@link Overlap#BACKWARD}
         * starts a dense step's exchange on the last layers' gradient while the backward pass computes the first
         * layers' ({@link #bucketBytes}): the same math.
         */
        public Builder overlap(Overlap overlap) {
            this.overlap = Objects.requireNonNull(overlap, "overlap");
            return this;
        }

        /**
         * The least a piece of the gradient holds before {@link Overlap#BACKWARD} exchanges it: whole layers, from the
         * last, until at least this many bytes of float32 (default {@link Overlap#DEFAULT_BUCKET_BYTES}, 1 MiB;
         * PyTorch DDP's {@code bucket_cap_mb} the other way round). Smaller pieces start sooner and cost more hops.
         *
         * @throws IllegalArgumentException when not positive
         */
        public Builder bucketBytes(int bucketBytes) {
            if (bucketBytes <= 0) {
                throw new IllegalArgumentException("bucketBytes must be > 0, found " + bucketBytes);
            }
            this.bucketBytes = bucketBytes;
            return this;
        }

        /**
         * The diagnostic mode (default off): each step, every rank sends rank 0 what its compressor offered on the
         * LEARNED blocks (its compensated vector and the entries it took; in a dense step its gradient), and rank 0
         * notes how faithfully the update it applies carries their mean ({@link StepNotes#APPLIED_REL_ERR},
         * {@link StepNotes#APPLIED_COS}, {@link StepNotes#APPLIED_COS_ALL}, {@link StepNotes#OFFER_SHARE}). The run is
         * the same with it: the offers travel on the control plane (REPORT frames, not training bytes) and the
         * compressors are only read. Costs about 4 bytes per LEARNED element per rank per step. A sketch compressor
         * (S2) has no offer to show and is refused when training starts.
         */
        public Builder diagnostics(boolean on) {
            this.diagnostics = on;
            return this;
        }

        /**
         * The encoding the run's values travel in (default {@link ValueEncoding#FP32}): whole gradients, DENSE blocks,
         * values on a support, sparse values, ring chunks, latents and innovation values, with their means. Half
         * precision halves those bytes; receivers decode to float32 and sum in float32, replicas stay bit-identical,
         * and compressors with memory keep what the rounding loses. See {@link ValueEncoding} for what fp16 (with a
         * per-frame scale) and bf16 round, flush and refuse; autoencoder weights, the drift guard's samples, the
         * autoencoder's training samples and S2's sketch counters stay float32.
         */
        public Builder values(ValueEncoding encoding) {
            this.values = Objects.requireNonNull(encoding, "encoding");
            return this;
        }

        /**
         * The stage of each step. Default: all {@link Stage#FULL} for a dense topology; top-k from the first step for
         * a topology with a compressor. A compressed topology exchanges FULL steps densely.
         */
        public Builder stages(StageSchedule schedule) {
            this.stages = Objects.requireNonNull(schedule, "schedule");
            return this;
        }

        /** Overrides the default {@link LayerPolicy} of each block. */
        public Builder layerPolicy(Function<ParamBlock, LayerPolicy> rule) {
            this.policy = Objects.requireNonNull(rule, "rule");
            return this;
        }

        /**
         * Where the endpoints run (default {@link TrainingRuntime#inProcess()}: every rank and service a thread of
         * this JVM); see {@link TrainingRuntime}.
         */
        public Builder runtime(TrainingRuntime runtime) {
            this.runtime = Objects.requireNonNull(runtime, "runtime");
            return this;
        }

        /**
         * Runs this process as one endpoint of a cluster of OS processes joined by {@code connector} (the TCP
         * connector of {@code lgc-net}, Spark's barrier tasks): {@code runtime(TrainingRuntime.cluster(connector))}.
         * Every process builds the same trainer; rank 0 evaluates, calls the listeners and returns the run's result.
         */
        public Builder cluster(ClusterConnector connector) {
            return runtime(TrainingRuntime.cluster(connector));
        }

        /**
         * The same program in one JVM or on K processes ({@code lgc launch --nproc K -- java …}). Not launched
         * ({@code LGC_RANK} unset): nothing changes, the run is in-process with {@link #workers}. Launched: the
         * runtime is {@link TrainingRuntime#fromEnvironment()}, K is {@code LGC_WORLD_SIZE} (a different
         * {@link #workers} is refused, naming both), checkpoints go under {@code LGC_RUN_DIR} every
         * {@link #checkpoints} steps already asked for (else at the end only), {@code LGC_RESUME_STEP} resumes
         * from that checkpoint ({@code LGC_ALLOW_RESIZE}, {@code lgc launch --resize}: one of another K too), {@code LGC_COMPUTE_THREADS} ({@code lgc launch --threads}) replaces the compute
         * settings' thread count, and {@code LGC_TRACE_FILE} ({@code lgc launch --trace}) traces the run unless
         * {@link #trace} was given. Call it after the other settings.
         */
        public Builder fromEnvironment() {
            LaunchEnvironment env = LaunchEnvironment.current();
            if (env.launched()) {
                int k = env.requireWorldSize();
                if (workers != 1 && workers != k) {
                    throw new IllegalArgumentException("workers(" + workers + ") differs from LGC_WORLD_SIZE=" + k
                            + ", the worker ranks the launcher started: drop workers(...) or launch --nproc "
                            + workers);
                }
                workers = k;
                runtime = TrainingRuntime.fromEnvironment(env);
                // lgc launch --threads N: the launcher resolved the count for every process it started
                String threads = System.getenv(ComputeThreads.ENV_THREADS);
                if (threads != null) {
                    compute = compute.withThreads(Integer.parseInt(threads.strip()));
                }
                LaunchEnvironment.Resume given = env.resume();
                if (given.runDir() != null) {
                    checkpoints(given.runDir(), checkpointEverySteps);
                    resume = given.resumeStep() < 0 ? resume : Checkpointing.load(given.runDir(), given.resumeStep());
                    allowResize = allowResize || given.allowResize();
                }
                // lgc launch --trace FILE -- …: every process records, the launcher merges (a trace set here wins)
                TraceSettings asked = TraceSettings.fromEnvironment(System.getenv());
                if (trace == null && asked != null) {
                    trace = asked;
                }
            }
            return this;
        }

        /**
         * Saves a checkpoint into {@code runDirectory/checkpoints/step-NNNNNN/} after every {@code everySteps} steps
         * (0: none on the way) and, unless {@link #checkpointAtEnd} says otherwise, after the last step: the
         * replica's parameters and updater state (once, in rank 0's part: every rank's is the same), each rank's
         * compressor memory, the services' state (an autoencoder and its optimizer, a drift guard), the counters and
         * the metrics so far. Each endpoint writes its own part; rank 0 writes the manifest last, once every part is
         * in, the replicas' checksums agree and every listener has synced ({@link TrainingListener#onCheckpoint}).
         */
        public Builder checkpoints(Path runDirectory, int everySteps) {
            this.checkpointRunDir = Objects.requireNonNull(runDirectory, "runDirectory");
            this.checkpointEverySteps = everySteps;
            return this;
        }

        /**
         * Writes a trace of the run to {@code file} (Chrome's JSON, for Perfetto or {@code chrome://tracing}): every
         * step, phase, frame sent and received (with arrows from each send to its receive), the services' work, the
         * batch reads and checkpoints, per endpoint. Each endpoint streams its own events to
         * {@code trace/e<endpoint>.json} beside {@code file}; in-process they are merged into {@code file} at the end
         * (a cluster's by {@code lgc launch} or {@code lgc trace merge}). It changes no bit of the run.
         */
        public Builder trace(Path file) {
            return trace(TraceSettings.of(file));
        }

        /** As {@link #trace(Path)}, with the endpoints' directory and the steps recorded given. */
        public Builder trace(TraceSettings settings) {
            this.trace = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /** Whether {@link #checkpoints} also saves after the last step (default true). */
        public Builder checkpointAtEnd(boolean atEnd) {
            this.checkpointAtEnd = atEnd;
            return this;
        }

        /**
         * Resumes from {@code checkpoint} (e.g. {@code CheckpointDirectory.in(runDir).latest()}): training starts at
         * its next step with every state it saved, and ends exactly where an uninterrupted run ends. The trainer
         * must be built as the saved run's was (same model, data, K, method and settings): {@link #build()} checks
         * K, the services, the model and the configuration ({@link #runIdentity}) and refuses a mismatch, listing
         * every difference. The result's steps include the saved run's.
         */
        public Builder resumeFrom(Checkpoint checkpoint) {
            this.resume = Objects.requireNonNull(checkpoint, "checkpoint");
            return this;
        }

        /**
         * Lets {@link #resumeFrom} take a checkpoint written by another number of workers (default false: refused,
         * naming both). The run goes on at this builder's K: the model, the updater and the step as saved; the rest
         * of the epoch it stopped in split over the new K (every example not yet read in it, by the rule of a fresh
         * epoch: {@link io.lgc4j.core.data.EpochCursor}); each compressor memory regrouped so its mean over the ranks
         * is kept ({@link io.lgc4j.core.checkpoint.Persistent.Regrouping.Rule#MEMORY}). The global batch becomes K'·b and the
         * learning rate is not changed. A method whose state cannot change size is refused, saying why; so is a data
         * source that cannot re-split an epoch it stopped inside ({@link DataSource#resplits()}).
         */
        public Builder allowResize(boolean allow) {
            this.allowResize = allow;
            return this;
        }

        /**
         * The run's name and configuration as checkpoints record them (flattened dotted keys); a resume compares
         * them, ignoring {@code ignoredKeys} (patterns {@code prefix.*} or exact keys; default
         * {@link CheckpointManifest#DEFAULT_IGNORED_KEYS}). Default: name {@code run} and the trainer's own
         * settings with the method's description.
         */
        public Builder runIdentity(String name, Map<String, String> config, Collection<String> ignoredKeys) {
            this.runName = Objects.requireNonNull(name, "name");
            this.runConfig = Map.copyOf(config);
            this.resumeIgnoredKeys = List.copyOf(ignoredKeys);
            return this;
        }

        /** Adds a listener. */
        public Builder listener(TrainingListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * Checks the settings and creates the replicas. Besides each setting's range it checks that the data holds
         * at least one global batch ({@code workers × batchSizePerWorker} examples), that a compressor applying
         * momentum itself meets a plain-SGD updater, and whatever the topology asks for in
         * {@link Topology#check} (an LGC topology: a LEARNED block and a schedule that reaches COMPRESSED) and
         * {@link Topology#checkTraining} (local SGD: no overlap, no checkpoint on the way, no resume).
         *
         * @throws IllegalArgumentException naming the setting that is missing, out of range or inconsistent
         */
        public DistributedTrainer build() {
            if (model == null) {
                throw new IllegalArgumentException("model is required");
            }
            if (data == null) {
                throw new IllegalArgumentException("data is required");
            }
            if (topology == null) {
                throw new IllegalArgumentException("topology is required");
            }
            if (workers < 1) {
                throw new IllegalArgumentException("workers must be >= 1, found " + workers);
            }
            if (batchSizePerWorker < 1) {
                throw new IllegalArgumentException("batchSizePerWorker must be >= 1, found " + batchSizePerWorker);
            }
            if (evalEverySteps < 0) {
                throw new IllegalArgumentException("evaluation everySteps must be >= 0, found " + evalEverySteps);
            }
            if (maxSteps < 0) {
                throw new IllegalArgumentException("maxSteps must be >= 0, found " + maxSteps);
            }
            if (checkpointEverySteps < 0) {
                throw new IllegalArgumentException("checkpoint everySteps must be >= 0, found "
                        + checkpointEverySteps);
            }
            if (prefetch < 0) {
                throw new IllegalArgumentException("prefetch must be >= 0, found " + prefetch);
            }
            DataPlan plan = data.plan(workers, batchSizePerWorker);
            ReplicaModel origin = ReplicaModel.wrap(model);
            return new DistributedTrainer(origin, conclude(plan));
        }

        /**
         * The settings as one {@link TrainingSpec}: the data's plan, the layout with its policies, the default stage
         * schedule and identity filled in, and what the topology and a resumed checkpoint ask of them checked.
         */
        private TrainingSpec conclude(DataPlan plan) {
            topology.compressor().filter(c -> c.appliesMomentum()).ifPresent(c -> requirePlainSgd(model, c.name()));
            GradientLayout base = GradientLayout.of(model);
            GradientLayout layout = policy == null ? base : base.withPolicy(policy);
            StageSchedule schedule = stages != null ? stages
                    : topology.compressor().isPresent() ? StageSchedule.denseWarmup(0) : StageSchedule.ALWAYS_FULL;
            topology.check(layout, schedule, stages != null);
            topology.checkTraining(overlap, checkpointRunDir != null, resume != null);
            TrainingSpec.Ranks ranks = new TrainingSpec.Ranks(workers, batchSizePerWorker, seed, maxSteps);
            TrainingSpec.Aggregation aggregation = new TrainingSpec.Aggregation(topology, layout, schedule, values,
                    overlap, bucketBytes);
            Map<String, String> config = runConfig != null ? runConfig
                    : TrainingSpec.ownConfig(ranks, aggregation, compute);
            TrainingSpec spec = new TrainingSpec(ranks, new TrainingSpec.Input(data, plan, prefetch, dataCheck),
                    new TrainingSpec.Evaluation(evalData, evalEverySteps), aggregation, compute,
                    new TrainingSpec.Checkpoints(checkpointRunDir, checkpointEverySteps, checkpointAtEnd, resume,
                            allowResize, runName, config, resumeIgnoredKeys),
                    new TrainingSpec.Observation(List.copyOf(listeners), diagnostics, trace), runtime);
            spec.checkResumable();
            return spec;
        }
    }
}

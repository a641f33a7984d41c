package io.lgc4j.core.train;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.InProcessCluster;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.TrafficMeter;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.comm.TransportClosedException;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.layout.LayerPolicy;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.metrics.Phase;
import io.lgc4j.core.metrics.PhaseClock;
import io.lgc4j.core.metrics.StepMetrics;
import io.lgc4j.core.protocol.FloatFrames;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.stage.StageSchedule;

import org.deeplearning4j.nn.api.Model;
import org.nd4j.evaluation.classification.Evaluation;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.factory.Nd4j;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * Data-parallel training of a DL4J model on K worker ranks of an {@link InProcessCluster}: K replicas of the
 * model, each on its own thread, each reading a disjoint shuffled shard of the data, computing its gradient,
 * aggregating it through a {@link Topology} (real frames, every byte metered) and applying the identical aggregate
 * with the model's own updater. Replicas therefore stay bit-identical.
 *
 * <pre>{@code
 * TrainingResult result = DistributedTrainer.builder()
 *         .model(net)                        // a MultiLayerNetwork or ComputationGraph, initialized
 *         .data(trainIterator)               // read once into memory, then sharded per rank
 *         .workers(4)
 *         .batchSizePerWorker(32)
 *         .topology(new RingTopology())
 *         .evaluation(testIterator, 100)     // every 100 steps and at each epoch's end
 *         .seed(42)
 *         .build()
 *         .fit(1);
 * }</pre>
 *
 * <p>Lifecycle: {@link #fit} may be called once. The model passed in is not modified; rank 0's replica is the
 * trained model ({@link #trainedModel()}).
 */
public final class DistributedTrainer {
    private final int workers;
    private final int batchSize;
    private final long seed;
    private final Topology topology;
    private final INDArray features;
    private final INDArray labels;
    private final DataSetIterator evalData;
    private final int evalEverySteps;
    private final int maxSteps;
    private final List<TrainingListener> listeners;
    private final GradientLayout layout;
    private final List<ReplicaModel> replicas;
    private final InProcessCluster cluster;
    private final ShardPlan shards;
    private final Semaphore cpu;
    private final boolean alignExchange;
    private final StageSchedule stages;
    private boolean used;

    private DistributedTrainer(Builder b) {
        this.workers = b.workers;
        this.batchSize = b.batchSizePerWorker;
        this.seed = b.seed;
        this.topology = b.topology;
        this.evalData = b.evalData;
        this.evalEverySteps = b.evalEverySteps;
        this.maxSteps = b.maxSteps;
        this.listeners = List.copyOf(b.listeners);
        ReplicaModel origin = ReplicaModel.wrap(b.model);
        topology.compressor().filter(c -> c.appliesMomentum()).ifPresent(c -> requirePlainSgd(b.model, c.name()));
        GradientLayout base = GradientLayout.of(b.model);
        this.layout = b.policy == null ? base : base.withPolicy(b.policy);
        this.stages = b.stages != null ? b.stages
                : topology.compressor().isPresent() ? StageSchedule.denseWarmup(0) : StageSchedule.ALWAYS_FULL;
        topology.check(layout, stages, b.stages != null);
        DataSet all = b.dataSet;
        this.features = all.getFeatures();
        this.labels = all.getLabels();
        this.shards = new ShardPlan((int) features.size(0), workers, batchSize, seed);
        this.replicas = new ArrayList<>(workers);
        for (int r = 0; r < workers; r++) {
            replicas.add(origin.copy());
        }
        this.cluster = new InProcessCluster(workers + topology.serviceEndpoints(workers));
        this.cpu = new Semaphore(b.computeConcurrency, true);
        this.alignExchange = b.alignExchange;
    }

    /** A compressor that applies momentum itself needs the model's updater to be plain SGD. */
    private static void requirePlainSgd(Model model, String compressor) {
        org.deeplearning4j.nn.api.Layer[] layers = model instanceof org.deeplearning4j.nn.multilayer.MultiLayerNetwork n
                ? n.getLayers() : ((org.deeplearning4j.nn.graph.ComputationGraph) model).getLayers();
        for (org.deeplearning4j.nn.api.Layer layer : layers) {
            if (layer.conf().getLayer() instanceof org.deeplearning4j.nn.conf.layers.BaseLayer base
                    && layer.numParams() > 0 && !(base.getIUpdater() instanceof org.nd4j.linalg.learning.config.Sgd)
                    && !(base.getIUpdater() instanceof org.nd4j.linalg.learning.config.NoOp)) {
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
        return layout;
    }

    /** The meter of the cluster (workers first, then service endpoints). */
    public TrafficMeter meter() {
        return cluster.meter();
    }

    /** Every rank's replica, for inspection; index = rank. */
    public List<ReplicaModel> replicas() {
        return List.copyOf(replicas);
    }

    /** The trained model (rank 0's replica; every replica holds the same parameters). */
    public Model trainedModel() {
        return replicas.get(0).model();
    }

    /** Steps one epoch takes. */
    public int stepsPerEpoch() {
        return shards.stepsPerEpoch();
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
        int perEpoch = shards.stepsPerEpoch();
        int total = perEpoch * epochs;
        if (maxSteps > 0) {
            total = Math.min(total, maxSteps);
        }
        int serviceCount = topology.serviceEndpoints(workers);
        TrainingPlan plan = new TrainingPlan(topology.name(), workers, serviceCount, batchSize, perEpoch, total,
                (int) features.size(0), layout);
        listeners.forEach(l -> l.onStart(plan));
        Run run = new Run(plan);
        TrainingResult result = null;
        try {
            result = run.execute();
            return result;
        } finally {
            TrainingResult ended = result;
            listeners.forEach(l -> l.onEnd(ended));
        }
    }

    /** State shared by the rank threads during one {@link #fit}. */
    private final class Run {
        private final TrainingPlan plan;
        private final double[] losses = new double[workers];
        private final long[][] phases = new long[workers][];
        private final long[] stepStartNanos = new long[workers];
        private final List<StepMetrics> history = new ArrayList<>();
        private final CyclicBarrier endOfStep;
        private final CyclicBarrier beforeExchange;
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        private volatile double lastAccuracy = Double.NaN;
        private double accuracyThisStep = Double.NaN;
        private int currentStep;
        private TrafficMeter.Snapshot lastTraffic;
        private final io.lgc4j.core.metrics.StepNotes notes = new io.lgc4j.core.metrics.StepNotes();

        Run(TrainingPlan plan) {
            this.plan = plan;
            this.endOfStep = new CyclicBarrier(workers, this::closeStep);
            this.beforeExchange = new CyclicBarrier(workers);
        }

        TrainingResult execute() {
            long start = System.nanoTime();
            int serviceCount = plan.serviceEndpoints();
            List<Transport> serviceTransports = new ArrayList<>();
            for (int s = 0; s < serviceCount; s++) {
                serviceTransports.add(cluster.transport(workers + s));
            }
            topology.attachNotes(notes);
            List<ServiceLoop> services = topology.services(workers, serviceTransports, layout);
            if (services.size() != serviceCount) {
                throw new IllegalStateException("topology " + topology.name() + " declared " + serviceCount
                        + " service endpoints but returned " + services.size() + " loops");
            }
            ExecutorService pool = Executors.newFixedThreadPool(workers + serviceCount, daemonThreads());
            List<Future<?>> futures = new ArrayList<>();
            try {
                for (ServiceLoop loop : services) {
                    futures.add(pool.submit(() -> guard(() -> {
                        try {
                            loop.run();
                        } catch (TransportClosedException closed) {
                            // normal end of a service: the cluster closed after the last step
                        }
                    })));
                }
                lastTraffic = cluster.meter().snapshot();
                for (int r = 0; r < workers; r++) {
                    int rank = r;
                    futures.add(pool.submit(() -> guard(() -> runRank(rank))));
                }
                for (Future<?> f : futures.subList(services.size(), futures.size())) {
                    await(f);
                }
            } finally {
                cluster.close();
                for (Future<?> f : futures) {
                    await(f);
                }
                pool.shutdownNow();
            }
            Throwable t = failure.get();
            if (t != null) {
                if (t instanceof NonFiniteGradientException n) {
                    throw n;
                }
                throw new TrainingFailedException("training failed: " + t.getMessage(), t);
            }
            return new TrainingResult(history, lastAccuracy, cluster.meter().snapshot(),
                    System.nanoTime() - start, topology.describe());
        }

        private void runRank(int rank) {
            Transport transport = cluster.transport(rank);
            ReplicaModel replica = replicas.get(rank);
            GradientExchange exchange = topology.worker(rank, workers, transport, layout);
            PhaseClock clock = new PhaseClock();
            broadcastInitialParameters(rank, transport, replica);
            float[] gradient = null;
            for (int step = 0; step < plan.totalSteps(); step++) {
                int epoch = step / plan.stepsPerEpoch();
                int inEpoch = step % plan.stepsPerEpoch();
                StepTag tag = new StepTag(step, stages.stageAt(step));
                clock.reset();
                stepStartNanos[rank] = System.nanoTime();
                clock.enter(Phase.CPU_WAIT);
                cpu.acquireUninterruptibly();
                double loss;
                try {
                    clock.enter(Phase.COMPUTE);
                    int[] rows = shards.batch(epoch, inEpoch, rank);
                    loss = replica.computeGradient(Nd4j.pullRows(features, 1, rows), Nd4j.pullRows(labels, 1, rows));
                } finally {
                    cpu.release();
                }
                INDArray view = replica.gradient();
                if (gradient == null) {
                    gradient = new float[(int) view.length()];
                }
                copyChecked(view, gradient, rank, step);
                if (alignExchange) {
                    clock.enter(Phase.CPU_WAIT);
                    await(beforeExchange, rank, step);
                }
                exchange.allReduceMean(tag, gradient, clock);
                clock.enter(Phase.APPLY);
                // DL4J's gradient is a sum over the mini-batch and its updater divides by the batch size; the mean
                // over ranks of per-rank sums divided by b is the mean over all K·b examples.
                replica.applyGradient(gradient, batchSize);
                boolean epochEnd = inEpoch == plan.stepsPerEpoch() - 1;
                if (epochEnd) {
                    replica.endEpoch();
                }
                double accuracy = Double.NaN;
                boolean last = step == plan.totalSteps() - 1;
                if (rank == 0 && evalData != null
                        && (last || epochEnd || (evalEverySteps > 0 && (step + 1) % evalEverySteps == 0))) {
                    clock.enter(Phase.EVALUATE);
                    evalData.reset();
                    Evaluation eval = replica.evaluate(evalData);
                    accuracy = eval.accuracy();
                }
                clock.stop();
                losses[rank] = loss;
                phases[rank] = clock.snapshot();
                if (rank == 0) {
                    accuracyThisStep = accuracy;
                    currentStep = step;
                }
                await(endOfStep, rank, step);
            }
        }

        private void await(CyclicBarrier barrier, int rank, int step) {
            try {
                barrier.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new TransportClosedException("rank " + rank + " interrupted during step " + step);
            } catch (BrokenBarrierException e) {
                throw new TransportClosedException("rank " + rank + ": another rank failed during step " + step);
            }
        }

        /** Rank 0 holds the model; the others receive its parameters as bytes, like a real cluster's start. */
        private void broadcastInitialParameters(int rank, Transport transport, ReplicaModel replica) {
            if (workers == 1) {
                return;
            }
            if (rank == 0) {
                float[] params = replica.params().toFloatVector();
                byte[] frame = FloatFrames.encode(params, 0, params.length, TrafficKind.MODEL_WEIGHTS, Stage.SETUP,
                        -1);
                for (int peer = 1; peer < workers; peer++) {
                    transport.send(peer, frame);
                }
            } else {
                float[] params = new float[layout.length()];
                Frame frame = transport.receive(0, TrafficKind.MODEL_WEIGHTS);
                FloatFrames.copyInto(frame, params, 0, params.length);
                replica.params().assign(Nd4j.createFromArray(params));
            }
        }

        private void copyChecked(INDArray view, float[] into, int rank, int step) {
            float[] copy = view.toFloatVector();
            for (int i = 0; i < copy.length; i++) {
                float v = copy[i];
                if (!Float.isFinite(v)) {
                    ParamBlock block = layout.blockAt(i);
                    throw new NonFiniteGradientException("rank " + rank + " step " + step + ": gradient element "
                            + i + " is " + v + " (block " + block.qualifiedName() + ", element "
                            + (i - block.offset()) + " of " + block.length() + "); it was not sent");
                }
            }
            System.arraycopy(copy, 0, into, 0, copy.length);
        }

        /** Runs once per step, after every rank arrived, on one of the rank threads. */
        private void closeStep() {
            long end = System.nanoTime();
            long first = Long.MAX_VALUE;
            double loss = 0;
            int phaseCount = Phase.values().length;
            long[] mean = new long[phaseCount];
            long[] max = new long[phaseCount];
            for (int r = 0; r < workers; r++) {
                first = Math.min(first, stepStartNanos[r]);
                loss += losses[r];
                for (int p = 0; p < phaseCount; p++) {
                    mean[p] += phases[r][p];
                    max[p] = Math.max(max[p], phases[r][p]);
                }
            }
            for (int p = 0; p < phaseCount; p++) {
                mean[p] /= workers;
            }
            TrafficMeter.Snapshot now = cluster.meter().snapshot();
            TrafficMeter.Snapshot delta = now.minus(lastTraffic);
            lastTraffic = now;
            int step = currentStep;
            if (!Double.isNaN(accuracyThisStep)) {
                lastAccuracy = accuracyThisStep;
            }
            StepMetrics m = new StepMetrics(step, step / plan.stepsPerEpoch(), stages.stageAt(step), loss / workers,
                    accuracyThisStep, mean, max, end - first, delta, workers, notes.take(step));
            history.add(m);
            for (TrainingListener l : listeners) {
                l.onStep(m);
            }
        }

        private void guard(Runnable body) {
            try {
                body.run();
            } catch (Throwable t) {
                boolean consequence = t instanceof TransportClosedException && failure.get() != null;
                if (!consequence) {
                    failure.compareAndSet(null, t);
                }
                cluster.close();
                endOfStep.reset();
                beforeExchange.reset();
            }
        }

        private void await(Future<?> f) {
            try {
                f.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                cluster.close();
            } catch (ExecutionException e) {
                failure.compareAndSet(null, e.getCause());
            }
        }
    }

    private static java.util.concurrent.ThreadFactory daemonThreads() {
        return runnable -> {
            Thread t = new Thread(runnable);
            t.setDaemon(true);
            t.setName("lgc-endpoint-" + t.getId());
            return t;
        };
    }

    /** Builds a {@link DistributedTrainer}; {@link #build()} checks every setting and names the one that is wrong. */
    public static final class Builder {
        private Model model;
        private DataSet dataSet;
        private int workers = 1;
        private int batchSizePerWorker = 32;
        private long seed = 42;
        private Topology topology;
        private DataSetIterator evalData;
        private int evalEverySteps;
        private int maxSteps;
        private int computeConcurrency = 1;
        private boolean alignExchange = true;
        private StageSchedule stages;
        private Function<ParamBlock, LayerPolicy> policy;
        private final List<TrainingListener> listeners = new ArrayList<>();

        private Builder() {
        }

        /** The model to train, initialized; each rank trains a copy. */
        public Builder model(Model model) {
            this.model = Objects.requireNonNull(model, "model");
            return this;
        }

        /** The training data, read once into memory (the iterator is reset first and consumed). */
        public Builder data(DataSetIterator data) {
            Objects.requireNonNull(data, "data");
            if (data.resetSupported()) {
                data.reset();
            }
            List<DataSet> batches = new ArrayList<>();
            while (data.hasNext()) {
                batches.add(data.next());
            }
            if (batches.isEmpty()) {
                throw new IllegalArgumentException("the training data iterator returned no examples");
            }
            this.dataSet = DataSet.merge(batches);
            return this;
        }

        /** The training data as one in-memory data set. */
        public Builder data(DataSet data) {
            this.dataSet = Objects.requireNonNull(data, "data");
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

        /** Evaluates rank 0's replica on {@code data} every {@code everySteps} steps (0: only at epoch ends). */
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
         * How many ranks may run their forward and backward pass at once (default 1). The in-process ranks share
         * this machine's cores, and ND4J already spreads one pass over all of them; letting K passes compete only
         * oversubscribes the cores (measured: 4 concurrent LeNet-5 passes on 2 cores take longer than 4 in turn).
         * Waiting for a turn is timed as {@link Phase#CPU_WAIT}.
         */
        public Builder computeConcurrency(int ranks) {
            this.computeConcurrency = ranks;
            return this;
        }

        /**
         * When set (the default), every rank waits for all others before the exchange, timed as
         * {@link Phase#CPU_WAIT}, so {@link Phase#COMMUNICATE} measures the exchange itself: in the in-process
         * cluster the ranks take turns on the CPU, and without the barrier their turns would count as
         * communication. It changes timings only, never results.
         */
        public Builder alignExchange(boolean align) {
            this.alignExchange = align;
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

        /** Adds a listener. */
        public Builder listener(TrainingListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * Checks the settings and creates the replicas. Besides each setting's range it checks that the data holds
         * at least one global batch ({@code workers × batchSizePerWorker} examples), that a compressor applying
         * momentum itself meets a plain-SGD updater, and whatever the topology asks for in
         * {@link Topology#check} (an LGC topology: a LEARNED block and a schedule that reaches COMPRESSED).
         *
         * @throws IllegalArgumentException naming the setting that is missing, out of range or inconsistent
         */
        public DistributedTrainer build() {
            if (model == null) {
                throw new IllegalArgumentException("model is required");
            }
            if (dataSet == null) {
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
            if (computeConcurrency < 1) {
                throw new IllegalArgumentException("computeConcurrency must be >= 1, found " + computeConcurrency);
            }
            if (maxSteps < 0) {
                throw new IllegalArgumentException("maxSteps must be >= 0, found " + maxSteps);
            }
            long globalBatch = (long) workers * batchSizePerWorker;
            long examples = dataSet.getFeatures() == null ? 0 : dataSet.getFeatures().size(0);
            if (examples < globalBatch) {
                throw new IllegalArgumentException("the training data holds " + examples + " examples, fewer than"
                        + " one global batch: workers × batchSizePerWorker = " + workers + " × " + batchSizePerWorker
                        + " = " + globalBatch + " (every rank reads one batch per step); give more data, fewer"
                        + " workers or a smaller batch");
            }
            return new DistributedTrainer(this);
        }
    }
}

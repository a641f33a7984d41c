package io.lgc4j.spark;

import io.lgc4j.core.checkpoint.Checkpoint;
import io.lgc4j.core.data.RankLocalSource;
import io.lgc4j.core.metrics.StepMetrics;
import io.lgc4j.advise.AdviseSession;
import io.lgc4j.advise.Advice;
import io.lgc4j.advise.Advisor;
import io.lgc4j.advise.MethodCandidate;
import io.lgc4j.advise.config.AdviseCandidate;
import io.lgc4j.advise.config.AutoMethod;
import io.lgc4j.advise.config.ConfigAdvisor;
import io.lgc4j.runner.config.ExperimentConfig;
import io.lgc4j.core.train.DistributedTrainer;
import io.lgc4j.core.train.Overlap;
import io.lgc4j.core.train.TrainingListener;
import io.lgc4j.core.train.TrainingResult;
import io.lgc4j.net.NetSettings;
import org.apache.spark.BarrierTaskContext;
import org.apache.spark.sql.Row;
import org.deeplearning4j.nn.api.Model;
import scala.collection.Iterator;
import scala.collection.JavaConverters;
import scala.runtime.AbstractFunction1;

import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What every task of an {@link LgcEstimator}'s barrier stage runs: partition p is rank p (and, co-located,
 * parameter-server shard p on a thread of its own). It streams its partition's rows once into a file on the
 * executor's local disk ({@link SpilledPartition}, deleted when the task ends, also when it fails), so its memory
 * holds the batches in flight, not the partition. It builds the model and the method for each of its endpoints,
 * joins the run through {@link BarrierConnector}s (one allGather) and trains through a {@link RankLocalSource}: every
 * rank reads only its own rows. Rank 0 returns the trained model. With {@link TaskCheckpoints}, every endpoint saves
 * its checkpoint parts, and a retried stage attempt resumes every endpoint from the latest complete checkpoint (the
 * tasks check in their allGather that they agree on it).
 */
final class EstimatorTask extends AbstractFunction1<Iterator<Row>, Iterator<TaskOutcome>> implements Serializable {
    private static final long serialVersionUID = 1L;

    private final Columns columns;
    private final ModelFactory factory;
    private final String initialChecksum;
    private final MethodSpec method;
    private final int workers;
    private final int services;
    private final boolean colocate;
    private final int batchSize;
    private final int epochs;
    private final long seed;
    private final int maxSteps;
    private final Overlap overlap;
    private final int[] rows;
    private final int stepsPerEpoch;
    private final byte[] token;
    private final int job;
    private int round;
    private boolean allowResize;
    private Map<Integer, Integer> earlierSteps = Map.of();
    private final boolean tls;
    private final TaskCheckpoints checkpoints;

    /**
     * @param initialChecksum the parameters' checksum of the model the factory built on the driver
     * @param rows            every partition's row count, as counted before the stage
     * @param stepsPerEpoch   the steps every rank takes per epoch: the smallest partition's batches
     * @param tls             mutual TLS on the links, each task with certificates of its own ({@link
     *                        TaskCertificates})
     * @param checkpoints     where and how often to checkpoint, and the fault of tests; null for none (no resume)
     */
    EstimatorTask(Columns columns, ModelFactory factory, String initialChecksum, MethodSpec method, int workers,
                  int services, boolean colocate, int batchSize, int epochs, long seed, int maxSteps,
                  Overlap overlap, int[] rows,
                  int stepsPerEpoch, byte[] token, int job, boolean tls, TaskCheckpoints checkpoints) {
        this.columns = columns;
        this.factory = factory;
        this.initialChecksum = initialChecksum;
        this.method = method;
        this.workers = workers;
        this.services = services;
        this.colocate = colocate;
        this.batchSize = batchSize;
        this.epochs = epochs;
        this.seed = seed;
        this.maxSteps = maxSteps;
        this.overlap = overlap;
        this.rows = rows.clone();
        this.stepsPerEpoch = stepsPerEpoch;
        this.token = token.clone();
        this.job = job;
        this.tls = tls;
        this.checkpoints = checkpoints;
    }

    /**
     * This stage is attempt {@code newRound} of an elastic fit: its attempt number (rendezvous, handshakes) is the
     * round plus the stage's; with {@code resize} the ranks resume a checkpoint written at another K, whose epochs
     * had {@code stepsAt}'s steps (K → steps per epoch of the earlier attempts).
     */
    EstimatorTask round(int newRound, boolean resize, Map<Integer, Integer> stepsAt) {
        this.round = newRound;
        this.allowResize = resize;
        this.earlierSteps = new TreeMap<>(stepsAt);
        return this;
    }

    @Override
    public Iterator<TaskOutcome> apply(Iterator<Row> partitionRows) {
        BarrierTaskContext context = BarrierTaskContext.get();
        int partition = context.partitionId();
        int attempt = round + context.stageAttemptNumber();
        String host = BarrierTraining.hostOf(context.getTaskInfos()[partition].address());
        SpilledPartition mine;
        try {
            mine = SpilledPartition.write(columns, JavaConverters.asJavaIterator(partitionRows), rows[partition],
                    partition, SpilledPartition.localDir());
        } catch (IOException e) {
            throw new UncheckedIOException("task " + partition + " cannot spill its partition to "
                    + SpilledPartition.localDir() + ": " + e.getMessage(), e);
        }
        try {
            return train(context, partition, attempt, host, mine);
        } finally {
            try {
                mine.close();
            } catch (IOException e) {
                System.err.println("lgc-spark: task " + partition + " cannot delete " + mine.file() + ": " + e);
            }
        }
    }

    private Iterator<TaskOutcome> train(BarrierTaskContext context, int partition, int attempt, String host,
                                        SpilledPartition mine) {
        long total = 0;
        for (int n : rows) {
            total += n;
        }
        RankLocalSource data = RankLocalSource.ofIndexed(total, stepsPerEpoch, r -> {
            if (r != partition) {
                throw new IllegalStateException("task " + partition + " holds the rows of rank " + partition
                        + " only, rank " + r + " asked for its own");
            }
            return mine;
        });
        for (Map.Entry<Integer, Integer> e : earlierSteps.entrySet()) {
            if (e.getKey() != workers) {
                data = data.withStepsPerEpochAt(e.getKey(), e.getValue());
            }
        }
        Checkpoint from = checkpoints == null ? null : checkpoints.latest().orElse(null);
        // a stage without checkpoints can see attempt > 0 too (Spark resubmits it after a lost shuffle output)
        if (partition == 0 && attempt > 0 && checkpoints != null) {
            System.err.println("lgc-spark: stage attempt " + attempt + " of estimator job "
                    + Integer.toUnsignedString(job) + ": every rank again (K = " + workers + "), " + (from == null ? "from step 0 (no"
                    + " complete checkpoint in " + checkpoints.runDir() + ")" : "from the checkpoint after "
                    + from.nextStep() + " steps in " + checkpoints.runDir()));
        }
        TaskCertificates certificates = tls ? TaskCertificates.create(host) : null;
        try {
            NetSettings.Tls tlsSettings = certificates == null ? null : certificates.trust(
                    TaskRendezvous.gatherCertificates(context, job, attempt, certificates.caToken()));
            // compressor: auto: the tasks choose the method first, in an advise session of the workers
            Chosen chosen = method.auto() == null ? null : choose(context, partition, attempt, host, data,
                    tlsSettings);
            int shards = chosen == null ? services
                    : chosen.method().topology().serviceEndpoints(workers);
            int[] endpoints = BarrierTraining.endpointsOf(partition, workers, shards, colocate);
            List<MethodSpec.Endpoint> methods = new ArrayList<>();
            List<Model> models = new ArrayList<>();
            for (int endpoint : endpoints) {
                methods.add(chosen == null ? method.newEndpoint() : MethodSpec.endpointOf(chosen.config()));
                models.add(checkedModel(partition, endpoint));
            }
            return JavaConverters.asScalaIterator(List.of(run(context, partition, attempt, host, data, endpoints,
                    methods, models, tlsSettings, from, shards, chosen)).iterator());
        } finally {
            if (certificates != null) {
                certificates.close();
            }
        }
    }

    private Model checkedModel(int partition, int endpoint) {
        Model model = Models.create(factory, "in task " + partition + " (endpoint " + endpoint + ")");
        String checksum = Models.paramsChecksum(model);
        if (!checksum.equals(initialChecksum)) {
            throw new IllegalStateException("the model factory " + factory + " built other initial parameters in"
                    + " task " + partition + " (checksum " + checksum + ") than on the driver (" + initialChecksum
                    + "): every JVM must build the same model; give its configuration a seed");
        }
        return model;
    }

    /** The candidate chosen: its config and a method of it, and rank 0's advice table (null elsewhere). */
    private record Chosen(String id, ExperimentConfig config, MethodSpec.Endpoint method, String table) {
    }

    /**
     * This task's worker joins the advise session (a rendezvous of its own, before the training's) with the user's
     * model and its own rows: the library's {@link Advisor} on the candidates' configs, its dry runs on this rank's
     * gradient (a task reaches only its own rows).
     */
    private Chosen choose(BarrierTaskContext context, int partition, int attempt, String host, RankLocalSource data,
                          NetSettings.Tls tlsSettings) {
        AutoMethod auto = method.auto().toAuto(MethodSpec.SOURCE);
        List<MethodCandidate> candidates = new ArrayList<>();
        for (AdviseCandidate c : auto.candidates()) {
            // the estimator's own overlap mode, not the candidate config's
            candidates.add(ConfigAdvisor.given(ConfigAdvisor.method(c).overlap(overlap), auto.penalties()));
        }
        Advisor.Builder advisor = Advisor.builder().model(checkedModel(partition, partition)).data(data)
                .batchSizePerWorker(batchSize).seed(seed).candidates(candidates).target(auto.target())
                .probeRank(partition).log(System.err);
        if (auto.denseSteps() > 0) {
            advisor.denseSteps(auto.denseSteps(), "given (advise.denseSteps)");
        }
        TaskRendezvous session = new TaskRendezvous(context, 1, workers, job, attempt, -1);
        BarrierConnector link = new BarrierConnector(partition, job, attempt, host, token, auto.base().runtime(),
                session, tlsSettings);
        AdviseSession.Outcome outcome;
        try {
            outcome = advisor.adviseOver(link, workers, partition);
        } catch (IOException e) {
            throw new UncheckedIOException("rank " + partition + " could not choose its method: " + e.getMessage(), e);
        }
        ExperimentConfig config = auto.candidate(outcome.chosen()).config();
        String table = outcome.advice().map(Advice::table).orElse(null);
        if (table != null) {
            System.err.print(table);
        }
        return new Chosen(outcome.chosen(), config, MethodSpec.endpointOf(config), table);
    }

    private TaskOutcome run(BarrierTaskContext context, int partition, int attempt, String host,
                            RankLocalSource data, int[] endpoints, List<MethodSpec.Endpoint> methods,
                            List<Model> models, NetSettings.Tls tlsSettings, Checkpoint from, int shards,
                            Chosen chosen) {
        long resumedFrom = from == null ? -1 : from.nextStep();
        TaskRendezvous rendezvous = new TaskRendezvous(context, endpoints.length, workers + shards, job, attempt,
                resumedFrom);
        List<BarrierConnector> connectors = new ArrayList<>();
        for (int i = 0; i < endpoints.length; i++) {
            connectors.add(new BarrierConnector(endpoints[i], job, attempt, host, token, methods.get(i).runtime(),
                    rendezvous, tlsSettings));
        }
        long start = System.currentTimeMillis();
        return TaskEndpoints.run(endpoints, (index, endpoint) -> {
            MethodSpec.Endpoint m = methods.get(index);
            DistributedTrainer.Builder builder = DistributedTrainer.builder()
                    .model(models.get(index))
                    .data(data)
                    .workers(workers)
                    .batchSizePerWorker(batchSize)
                    .seed(seed)
                    .topology(m.topology())
                    .values(m.values())
                    .maxSteps(maxSteps)
                    .overlap(overlap)
                    .allowResize(allowResize)
                    .cluster(connectors.get(index));
            if (m.stages() != null) {
                builder.stages(m.stages());
            }
            if (checkpoints != null) {
                checkpoints.apply(builder, from);
                if (endpoint == 0 && attempt == 0 && checkpoints.fault() != null) {
                    builder.listener(fault(checkpoints.fault().afterSteps()));
                }
            }
            DistributedTrainer trainer = builder.build();
            TrainingResult result = trainer.fit(epochs);
            byte[] bytes = endpoint == 0 ? Models.toBytes(trainer.trainedModel()) : new byte[0];
            return new TaskOutcome(partition, rows[partition], new TaskOutcome.Trained(bytes, result.stepCount(),
                    result.replicaChecksums(), System.currentTimeMillis() - start),
                    connectors.stream().allMatch(BarrierConnector::joinedOverTls), attempt, resumedFrom,
                    chosen == null ? null : chosen.id(), chosen == null ? null : chosen.table());
        });
    }

    /** Fails rank 0 once {@code afterSteps} steps are done: its peers lose it, and Spark retries the stage. */
    private static TrainingListener fault(int afterSteps) {
        return new TrainingListener() {
            @Override
            public void onStep(StepMetrics metrics) {
                if (metrics.step() + 1 >= afterSteps) {
                    throw new IllegalStateException("lgc-spark: the injected fault after " + afterSteps
                            + " steps (stage attempt 0)");
                }
            }
        };
    }
}

package io.lgc4j.spark;

import io.lgc4j.core.checkpoint.CheckpointDirectory;
import io.lgc4j.core.metrics.StepMetrics;
import io.lgc4j.core.train.TrainingListener;
import io.lgc4j.advise.config.AdviseCandidate;
import io.lgc4j.advise.config.AutoMethod;
import io.lgc4j.advise.config.AutoRun;
import io.lgc4j.runner.config.ConfigLoader;
import io.lgc4j.runner.config.ExperimentConfig;
import io.lgc4j.runner.ExperimentRunner;
import io.lgc4j.net.NetSettings;
import org.apache.spark.BarrierTaskContext;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.util.ModelSerializer;
import scala.collection.Iterator;
import scala.collection.JavaConverters;
import scala.runtime.AbstractFunction1;

import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The function every task of the barrier stage runs: partition p is rank p (and, co-located, parameter-server shard
 * p, endpoint K + p, on a thread of its own), or with shards in tasks of their own, endpoint p. It reads the config,
 * picks the checkpoint to resume from (the latest complete one in the run's shared directory, when a retried stage
 * finds one), trains its endpoints through {@link ExperimentRunner#runAsEndpoint} joined by {@link
 * BarrierConnector}s, and returns a {@link TaskReport}; rank 0's carries the run's result files and the trained
 * model.
 */
final class BarrierTraining extends AbstractFunction1<Iterator<Integer>, Iterator<TaskReport>>
        implements Serializable {
    private static final long serialVersionUID = 1L;
    /** The trained model, in DL4J's format with its updater state, in rank 0's result files. */
    static final String MODEL_FILE = "model.zip";

    private final String yaml;
    private final String source;
    private final int workers;
    private final int services;
    private final boolean colocate;
    private final String runDir;
    private final byte[] token;
    private final int job;
    private final SparkOptions.Fault fault;
    private final boolean tls;
    private AutoPlan auto;
    private int round;
    private boolean allowResize;

    /**
     * {@code compressor: auto} as the tasks rebuild it: the config without its method, each candidate's config (as
     * YAML), the target and where the candidates came from.
     */
    record AutoPlan(String baseYaml, List<String[]> candidates, double target, String source, double denseSteps,
                    Map<String, Double> penalties) implements Serializable {
        private static final long serialVersionUID = 1L;

        static AutoPlan of(AutoMethod auto) {
            List<String[]> list = new ArrayList<>();
            for (AdviseCandidate c : auto.candidates()) {
                list.add(new String[] {c.id(), c.label(), c.config().toYaml()});
            }
            return new AutoPlan(auto.base().toYaml(), list, auto.target(), auto.source(), auto.denseSteps(),
                    new TreeMap<>(auto.penalties()));
        }

        AutoMethod toAuto(String configSource) {
            List<AdviseCandidate> list = new ArrayList<>();
            for (String[] c : candidates) {
                list.add(new AdviseCandidate(c[0], c[1], ConfigLoader.parse(c[2], configSource + " (candidate '" + c[0]
                        + "')")));
            }
            return new AutoMethod(ConfigLoader.parse(baseYaml, configSource), list, target, source, denseSteps,
                    penalties);
        }
    }

    /**
     * @param yaml     the resolved config (runtime type tcp), as every task reads it
     * @param source   where it came from, for provenance
     * @param services the topology's service endpoints (parameter-server shards)
     * @param runDir   the run's directory as the executors reach it: checkpoints, and rank 0's result files
     * @param tls      mutual TLS on the links, each task with certificates of its own ({@link TaskCertificates})
     */
    BarrierTraining(String yaml, String source, int workers, int services, boolean colocate, String runDir,
                    byte[] token, int job, SparkOptions.Fault fault, boolean tls) {
        this.yaml = yaml;
        this.source = source;
        this.workers = workers;
        this.services = services;
        this.colocate = colocate;
        this.runDir = runDir;
        this.token = token.clone();
        this.job = job;
        this.fault = fault;
        this.tls = tls;
    }

    /** This stage chooses its method first ({@code compressor: auto}), among {@code plan}'s candidates. */
    BarrierTraining auto(AutoPlan plan) {
        this.auto = plan;
        return this;
    }

    /**
     * This stage is attempt {@code round} of an elastic fit ({@link SparkOptions.Elastic}): a job of its own, whose
     * attempt number (in the rendezvous and the links' handshakes) is {@code round} plus the stage's; with {@code
     * allowResize} the ranks resume a checkpoint written at another K.
     */
    BarrierTraining round(int newRound, boolean resize) {
        this.round = newRound;
        this.allowResize = resize;
        return this;
    }

    /** The barrier stage's task count: K, plus S shards when they are not co-located. */
    static int tasks(int workers, int services, boolean colocate) {
        return workers + (colocate ? 0 : services);
    }

    /** The endpoints partition {@code p} runs. */
    static int[] endpointsOf(int p, int workers, int services, boolean colocate) {
        if (colocate && p < services) {
            return new int[] {p, workers + p};
        }
        return new int[] {p};
    }

    @Override
    public Iterator<TaskReport> apply(Iterator<Integer> ignored) {
        BarrierTaskContext context = BarrierTaskContext.get();
        long start = System.currentTimeMillis();
        int partition = context.partitionId();
        int attempt = round + context.stageAttemptNumber();
        String host = hostOf(context.getTaskInfos()[partition].address());
        ExperimentConfig config = ConfigLoader.parse(yaml, source);
        Path dir = Path.of(runDir);
        long resume = latestCheckpoint(dir, config);
        if (partition == 0 && attempt > 0) {
            System.err.println("lgc-spark: stage attempt " + attempt + " of job " + Integer.toUnsignedString(job)
                    + ": every rank again (K = " + workers + "), " + (resume < 0 ? "from step 0 (no complete checkpoint in " + dir + ")"
                    : "from the checkpoint after " + resume + " steps in " + dir));
        }
        TaskCertificates certificates = tls ? TaskCertificates.create(host) : null;
        try {
            NetSettings.Tls tlsSettings = certificates == null ? null : certificates.trust(
                    TaskRendezvous.gatherCertificates(context, job, attempt, certificates.caToken()));
            AutoRun.Resolved chosen = auto == null ? null
                    : choose(context, partition, attempt, host, config, dir, resume, tlsSettings);
            ExperimentConfig trained = chosen == null ? config : chosen.config();
            int shards = chosen == null ? services
                    : trained.method().newTopology().serviceEndpoints(workers);
            int[] endpoints = endpointsOf(partition, workers, shards, colocate);
            // a rendezvous of its own: the advise session's gathered other ports
            TaskRendezvous rendezvous = new TaskRendezvous(context, endpoints.length, workers + shards, job,
                    attempt, resume);
            List<BarrierConnector> connectors = new ArrayList<>();
            for (int endpoint : endpoints) {
                connectors.add(new BarrierConnector(endpoint, job, attempt, host, token, trained.runtime(), rendezvous,
                        tlsSettings));
            }
            ExperimentRunner.RunOutcome outcome = TaskEndpoints.run(endpoints,
                    (index, endpoint) -> run(trained, connectors.get(index), endpoint, dir, resume, attempt, chosen));
            long end = System.currentTimeMillis();
            LinkedHashMap<String, byte[]> files = new LinkedHashMap<>();
            if (partition == 0) {
                files = resultFiles(outcome, dir);
            }
            long listening = connectors.stream().mapToLong(BarrierConnector::listeningMs).min().orElse(0);
            long joined = connectors.stream().mapToLong(BarrierConnector::joinedMs).max().orElse(0);
            boolean overTls = connectors.stream().allMatch(BarrierConnector::joinedOverTls);
            TaskReport report = new TaskReport(partition, attempt, host, endpoints, resume,
                    new TaskReport.Timeline(start, listening, rendezvous.gatheredMs(), joined, end), overTls, files);
            return JavaConverters.asScalaIterator(List.of(report).iterator());
        } finally {
            if (certificates != null) {
                certificates.close();
            }
        }
    }

    /**
     * {@code compressor: auto}: the choice a failed attempt recorded in the run's directory, else this task's part of
     * the advise session (its worker rank only, on a connection and a rendezvous of its own).
     */
    private AutoRun.Resolved choose(BarrierTaskContext context, int partition, int attempt, String host,
                                    ExperimentConfig config, Path dir, long resume, NetSettings.Tls tlsSettings) {
        AutoMethod method = auto.toAuto(source);
        try {
            Optional<AutoRun.Resolved> recorded = AutoRun.recorded(method, dir);
            if (recorded.isPresent()) {
                return recorded.get();
            }
            TaskRendezvous session = new TaskRendezvous(context, 1, workers, job, attempt, resume);
            BarrierConnector link = new BarrierConnector(partition, job, attempt, host, token, config.runtime(),
                    session, tlsSettings);
            return AutoRun.asEndpoint(method, link, workers, partition, System.err);
        } catch (IOException e) {
            throw new UncheckedIOException("rank " + partition + " could not choose its method: " + e.getMessage(),
                    e);
        }
    }

    private ExperimentRunner.RunOutcome run(ExperimentConfig config, BarrierConnector connector, int endpoint,
                                            Path dir, long resume, int attempt, AutoRun.Resolved chosen)
            throws IOException {
        List<TrainingListener> listeners = new ArrayList<>();
        if (endpoint == 0 && fault != null && attempt == 0) {
            listeners.add(new TrainingListener() {
                @Override
                public void onStep(StepMetrics metrics) {
                    if (metrics.step() + 1 >= fault.afterSteps()) {
                        throw new IllegalStateException("lgc-spark: the injected fault after "
                                + fault.afterSteps() + " steps (stage attempt 0)");
                    }
                }
            });
        }
        ExperimentRunner runner = new ExperimentRunner().allowResize(allowResize);
        if (chosen != null) {
            runner.records(chosen.files(), chosen.provenance(), chosen::summary);
        }
        return runner.runAsEndpoint(config, source, connector, endpoint, listeners, dir, resume);
    }

    /** The next step of the latest complete checkpoint under {@code dir}, or -1 (none, or the run saves none). */
    private static long latestCheckpoint(Path dir, ExperimentConfig config) {
        if (config.training().checkpointEverySteps() <= 0) {
            return -1;
        }
        try {
            return CheckpointDirectory.in(dir).latest(skipped -> System.err.println("lgc-spark: passing over a"
                    + " checkpoint that fails its checks: " + skipped.getMessage())).map(c -> c.nextStep())
                    .orElse(-1L);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the checkpoints in " + dir, e);
        }
    }

    /** Rank 0's result files (its checkpoints stay where they are) and the trained model, by name. */
    private static LinkedHashMap<String, byte[]> resultFiles(ExperimentRunner.RunOutcome outcome, Path dir) {
        LinkedHashMap<String, byte[]> files = new LinkedHashMap<>();
        try {
            Model model = outcome.model();
            if (model != null) {
                ModelSerializer.writeModel(model, dir.resolve(MODEL_FILE).toFile(), true);
            }
            try (Stream<Path> list = Files.list(dir)) {
                for (Path f : list.filter(Files::isRegularFile).sorted().toList()) {
                    files.put(f.getFileName().toString(), Files.readAllBytes(f));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read rank 0's result files in " + dir, e);
        }
        return files;
    }

    /** The host of a task's "host:port" address (the executor's). */
    static String hostOf(String address) {
        int colon = address.lastIndexOf(':');
        String host = colon > 0 && address.indexOf(':') == colon ? address.substring(0, colon) : address;
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }
}

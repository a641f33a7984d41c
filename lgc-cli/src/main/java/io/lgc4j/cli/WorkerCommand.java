package io.lgc4j.cli;

import io.lgc4j.core.runtime.LaunchEnvironment;
import io.lgc4j.core.runtime.LauncherWatch;
import io.lgc4j.core.runtime.StopReport;
import io.lgc4j.core.train.TrainingFailedException;
import io.lgc4j.core.train.TrainingListener;
import io.lgc4j.data.DatasetNotFoundException;
import io.lgc4j.data.IdxFormatException;
import io.lgc4j.runner.config.ConfigException;
import io.lgc4j.advise.config.AutoMethod;
import io.lgc4j.advise.config.AutoRun;
import io.lgc4j.runner.config.ConfigLoader;
import io.lgc4j.runner.config.ExperimentConfig;
import io.lgc4j.runner.config.RuntimeConfig;
import io.lgc4j.runner.config.RuntimeType;
import io.lgc4j.runner.ExperimentRunner;
import io.lgc4j.runner.RunFailedException;
import io.lgc4j.runner.RunInputException;
import io.lgc4j.net.TcpConnector;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code lgc worker CONFIG}: one process of a multi-process run — a worker rank or the parameter server — joined to
 * the others over authenticated TCP. Every process of a job runs the same config; who it is comes from the
 * environment (torchrun's conventions) or the same options:
 *
 * <pre>
 * LGC_RANK          this process's rank: 0..K-1 a worker, K the parameter server (topology: ps)
 * LGC_WORLD_SIZE    K, the number of worker ranks (overrides training.workers)
 * LGC_MASTER_ADDR   the host rank 0 runs on; LGC_MASTER_PORT the port it listens on
 * LGC_JOB_ID        the job's id, any text (every process of the job gives the same)
 * LGC_TOKEN_FILE    a file holding the job token (or LGC_TOKEN: the token itself); never on the command line
 * LGC_BIND_ADDR, LGC_PORT, LGC_ADVERTISE_ADDR   where this process listens and the address others dial
 * </pre>
 *
 * <p>Every variable is read through {@link LaunchEnvironment}, with this command's options written over it. With
 * {@code --colocate} the trainer's {@link io.lgc4j.core.train.ClusterRuntime} runs this rank's shard on a thread of
 * its own (same model and data, its own links).
 */
@Command(name = "worker", mixinStandardHelpOptions = true,
        description = {"Run one process (a worker rank or the parameter server) of a multi-process job over TCP.",
            "Identity comes from LGC_* environment variables or the options; the job token from LGC_TOKEN_FILE or",
            "LGC_TOKEN (never the command line). Rank 0 writes results/<run-id>/."})
final class WorkerCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "CONFIG", description = "the experiment's YAML file (the same on every process)")
    private Path config;

    @Option(names = "--rank",
            description = "this process's rank: 0..K-1 a worker, K the parameter server (env LGC_RANK)")
    private Integer rank;

    @Option(names = "--world-size",
            description = "K, the number of worker ranks; overrides training.workers (env LGC_WORLD_SIZE)")
    private Integer worldSize;

    @Option(names = "--master-addr",
            description = "host of rank 0 (env LGC_MASTER_ADDR)")
    private String masterAddr;

    @Option(names = "--master-port",
            description = "port rank 0 listens on (env LGC_MASTER_PORT)")
    private Integer masterPort;

    @Option(names = "--job-id",
            description = "the job's id, the same on every process (env LGC_JOB_ID)")
    private String jobId;

    @Option(names = "--attempt",
            description = "which attempt of the job this is (env LGC_ATTEMPT, default 0)")
    private Integer attempt;

    @Option(names = "--bind-addr",
            description = "where this process listens (env LGC_BIND_ADDR; default: the master address if it is"
                    + " a loopback address, else 0.0.0.0)")
    private String bindAddr;

    @Option(names = "--port",
            description = "the port this process listens on, 0 for any (env LGC_PORT; rank 0 uses the master port)")
    private Integer port;

    @Option(names = "--advertise-addr",
            description = "the address others dial to reach this process (env LGC_ADVERTISE_ADDR)")
    private String advertiseAddr;

    @Option(names = "--token-file",
            description = "file holding the job token, readable by its owner only (env LGC_TOKEN_FILE)")
    private Path tokenFile;

    @Option(names = "--tls-cert",
            description = "mutual TLS: this host's certificate chain, PEM (env LGC_TLS_CERT; with --tls-key and"
                    + " --tls-ca, e.g. from lgc keys)")
    private Path tlsCert;

    @Option(names = "--tls-key",
            description = "mutual TLS: this host's private key, PKCS#8 PEM (env LGC_TLS_KEY)")
    private Path tlsKey;

    @Option(names = "--tls-ca",
            description = "mutual TLS: the CA certificate every peer's certificate must chain to (env LGC_TLS_CA)")
    private Path tlsCa;

    @Mixin
    private TrainingOptions options;

    @Option(names = "--colocate",
            description = "a worker rank r < S also runs parameter-server shard r (endpoint K + r) in this process,"
                    + " on its own links, as Herring places its servers on the workers' hosts (env LGC_COLOCATE)")
    private Boolean colocate;

    @Option(names = "--servers", paramLabel = "S",
            description = "parameter-server shards (overrides topology.servers; env LGC_SERVERS); every process"
                    + " of the run must say the same, the handshake refuses one whose fusion plan differs")
    private Integer servers;

    @Option(names = "--session-endpoints", paramLabel = "N",
            description = "compressor: auto: the processes the launch started, workers and server processes (default:"
                    + " the workers); every one joins the advise session, and a server process the chosen method has"
                    + " no use for exits")
    private Integer sessionEndpoints;

    @Option(names = "--advise-only",
            description = "compressor: auto: stop after the advise session; rank 0 prints the table and writes"
                    + " advice.csv and advice.json into a new <run.outputDir>/<run.name>-advice-<time>/")
    private boolean adviseOnly;

    @Option(names = "--exit-with-stdin", hidden = true,
            description = "exit when standard input closes (lgc launch: no process outlives its launcher)")
    private boolean exitWithStdin;

    @Option(names = "--run-dir",
            description = "the run's result directory, the same on every process (env LGC_RUN_DIR): checkpoint"
                    + " parts go to its checkpoints/, rank 0's results into it (default: rank 0 makes a new one)")
    private Path runDir;

    @Option(names = "--resume-step",
            description = "resume from the checkpoint after this many steps in --run-dir (env LGC_RESUME_STEP;"
                    + " -1: start at step 0)")
    private Long resumeStep;

    @Option(names = "--allow-resize",
            description = "the checkpoint of --resume-step may be one of another number of workers (env"
                    + " LGC_ALLOW_RESIZE; lgc launch --resize)")
    private boolean allowResize;

    @Override
    public Integer call() {
        // the transport logs through java.util.logging: one line per record, behind the launcher's rank prefix
        if (System.getProperty("java.util.logging.SimpleFormatter.format") == null) {
            System.setProperty("java.util.logging.SimpleFormatter.format", "%4$s: %5$s%6$s%n");
        }
        if (exitWithStdin) {
            watchStdin("lgc worker: the launcher is gone (standard input closed); exiting");
        }
        ExperimentConfig cfg;
        TcpConnector connector;
        int endpoint;
        LaunchEnvironment env;
        Optional<AutoMethod> auto;
        try {
            env = LaunchEnvironment.read(variables(System.getenv()));
            LauncherWatch.start(env, "lgc worker");
            auto = AutoMethod.read(config);
            if (auto.isPresent()) {
                if (env.shards().servers() != null) {
                    throw new UsageException("--servers (LGC_SERVERS) sets one method's shards; with compressor: auto"
                            + " each candidate has its own (the launch starts the most any needs)");
                }
                auto = Optional.of(auto.get().map(this::launched));
                return runAuto(auto.get(), env);
            }
            cfg = launched(ConfigLoader.load(config));
            if (env.shards().servers() != null) {
                cfg = cfg.withTopology(cfg.topology().with("servers", env.shards().servers()));
            }
            int workers = cfg.training().workers();
            int endpoints = workers + cfg.method().newTopology().serviceEndpoints(workers);
            endpoint = env.requireRank();
            if (endpoint < 0 || endpoint >= endpoints) {
                throw new UsageException("rank must be in 0.." + (endpoints - 1) + " (" + workers + " workers"
                        + (endpoints > workers ? ", then " + (endpoints - workers) + " parameter-server process"
                        + (endpoints - workers > 1 ? "es" : "") : "") + "), found " + endpoint);
            }
            int shards = endpoints - workers;
            if (env.shards().colocate() && endpoint >= workers) {
                throw new UsageException("--colocate is for worker ranks (0.." + (workers - 1) + "): they start their"
                        + " shard themselves; found rank " + endpoint);
            }
            if (env.shards().colocate() && shards > workers) {
                throw new UsageException("--colocate needs at most as many shards as workers, found " + shards
                        + " shards (topology.servers) for " + workers + " workers");
            }
            // the shards' placement is --colocate's alone: the config already says how many there are
            connector = connector(cfg.runtime(), env).colocateServices(env.shards().colocate()).build();
        } catch (ConfigException | UsageException | IllegalArgumentException | UncheckedIOException e) {
            System.err.println("lgc worker: " + e.getMessage());
            return 2;
        }
        // with --colocate, the trainer runs this rank's shard on a thread of its own (ClusterRuntime)
        return runEndpoint(cfg, connector, endpoint, env, null);
    }

    /** {@code --advise-only} on rank 0 (the table is in its log already): the files into a directory of their own. */
    private static int writeAdvice(AutoMethod auto, AutoRun.Resolved chosen) {
        if (chosen.advice().isEmpty()) {
            System.err.println("lgc worker: --advise-only found the choice already recorded (" + chosen.how()
                    + "): nothing measured");
            return 0;
        }
        try {
            Path dir = ExperimentRunner.newRunDirectory(Path.of(auto.base().run().outputDir()),
                    auto.base().run().name() + "-advice");
            Files.createDirectories(dir);
            AutoRun.write(chosen, dir);
            System.out.println("chosen: " + chosen.chosen().id() + "; written: " + dir.resolve(AutoRun.ADVICE_CSV)
                    + ", " + dir.resolve(AutoRun.ADVICE_JSON));
            return 0;
        } catch (IOException | UncheckedIOException e) {
            System.err.println("lgc worker: cannot write the advice: " + e.getMessage());
            return 1;
        }
    }

    /** The config as this launched process runs it: the launch's workers, this command's options, over TCP. */
    private ExperimentConfig launched(ExperimentConfig cfg) {
        LaunchEnvironment env = LaunchEnvironment.read(variables(System.getenv()));
        if (env.rendezvous().worldSize() != null) {
            cfg = cfg.withTraining(cfg.training().withWorkers(env.requireWorldSize()));
        }
        cfg = options.apply(cfg);
        return cfg.withRuntime(cfg.runtime().withType(RuntimeType.TCP));
    }

    /**
     * {@code compressor: auto}: the choice recorded in the run directory (a restart), else this process's part of
     * the advise session over every process the launch started; then the chosen method's endpoint, or an exit when
     * the chosen method has no use for this server process.
     */
    private int runAuto(AutoMethod auto, LaunchEnvironment env) throws UsageException {
        int workers = auto.base().training().workers();
        int endpoints = sessionEndpoints != null ? sessionEndpoints : workers;
        int endpoint = env.requireRank();
        if (endpoints < workers) {
            throw new UsageException("--session-endpoints must be at least the workers (" + workers + "), found "
                    + endpoints);
        }
        if (endpoint < 0 || endpoint >= endpoints) {
            int servers = endpoints - workers;
            throw new UsageException("rank must be in 0.." + (endpoints - 1) + " (" + workers + " workers and "
                    + servers + " server process" + (servers == 1 ? "" : "es") + " started for compressor: auto),"
                    + " found " + endpoint);
        }
        TcpConnector connector = connector(auto.base().runtime(), env).colocateServices(env.shards().colocate())
                .build();
        AutoRun.Resolved chosen;
        try {
            Optional<AutoRun.Resolved> recorded = env.resume().runDir() == null ? Optional.empty()
                    : AutoRun.recorded(auto, env.resume().runDir());
            chosen = recorded.isPresent() ? recorded.get()
                    : AutoRun.asEndpoint(auto, connector, endpoints, endpoint, System.err);
        } catch (RunInputException e) {
            System.err.println("lgc worker: " + e.getMessage());
            return 2;
        } catch (IOException | RuntimeException e) {
            System.err.println("lgc worker: compressor: auto could not choose: " + e.getMessage());
            return 1;
        }
        ExperimentConfig cfg = chosen.config();
        if (adviseOnly) {
            return endpoint == 0 ? writeAdvice(auto, chosen) : 0;
        }
        int services = cfg.method().newTopology().serviceEndpoints(workers);
        if (endpoint >= workers + services || env.shards().colocate() && endpoint >= workers) {
            System.err.println("lgc worker: endpoint " + endpoint + " has no role in the chosen method ("
                    + chosen.chosen().id() + ", " + services + " server process" + (services == 1 ? "" : "es")
                    + "): exiting");
            return 0;
        }
        if (endpoint == 0) {
            System.err.printf(Locale.ROOT, "lgc worker: compressor: auto chose %s (%s), %s, in %.1f s%n",
                    chosen.chosen().id(), chosen.chosen().label(), chosen.how(), chosen.seconds());
        }
        return runEndpoint(cfg, connector, endpoint, env, chosen);
    }

    /**
     * The process's environment with this command's options written over it, as the variables they stand for: the
     * options override the launcher's variables.
     */
    private Map<String, String> variables(Map<String, String> environment) {
        Map<String, String> vars = new HashMap<>(environment);
        put(vars, "LGC_RANK", rank);
        put(vars, "LGC_WORLD_SIZE", worldSize);
        put(vars, "LGC_MASTER_ADDR", masterAddr);
        put(vars, "LGC_MASTER_PORT", masterPort);
        put(vars, "LGC_JOB_ID", jobId);
        put(vars, "LGC_ATTEMPT", attempt);
        put(vars, "LGC_BIND_ADDR", bindAddr);
        put(vars, "LGC_PORT", port);
        put(vars, "LGC_ADVERTISE_ADDR", advertiseAddr);
        put(vars, "LGC_TOKEN_FILE", tokenFile);
        put(vars, "LGC_TLS_CERT", tlsCert);
        put(vars, "LGC_TLS_KEY", tlsKey);
        put(vars, "LGC_TLS_CA", tlsCa);
        put(vars, "LGC_COLOCATE", colocate);
        put(vars, "LGC_SERVERS", servers);
        put(vars, "LGC_RUN_DIR", runDir);
        put(vars, "LGC_RESUME_STEP", resumeStep);
        put(vars, "LGC_ALLOW_RESIZE", allowResize ? "true" : null);
        return vars;
    }

    private static void put(Map<String, String> vars, String variable, Object option) {
        if (option != null) {
            vars.put(variable, option.toString());
        }
    }

    /** Runs {@code endpoint} of the job to its end; the exit status. */
    private int runEndpoint(ExperimentConfig cfg, TcpConnector connector, int endpoint, LaunchEnvironment env,
                            AutoRun.Resolved chosen) {
        List<TrainingListener> listeners = new ArrayList<>();
        if (endpoint == 0) {
            listeners.add(options.progress());
        }
        try {
            ExperimentRunner runner = new ExperimentRunner().allowResize(env.resume().allowResize());
            if (chosen != null) {
                runner.records(chosen.files(), chosen.provenance(), chosen::summary);
            }
            ExperimentRunner.RunOutcome outcome = runner.runAsEndpoint(cfg, config.toString(),
                    connector, endpoint, listeners, env.resume().runDir(), env.resume().resumeStep());
            if (endpoint == 0) {
                System.out.printf(Locale.ROOT, "%s after %d steps (%.1f s); results in %s%n",
                        ExperimentRunner.accuracy(outcome.result().finalAccuracy()), outcome.result().steps().size(),
                        outcome.result().wallNanos() / 1e9, outcome.directory());
            }
            return 0;
        } catch (DatasetNotFoundException | IdxFormatException | RunInputException e) {
            System.err.println("lgc worker: " + e.getMessage());
            return 2;
        } catch (RuntimeException e) {
            if (lostPeer(e)) {
                System.err.println("lgc worker: stopped because another process failed: " + e.getMessage());
                return StopReport.LOST_PEER_STATUS;
            }
            System.err.println("lgc worker: " + (e instanceof RunFailedException ? "training failed: " : "")
                    + e.getMessage());
            return 1;
        } catch (IOException e) {
            System.err.println("lgc worker: " + e);
            return 1;
        }
    }

    /** Whether {@code e} says this process stopped because another failed ({@link TrainingFailedException#lostPeer}). */
    private static boolean lostPeer(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof TrainingFailedException f) {
                return f.lostPeer();
            }
        }
        return false;
    }

    /** The connector of {@code env}'s endpoint, with the config's deadlines. */
    private static TcpConnector.Builder connector(RuntimeConfig runtime, LaunchEnvironment env) {
        return TcpConnector.builder().fromEnvironment(env)
                .rendezvousTimeout(Duration.ofMillis(runtime.rendezvousTimeoutMs()))
                .receiveTimeout(Duration.ofMillis(runtime.timeoutMs()))
                .firstReceiveTimeout(Duration.ofMillis(runtime.firstStepTimeoutMs()))
                .heartbeatInterval(Duration.ofMillis(runtime.heartbeatMs()))
                .idleTimeout(Duration.ofMillis(runtime.peerIdleTimeoutMs()));
    }

    /**
     * Exits (status 3) as soon as standard input closes: the process that started this one is gone. A launcher's
     * workers, whose standard input is a pipe from it, then see theirs close too.
     */
    static void watchStdin(String message) {
        watchStdin(message, false);
    }

    /**
     * As {@link #watchStdin(String)}; with {@code runHooks} the process exits through {@link System#exit}, so its
     * shutdown hooks run (the launcher's: kill its workers, remove its namespaces and cgroups) instead of halting.
     */
    static void watchStdin(String message, boolean runHooks) {
        Thread watcher = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // the launcher never writes; anything read is ignored
                }
            } catch (IOException ignored) {
                // closed: the same as end of input
            }
            System.err.println(message);
            if (runHooks) {
                System.exit(3);
            }
            Runtime.getRuntime().halt(3);
        }, "lgc-stdin-watch");
        watcher.setDaemon(true);
        watcher.start();
    }

    /** A missing or inconsistent identity setting. */
    static final class UsageException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }
}

package io.lgc4j.experiments.cli;

import io.lgc4j.core.train.TrainingListener;
import io.lgc4j.data.DatasetNotFoundException;
import io.lgc4j.data.IdxFormatException;
import io.lgc4j.runner.config.ConfigException;
import io.lgc4j.runner.config.ConfigLoader;
import io.lgc4j.runner.config.ConfiguredMethod;
import io.lgc4j.runner.config.ExperimentConfig;
import io.lgc4j.runner.config.RuntimeConfig;
import io.lgc4j.runner.config.RuntimeType;
import io.lgc4j.runner.ExperimentRunner;
import io.lgc4j.runner.RunFailedException;
import io.lgc4j.runner.RunInputException;
import io.lgc4j.net.JobToken;
import io.lgc4j.net.NetSettings;
import io.lgc4j.net.TcpConnector;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.zip.CRC32C;

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
 */
@Command(name = "worker", mixinStandardHelpOptions = true,
        description = {"Run one process (a worker rank or the parameter server) of a multi-process job over TCP.",
            "Identity comes from LGC_* environment variables or the options; the job token from LGC_TOKEN_FILE or",
            "LGC_TOKEN (never the command line). Rank 0 writes results/<run-id>/."})
final class WorkerCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "CONFIG", description = "the experiment's YAML file (the same on every process)")
    private Path config;

    @Option(names = "--rank", defaultValue = "${env:LGC_RANK}",
            description = "this process's rank: 0..K-1 a worker, K the parameter server (env LGC_RANK)")
    private Integer rank;

    @Option(names = "--world-size", defaultValue = "${env:LGC_WORLD_SIZE}",
            description = "K, the number of worker ranks; overrides training.workers (env LGC_WORLD_SIZE)")
    private Integer worldSize;

    @Option(names = "--master-addr", defaultValue = "${env:LGC_MASTER_ADDR}",
            description = "host of rank 0 (env LGC_MASTER_ADDR)")
    private String masterAddr;

    @Option(names = "--master-port", defaultValue = "${env:LGC_MASTER_PORT}",
            description = "port rank 0 listens on (env LGC_MASTER_PORT)")
    private Integer masterPort;

    @Option(names = "--job-id", defaultValue = "${env:LGC_JOB_ID}",
            description = "the job's id, the same on every process (env LGC_JOB_ID)")
    private String jobId;

    @Option(names = "--attempt", defaultValue = "${env:LGC_ATTEMPT:-0}",
            description = "which attempt of the job this is (env LGC_ATTEMPT, default 0)")
    private int attempt;

    @Option(names = "--bind-addr", defaultValue = "${env:LGC_BIND_ADDR}",
            description = "where this process listens (env LGC_BIND_ADDR; default: the master address if it is"
                    + " a loopback address, else 0.0.0.0)")
    private String bindAddr;

    @Option(names = "--port", defaultValue = "${env:LGC_PORT:-0}",
            description = "the port this process listens on, 0 for any (env LGC_PORT; rank 0 uses the master port)")
    private int port;

    @Option(names = "--advertise-addr", defaultValue = "${env:LGC_ADVERTISE_ADDR}",
            description = "the address others dial to reach this process (env LGC_ADVERTISE_ADDR)")
    private String advertiseAddr;

    @Option(names = "--token-file", defaultValue = "${env:LGC_TOKEN_FILE}",
            description = "file holding the job token, readable by its owner only (env LGC_TOKEN_FILE)")
    private Path tokenFile;

    @Option(names = "--tls-cert", defaultValue = "${env:LGC_TLS_CERT}",
            description = "mutual TLS: this host's certificate chain, PEM (env LGC_TLS_CERT; with --tls-key and"
                    + " --tls-ca, e.g. from lgc keys)")
    private Path tlsCert;

    @Option(names = "--tls-key", defaultValue = "${env:LGC_TLS_KEY}",
            description = "mutual TLS: this host's private key, PKCS#8 PEM (env LGC_TLS_KEY)")
    private Path tlsKey;

    @Option(names = "--tls-ca", defaultValue = "${env:LGC_TLS_CA}",
            description = "mutual TLS: the CA certificate every peer's certificate must chain to (env LGC_TLS_CA)")
    private Path tlsCa;

    @Mixin
    private TrainingOptions options;

    @Option(names = "--colocate", defaultValue = "${env:LGC_COLOCATE:-false}",
            description = "a worker rank r < S also runs parameter-server shard r (endpoint K + r) in this process,"
                    + " on its own links, as Herring places its servers on the workers' hosts (env LGC_COLOCATE)")
    private boolean colocate;

    @Option(names = "--servers", defaultValue = "${env:LGC_SERVERS}", paramLabel = "S",
            description = "parameter-server shards (overrides topology.servers; env LGC_SERVERS); every process"
                    + " of the run must say the same, the handshake refuses one whose fusion plan differs")
    private Integer servers;

    @Option(names = "--exit-with-stdin", hidden = true,
            description = "exit when standard input closes (lgc launch: no process outlives its launcher)")
    private boolean exitWithStdin;

    @Option(names = "--run-dir", defaultValue = "${env:LGC_RUN_DIR}",
            description = "the run's result directory, the same on every process (env LGC_RUN_DIR): checkpoint"
                    + " parts go to its checkpoints/, rank 0's results into it (default: rank 0 makes a new one)")
    private Path runDir;

    @Option(names = "--resume-step", defaultValue = "${env:LGC_RESUME_STEP:--1}",
            description = "resume from the checkpoint after this many steps in --run-dir (env LGC_RESUME_STEP;"
                    + " -1: start at step 0)")
    private long resumeStep;

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
        try {
            cfg = ConfigLoader.load(config);
            if (worldSize != null) {
                cfg = cfg.withTraining(cfg.training().withWorkers(worldSize));
            }
            cfg = options.apply(cfg);
            if (servers != null) {
                cfg = cfg.withTopology(cfg.topology().withServers(servers));
            }
            cfg = cfg.withRuntime(cfg.runtime().withType(RuntimeType.TCP));
            int workers = cfg.training().workers();
            int endpoints = workers + ConfiguredMethod.of(cfg).newTopology().serviceEndpoints(workers);
            endpoint = require("rank", "LGC_RANK", "--rank", rank);
            if (endpoint < 0 || endpoint >= endpoints) {
                throw new UsageException("rank must be in 0.." + (endpoints - 1) + " (" + workers + " workers"
                        + (endpoints > workers ? ", then " + (endpoints - workers) + " parameter-server process"
                        + (endpoints - workers > 1 ? "es" : "") : "") + "), found " + endpoint);
            }
            if (resumeStep >= 0 && runDir == null) {
                throw new UsageException("--resume-step needs --run-dir (or LGC_RUN_DIR): the directory whose"
                        + " checkpoints/ holds step-" + String.format("%06d", resumeStep));
            }
            connector = connector(cfg.runtime(), endpoint);
        } catch (ConfigException | UsageException | IllegalArgumentException | java.io.UncheckedIOException e) {
            System.err.println("lgc worker: " + e.getMessage());
            return 2;
        }
        int workers = cfg.training().workers();
        int shards;
        TcpConnector shardConnector = null;
        try {
            shards = ConfiguredMethod.of(cfg).newTopology().serviceEndpoints(workers);
            if (colocate && endpoint >= workers) {
                throw new UsageException("--colocate is for worker ranks (0.." + (workers - 1) + "): they start their"
                        + " shard themselves; found rank " + endpoint);
            }
            if (colocate && shards > workers) {
                throw new UsageException("--colocate needs at most as many shards as workers, found " + shards
                        + " shards (topology.servers) for " + workers + " workers");
            }
            if (colocate && endpoint < shards) {
                // any free port: LGC_PORT is the rank's
                shardConnector = connector(cfg.runtime(), workers + endpoint, 0);
            }
        } catch (ConfigException | UsageException | IllegalArgumentException | java.io.UncheckedIOException e) {
            System.err.println("lgc worker: " + e.getMessage());
            return 2;
        }
        if (shardConnector == null) {
            return runEndpoint(cfg, connector, endpoint);
        }
        // the shard on a thread of its own: its links, its meter, its service loop; the process fails when either does
        ExperimentConfig shardCfg = cfg;
        TcpConnector shardLinks = shardConnector;
        java.util.concurrent.FutureTask<Integer> shard = new java.util.concurrent.FutureTask<>(
                () -> runEndpoint(shardCfg, shardLinks, workers + endpoint));
        Thread thread = new Thread(shard, "lgc-shard-" + endpoint);
        thread.setDaemon(true);
        thread.start();
        int status = runEndpoint(cfg, connector, endpoint);
        try {
            return Math.max(status, shard.get());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        } catch (java.util.concurrent.ExecutionException e) {
            System.err.println("lgc worker: shard " + endpoint + ": " + e.getCause());
            return 1;
        }
    }

    /** Runs {@code endpoint} of the job to its end; the exit status. */
    private int runEndpoint(ExperimentConfig cfg, TcpConnector connector, int endpoint) {
        List<TrainingListener> listeners = new ArrayList<>();
        if (endpoint == 0) {
            listeners.add(options.progress());
        }
        try {
            ExperimentRunner.RunOutcome outcome = new ExperimentRunner().runAsEndpoint(cfg, config.toString(),
                    connector, endpoint, listeners, runDir, resumeStep);
            if (endpoint == 0) {
                System.out.printf(Locale.ROOT, "test accuracy %.4f after %d steps (%.1f s); results in %s%n",
                        outcome.result().finalAccuracy(), outcome.result().steps().size(),
                        outcome.result().wallNanos() / 1e9, outcome.directory());
            }
            return 0;
        } catch (DatasetNotFoundException | IdxFormatException | RunInputException e) {
            System.err.println("lgc worker: " + e.getMessage());
            return 2;
        } catch (RunFailedException e) {
            System.err.println("lgc worker: training failed: " + e.getMessage());
            return 1;
        } catch (RuntimeException e) {
            System.err.println("lgc worker: " + e.getMessage());
            return 1;
        } catch (java.io.IOException e) {
            System.err.println("lgc worker: " + e);
            return 1;
        }
    }

    private TcpConnector connector(RuntimeConfig runtime, int endpoint) {
        return connector(runtime, endpoint, port);
    }

    private TcpConnector connector(RuntimeConfig runtime, int endpoint, int bindPort) {
        String master = require("master address", "LGC_MASTER_ADDR", "--master-addr", masterAddr);
        int masterPortValue = require("master port", "LGC_MASTER_PORT", "--master-port", masterPort);
        String job = require("job id", "LGC_JOB_ID", "--job-id", jobId);
        byte[] token;
        if (tokenFile != null) {
            token = JobToken.fromFile(tokenFile);
        } else if (System.getenv("LGC_TOKEN") != null) {
            token = JobToken.fromEnvironment("LGC_TOKEN");
        } else {
            throw new UsageException("no job token: set LGC_TOKEN_FILE (or --token-file) to a file readable by its"
                    + " owner only, or LGC_TOKEN to the token; every process of the job needs the same token");
        }
        String bind = bindAddr != null ? bindAddr : isLoopback(master) ? master : "0.0.0.0";
        int tlsFiles = (tlsCert != null ? 1 : 0) + (tlsKey != null ? 1 : 0) + (tlsCa != null ? 1 : 0);
        if (tlsFiles != 0 && tlsFiles != 3) {
            throw new UsageException("mutual TLS needs all three of --tls-cert, --tls-key and --tls-ca (or"
                    + " LGC_TLS_CERT, LGC_TLS_KEY, LGC_TLS_CA), found " + tlsFiles);
        }
        NetSettings.Tls tls = tlsFiles == 3 ? new NetSettings.Tls(tlsCert, tlsKey, tlsCa) : null;
        return TcpConnector.builder()
                .endpoint(endpoint).job(jobNumber(job)).attempt(attempt)
                .master(new InetSocketAddress(master, masterPortValue))
                .bindHost(bind).bindPort(endpoint == 0 ? masterPortValue : bindPort).advertiseHost(advertiseAddr)
                .token(token)
                .rendezvousTimeout(Duration.ofMillis(runtime.rendezvousTimeoutMs()))
                .receiveTimeout(Duration.ofMillis(runtime.timeoutMs()))
                .firstReceiveTimeout(Duration.ofMillis(runtime.firstStepTimeoutMs()))
                .heartbeatInterval(Duration.ofMillis(runtime.heartbeatMs()))
                .idleTimeout(Duration.ofMillis(runtime.peerIdleTimeoutMs()))
                .tls(tls)
                .build();
    }

    /** A job id as the 32-bit number frames carry: its value when it is one, else the CRC32C of its text. */
    static int jobNumber(String jobId) {
        try {
            return Integer.parseUnsignedInt(jobId.strip());
        } catch (NumberFormatException e) {
            CRC32C crc = new CRC32C();
            crc.update(jobId.getBytes(StandardCharsets.UTF_8));
            return (int) crc.getValue();
        }
    }

    private static boolean isLoopback(String host) {
        try {
            return java.net.InetAddress.getByName(host).isLoopbackAddress();
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }

    /** {@code value}, or a usage error naming the variable and the option that set it. */
    private static <T> T require(String what, String variable, String option, T value) {
        if (value == null || value instanceof String text && text.isBlank()) {
            throw new UsageException("the " + what + " is missing: set " + variable + " or " + option);
        }
        return value;
    }

    /** When the launcher goes away, so does this process (its peers then see its links close). */
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
            } catch (java.io.IOException ignored) {
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

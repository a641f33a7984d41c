package io.lgc4j.cli;

import io.lgc4j.cli.hosts.Agent;
import io.lgc4j.cli.hosts.Message;
import io.lgc4j.cli.hosts.Store;
import io.lgc4j.cli.netem.EmulatedHosts;
import io.lgc4j.cli.netem.FabricException;
import io.lgc4j.cli.netem.LinkShape;
import io.lgc4j.core.checkpoint.CheckpointDirectory;
import io.lgc4j.runner.config.ConfigException;
import io.lgc4j.core.compute.ComputeThreads;
import io.lgc4j.core.metrics.TraceMerge;
import io.lgc4j.core.metrics.TraceSettings;
import io.lgc4j.core.runtime.StopReport;
import io.lgc4j.core.train.CheckpointMismatchException;
import io.lgc4j.core.train.Topology;
import io.lgc4j.core.metrics.StepRange;
import io.lgc4j.core.compute.CpuLimits;
import io.lgc4j.runner.config.ConfigLoader;
import io.lgc4j.runner.config.TraceSection;
import io.lgc4j.advise.config.AutoMethod;
import io.lgc4j.runner.config.ExperimentConfig;
import io.lgc4j.runner.ExperimentRunner;
import io.lgc4j.net.JobToken;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.LocalTime;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/**
 * {@code lgc launch [--nproc K] CONFIG}: starts the K worker processes of a run on this host (K: training.workers) (and the parameter
 * server's process for {@code topology: ps}), each an {@code lgc worker} over loopback TCP with a fresh job id and
 * token, prefixes their output with their rank, waits for all of them and exits with the status of the first that
 * failed. When one fails the others stop by themselves within seconds (their links tell them); any still running
 * after the grace period is killed, so no process outlives the launch — nor the launcher itself (each worker exits
 * when its standard input, a pipe from the launcher, closes).
 *
 * <p>Program mode, {@code lgc launch --nproc K [--servers S] -- COMMAND…} (or {@code --main CLASS --classpath CP}):
 * the user's command K (or K + S) times with the same identity plus {@code LGC_SERVERS} (only with --servers),
 * {@code LGC_RUN_DIR}, {@code LGC_RESUME_STEP} and {@code LGC_LAUNCHER_PID}, which a program's
 * {@code DistributedTrainer.Builder#fromEnvironment()} reads; without --servers the shards run inside the workers.
 */
@Command(name = "launch", mixinStandardHelpOptions = true,
        description = {"Run a job as one process per rank on this host (lgc worker over loopback TCP).",
            "Exits with the status of the first process that failed, naming it."})
final class LaunchCommand implements Callable<Integer> {

    /** JVM options of each process unless LGC_WORKER_JAVA_OPTS or --java-opts says otherwise. */
    static final String DEFAULT_JAVA_OPTS = "-Xmx2g -Dorg.bytedeco.javacpp.maxbytes=3G"
            + " -Dorg.bytedeco.javacpp.maxphysicalbytes=5G";

    @Parameters(arity = "0..*", paramLabel = "CONFIG | -- COMMAND",
            description = {"the experiment's YAML file (with --resume: default RUN_DIR/config.yaml); or, after --,",
                "your program's command, started --nproc times (and --servers more) with the LGC_* environment"})
    private List<String> arguments = new ArrayList<>();

    private Path config;

    @Spec
    private CommandSpec spec;

    @Option(names = "--main", paramLabel = "CLASS",
            description = "program mode: run java CLASS in every process (with --classpath; instead of -- COMMAND)")
    private String mainClass;

    @Option(names = "--classpath", paramLabel = "CP", description = "program mode: the class path of --main")
    private String classPath;

    @Option(names = "--run-dir", paramLabel = "DIR", description = "program mode: the run's directory, LGC_RUN_DIR of"
            + " every process (checkpoints; with --max-restarts, default: a new one under --output-dir or results)")
    private Path programRunDir;

    @Option(names = "--resume", paramLabel = "RUN_DIR",
            description = "resume this result directory from its latest complete checkpoint, every process from its"
                    + " own part")
    private Path resume;

    @Option(names = "--resize",
            description = "with --resume: go on at --nproc workers (and --servers shards) also from a checkpoint of"
                    + " another number (the rest of its epoch split over them, each compressor memory regrouped"
                    + " keeping its mean; LGC_ALLOW_RESIZE for a program)")
    private boolean resize;

    @Option(names = "--advise-only",
            description = "compressor: auto: run the advise session on the launched processes (their links, a leg"
                    + " under load, the straggler, the model's pass, each candidate's exchange), print the table,"
                    + " write advice.csv and advice.json into a new <run.outputDir>/<run.name>-advice-<time>/, and"
                    + " stop before training")
    private boolean adviseOnly;

    @Option(names = "--max-restarts", defaultValue = "0", paramLabel = "N",
            description = "when a process fails, stop the others and start every process again from the last"
                    + " complete checkpoint (from step 0 when there is none), at most N times (default 0)")
    private int maxRestarts;

    @Option(names = "--min-nproc", paramLabel = "M",
            description = "elastic: when a worker process fails, go on from the last complete checkpoint with the"
                    + " workers left, down to M, resumed at the smaller K as with --resize (each such restart counts"
                    + " against --max-restarts; default: --nproc, every restart at --nproc); with --colocate, shards"
                    + " beyond K go with the workers")
    private Integer minNproc;

    @Option(names = "--rejoin-after", paramLabel = "SECONDS",
            description = "elastic: a lost worker's slot is back SECONDS after it was lost; once the next checkpoint"
                    + " after that is complete, every process stops and the job goes on from it with one worker more"
                    + " (up to --nproc)")
    private Integer rejoinAfter;

    @Option(names = "--nnodes", paramLabel = "MIN:MAX",
            description = {"elastic on several hosts: the same lgc launch CONFIG --nproc P --nnodes MIN:MAX --rdzv"
                    + " HOST:PORT on every host (P worker processes each); the job runs in rounds on the hosts present,"
                    + " at least MIN, at most MAX (N alone: N:N), K = their processes. A lost host: the next round"
                    + " without it, from the last complete checkpoint; a failed process: the next round with the same"
                    + " hosts (counted against --max-restarts); a host that joins: a round with it from the next"
                    + " complete checkpoint. Needs training.checkpointEverySteps > 0, run.outputDir on a file system"
                    + " every host shares at the same path, and the job token in LGC_TOKEN_FILE on every host"})
    private String nnodes;

    @Option(names = "--rdzv", paramLabel = "HOST:PORT",
            description = "with --nnodes: the store every host joins; the launcher on HOST that binds PORT first runs"
                    + " it")
    private String rdzv;

    @Option(names = "--join-timeout", defaultValue = "120", paramLabel = "SECONDS",
            description = "with --nnodes: how long to wait for the store, and for MIN hosts at the start or after a"
                    + " loss (default 120)")
    private int joinTimeout;

    @Option(names = "--host-timeout", defaultValue = "15", paramLabel = "SECONDS",
            description = "with --nnodes: a host silent this long is lost (each side says it is there every second;"
                    + " default 15)")
    private int hostTimeout;

    @Option(names = "--host-name", paramLabel = "NAME",
            description = "with --nnodes: this host's name in the store's lines (default: the machine's)")
    private String hostName;

    @Option(names = "--advertise-addr", paramLabel = "ADDR",
            description = "with --nnodes: the address the other hosts reach this one at (default: the address it"
                    + " reaches the store from)")
    private String advertiseAddr;

    /** With --nnodes, on a host that does not run the store: the run's directory is the store's, said each round. */
    private boolean agentOnly;

    /** Whose certificate in --tls-dir the processes present: localhost's, or with --nnodes this host's name's. */
    private String tlsHost = "localhost";

    @Option(names = "--nproc", paramLabel = "K", description = "the number of worker processes (default: the config's"
            + " training.workers; when given, it overrides that key as --max-steps overrides training.maxSteps)")
    private Integer nprocOption;

    private int nproc;

    @Option(names = "--servers", paramLabel = "S", description = "parameter-server shards, each a process of its own"
            + " (overrides topology.servers; topology.type ps)")
    private Integer servers;

    @Option(names = "--colocate", description = "run parameter-server shard s in worker s's process (Herring places"
            + " its servers on the workers' hosts); needs topology.servers <= --nproc")
    private boolean colocate;

    /** compressor: auto: every process started, each joining the advise session (0: not auto). */
    private int sessionEndpoints;

    @Mixin
    private TrainingOptions options;

    /** The run's trace (the config's, with --trace and --trace-steps), read when the config is. */
    private TraceSection trace = TraceSection.OFF;

    @Option(names = "--master-port", description = "the port rank 0 listens on (default: a free port)")
    private Integer masterPort;

    @Option(names = "--java-opts", defaultValue = "${env:LGC_WORKER_JAVA_OPTS}",
            description = "JVM options of each process (env LGC_WORKER_JAVA_OPTS; default: " + DEFAULT_JAVA_OPTS + ")")
    private String javaOpts;

    @Option(names = "--jit", paramLabel = "auto|c1|tiered", defaultValue = "${env:" + WorkerJit.ENV + "}",
            description = {"the JIT of every process: c1 (C1 alone, compiling a method after a couple of calls:"
                + " " + WorkerJit.EARLY_FLAG + "), tiered (C1 then C2, HotSpot's default) or auto (default, env "
                + WorkerJit.ENV + "): c1 when a process has less than a core (its --cpu-share, else this machine's"
                + " CPUs shared among the processes), where C2's compiler threads take CPU the ranks need. Options of"
                + " --java-opts that choose a JIT or its thresholds win"})
    private String jitOption;

    /** Every process's JIT, resolved before any starts. */
    private WorkerJit jit;

    @Option(names = "--tls-dir", description = "mutual TLS on every link with the certificates lgc keys wrote in"
            + " this directory (ca.crt, localhost.crt, localhost.key; with --nnodes, this host's NAME.crt and NAME.key)")
    private Path tlsDir;

    @Option(names = "--netns-rate", paramLabel = "RATE",
            description = "run every process in its own network namespace (root), joined through a bridge by links"
                    + " capped at RATE in each direction with tc tbf: e.g. 100mbit, 1gbit, or unshaped (namespaces,"
                    + " no cap); everything is removed at the end")
    private String netnsRate;

    @Option(names = "--netns-latency-ms", defaultValue = "" + LinkShape.DEFAULT_LATENCY_MS, paramLabel = "MS",
            description = "with --netns-rate: the tbf queue's bound, the longest a packet waits (default 400)")
    private int netnsLatencyMs;

    @Option(names = "--cpu-share", defaultValue = "0", paramLabel = "CORES",
            description = "cap every process at CORES cores (root; a cgroup each, CFS quota), e.g. 0.4 for 5"
                    + " processes on 2 cores: every method's ranks get the same compute (default 0: no cap)")
    private double cpuShare;

    @Option(names = "--cpu-period-ms", defaultValue = "100", paramLabel = "MS",
            description = "with --cpu-share: the CFS period the share is enforced over, 1 to 1000 ms (default 100, the"
                    + " kernel's): a process that used its share waits for the next period, so a shorter one makes"
                    + " shorter, more frequent pauses")
    private double cpuPeriodMs;

    @Option(names = "--threads", paramLabel = "N|auto",
            description = "program mode: ND4J's OpenMP threads in every process (OMP_NUM_THREADS): a count, or auto"
                    + " (the cores each process really has: its --cpu-share, else this machine's CPUs it may use"
                    + " shared among the processes); default: the caller's OMP_NUM_THREADS, else 1. A config says it"
                    + " in model.compute.threads")
    private String threadsOption;

    /** --cpu-period-ms in microseconds. */
    private long periodUs() {
        return Math.round(cpuPeriodMs * 1000);
    }

    /** The threads every process computes with, resolved before any starts; null: the caller's, else 1. */
    private ComputeThreads threads;

    @Option(names = "--exit-with-stdin", hidden = true,
            description = "exit, and the workers with it, when standard input closes (lgc table --processes: no run"
                    + " outlives the suite that started it)")
    private boolean exitWithStdin;

    @Option(names = "--grace-seconds", defaultValue = "5",
            description = "after the first failure, how long the others may take to stop before they are killed")
    private int graceSeconds;

    /** What the last failed attempt's first failure was, for the restart's log line. */
    private String lastFailure = "";
    /** The process that failed first in the last attempt ({@code rank 1}, {@code server}), or null. */
    private String lastFailed;

    /** A usage error found before any process starts: the launch prints it after "lgc launch: " and exits 2. */
    private static final class UsageError extends Exception {
        private static final long serialVersionUID = 1L;

        UsageError(String message) {
            super(message);
        }
    }

    /**
     * What every attempt of a job starts from.
     *
     * @param services   the parameter-server shards' endpoints: processes of their own, unless --colocate puts them in
     *                   the workers
     * @param runDir     the directory every process names (its checkpoints, its trace), or null for none
     * @param resumeStep the step the first attempt resumes from, or -1 to start from step 0
     */
    private record JobPlan(int services, Path runDir, long resumeStep) {
    }

    @Override
    public Integer call() throws IOException, InterruptedException {
        if (exitWithStdin) {
            WorkerCommand.watchStdin("lgc launch: the process that started it is gone (standard input closed);"
                    + " exiting, and the workers with it", true);
        }
        try {
            checkCommonOptions();
            return programMode() ? launchProgram() : launchConfig();
        } catch (UsageError e) {
            System.err.println("lgc launch: " + e.getMessage());
            return 2;
        }
    }

    /** The options either mode checks first: --jit, --nproc, --max-restarts, --cpu-share and --cpu-period-ms. */
    private void checkCommonOptions() throws UsageError {
        if (WorkerJit.problem(jitOption) != null) {
            throw new UsageError("--jit " + WorkerJit.problem(jitOption));
        }
        if (nprocOption != null && nprocOption < 1) {
            throw new UsageError("--nproc must be >= 1, found " + nprocOption);
        }
        if (maxRestarts < 0) {
            throw new UsageError("--max-restarts must be >= 0, found " + maxRestarts);
        }
        if (resize && resume == null) {
            throw new UsageError("--resize goes with --resume RUN_DIR: it lets a run go on at another --nproc or"
                    + " --servers");
        }
        if (minNproc != null && (minNproc < 1 || (nprocOption != null && minNproc > nprocOption))) {
            throw new UsageError("--min-nproc must be in [1, --nproc], found " + minNproc);
        }
        if (minNproc != null && maxRestarts < 1) {
            throw new UsageError("--min-nproc goes on after a failure, which is a restart: give --max-restarts N"
                    + " (N >= 1)");
        }
        if (rejoinAfter != null && (minNproc == null || rejoinAfter < 0)) {
            throw new UsageError(minNproc == null ? "--rejoin-after goes with --min-nproc"
                    : "--rejoin-after must be >= 0 seconds, found " + rejoinAfter);
        }
        if (cpuShare < 0) {
            throw new UsageError("--cpu-share must be >= 0 cores, found " + cpuShare);
        }
        if (!(cpuPeriodMs >= 1 && cpuPeriodMs <= 1000)) {
            throw new UsageError("--cpu-period-ms must be 1 to 1000 ms (the kernel's bounds), found " + cpuPeriodMs);
        }
    }

    /**
     * CONFIG mode: reads the config, checks the host options, sets up the hosts (namespaces, CPU shares) and runs
     * every attempt of the job on them, each process an {@code lgc worker}.
     */
    private int launchConfig() throws UsageError, IOException, InterruptedException {
        if (nnodes != null || rdzv != null) {
            return launchHosts();
        }
        config = configFile();
        JobPlan plan = readConfig();
        LinkShape shape = linkShape();
        int processes = colocate ? nproc : nproc + plan.services();
        EmulatedHosts hosts = createHosts(processes, shape);
        try (hosts) {
            threads = resolveThreads(processes);
            jit = resolveJit(processes, false);
            if (shape != null || cpuShare > 0) {
                System.out.println("lgc launch: " + hosts.describe().values().stream().map(String::valueOf)
                        .collect(Collectors.joining("; ")));
            }
            int status = launchAttempts(hosts, plan.services(), plan.runDir(), plan.resumeStep());
            return status == 0 && trace.on() ? mergeTrace(plan.runDir()) : status;
        } catch (FabricException e) {
            System.err.println("lgc launch: " + e.getMessage());
            return 1;
        }
    }

    /** CONFIG mode: the config file, the one argument or else the resumed run's config.yaml. */
    private Path configFile() throws UsageError {
        if (arguments.size() > 1) {
            throw new UsageError("launch takes one CONFIG, found " + arguments.size() + " arguments " + arguments
                    + " (to start a program: lgc launch --nproc K -- java -cp app.jar your.Main)");
        }
        if (arguments.isEmpty() && resume == null) {
            throw new UsageError("launch needs a CONFIG or --resume RUN_DIR");
        }
        return arguments.isEmpty() ? resume.resolve("config.yaml") : Path.of(arguments.get(0));
    }

    /**
     * CONFIG mode: reads the config with --nproc and --servers applied and sets what the launch takes from it (the
     * workers, the advise session's endpoints for compressor: auto, the threads, the trace); checks --advise-only,
     * --servers and --colocate against it; then plans the job ({@link #planFromConfig}).
     */
    private JobPlan readConfig() throws UsageError, IOException {
        try {
            Optional<AutoMethod> auto = AutoMethod.read(config);
            ExperimentConfig cfg = auto.isPresent() ? auto.get().base() : ConfigLoader.load(config);
            if (nprocOption != null) {
                cfg = cfg.withTraining(cfg.training().withWorkers(nprocOption));
            }
            nproc = cfg.training().workers();
            if (adviseOnly && auto.isEmpty()) {
                throw new UsageError("--advise-only advises a config of compressor: auto (its advise.candidates),"
                        + " found compressor.type " + cfg.compressor().type() + " in " + config
                        + ": write compressor: auto, or use lgc advise CONFIG --rate-mbit R --hop-ms H");
            }
            int services;
            if (auto.isPresent()) {
                if (servers != null) {
                    throw new UsageError("--servers sets one method's shards; with compressor: auto each candidate"
                            + " has its own (the launch starts the most any needs)");
                }
                // every candidate's processes: the most server processes any needs; those the choice leaves idle exit
                services = auto.get().maxServices(nproc);
                sessionEndpoints = colocate ? nproc : nproc + services;
            } else {
                if (servers != null) {
                    cfg = cfg.withTopology(cfg.topology().with("servers", servers));
                }
                Topology topology = cfg.method().newTopology();
                services = topology.serviceEndpoints(nproc);
                if (rejoinAfter != null && nproc > 1) {
                    try {
                        topology.checkResize(nproc - 1, nproc); // a job that grows back must be able to grow
                    } catch (CheckpointMismatchException e) {
                        throw new UsageError("--rejoin-after grows the job back, which this method refuses: "
                                + e.getMessage());
                    }
                }
            }
            threadsOption = cfg.model().compute().threads();
            trace = options.apply(cfg).training().trace();
            checkColocate(auto.isPresent(), services);
            return planFromConfig(cfg, services);
        } catch (ConfigException e) {
            throw new UsageError(e.getMessage());
        }
    }

    /** With --colocate: every shard must have a worker to run in (and a config without auto, a shard at all). */
    private void checkColocate(boolean auto, int services) throws UsageError {
        if (colocate && auto && services > nproc) {
            throw new UsageError("--colocate puts parameter-server shard s in worker s's process: a candidate of"
                    + " compressor: auto has " + services + " shards for " + nproc + " workers");
        }
        if (colocate && !auto && (services == 0 || services > nproc)) {
            throw new UsageError("--colocate puts parameter-server shard s in worker s's process: it needs"
                    + " topology.type ps with 1 to " + nproc + " shards (topology.servers or --servers), found "
                    + services);
        }
    }

    /**
     * CONFIG mode: where the job starts: --resume's run from its latest complete checkpoint, else a new run
     * directory when the processes need to share one (checkpoints, restarts, a trace), else none.
     */
    private JobPlan planFromConfig(ExperimentConfig cfg, int services) throws UsageError, IOException {
        if (agentOnly) {
            return new JobPlan(services, null, -1);
        }
        Path runDir = resume;
        long resumeStep = -1;
        if (resume != null) {
            resumeStep = latestStep(resume);
            if (resumeStep < 0) {
                throw new UsageError("cannot resume " + resume + ": no complete checkpoint in "
                        + CheckpointDirectory.in(resume).root() + " (a run saves them with"
                        + " training.checkpointEverySteps > 0)");
            }
            System.out.println("lgc launch: resuming " + resume + " from step " + resumeStep);
        } else if (cfg.training().checkpointEverySteps() > 0 || maxRestarts > 0 || trace.on()) {
            // every process must name the same directory (its checkpoints, its trace): the launcher picks it
            runDir = ExperimentRunner.newRunDirectory(Path.of(options.outputDir != null ? options.outputDir
                    : cfg.run().outputDir()), cfg.run().name());
        }
        if (maxRestarts > 0 && cfg.training().checkpointEverySteps() == 0) {
            System.err.println("lgc launch: warning: training.checkpointEverySteps is 0, so a restart starts"
                    + " from step 0");
        }
        return new JobPlan(services, runDir, resumeStep);
    }

    /** --netns-rate as a link shape; null without it. */
    private LinkShape linkShape() throws UsageError {
        try {
            return netnsRate == null ? null : LinkShape.parse(netnsRate, netnsLatencyMs);
        } catch (IllegalArgumentException e) {
            throw new UsageError("--netns-rate: " + e.getMessage());
        }
    }

    /** The hosts of {@code processes} processes: namespaces with links of {@code shape} and the CPU shares. */
    private EmulatedHosts createHosts(int processes, LinkShape shape) throws UsageError {
        try {
            return EmulatedHosts.create(processes, shape, cpuShare, periodUs());
        } catch (FabricException | IllegalArgumentException e) {
            throw new UsageError(e.getMessage());
        }
    }

    /**
     * Every process's trace file, merged into the run's trace with the clock offsets rank 0 probed: every process ran
     * on this host, so the launcher finds them all.
     */
    private int mergeTrace(Path runDir) {
        TraceSettings settings = ExperimentRunner.traceSettings(trace, runDir);
        try {
            long events = TraceMerge.merge(List.of(settings.directory()), settings.file(),
                    Map.of("runtime", "launch", "workers", nproc, "steps", settings.steps().toString()));
            System.out.println("lgc launch: trace of " + events + " events in " + settings.file());
            return 0;
        } catch (IOException e) {
            System.err.println("lgc launch: cannot merge the trace into " + settings.file() + ": " + e);
            return 1;
        }
    }

    /** Whether the job goes on with fewer workers after a failure ({@code --min-nproc} below {@code --nproc}). */
    private boolean elastic() {
        return minNproc != null && minNproc < nproc;
    }

    /** Whether every process may resume a checkpoint of another K: {@code --resize}, or an elastic job. */
    private boolean allowResize() {
        return resize || elastic();
    }

    /**
     * Every attempt of the job: a failed one restarts (at most {@code --max-restarts} times) from the latest complete
     * checkpoint, with one worker less when the job is elastic and a worker failed (down to {@code --min-nproc}); a
     * lost worker's slot is back after {@code --rejoin-after}, and the job then stops at its next complete checkpoint
     * and goes on from it with one worker more.
     */
    private int launchAttempts(EmulatedHosts hosts, int services, Path runDir, long resumeStep)
            throws IOException, InterruptedException {
        Path tokenDir = Files.createTempDirectory("lgc-job-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path tokenFile = Files.createFile(tokenDir.resolve("token"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.write(tokenFile, JobToken.generate());
        int workers = nproc;
        Deque<Long> lostAt = new ArrayDeque<>(); // when each lost slot was lost (nanoTime), oldest first
        try {
            for (int attempt = 0, restarts = 0; ; attempt++) {
                Rejoin rejoin = new Rejoin(runDir, lostAt);
                // co-located, shard s runs in worker s: at K below S the shards beyond K go with their workers
                int shards = colocate && program == null ? Math.min(services, workers) : services;
                if (shards != services) {
                    System.out.println("lgc launch: " + shards + " parameter-server shards at K = " + workers
                            + " (of " + services + "): each runs in a worker's process");
                }
                int status = launch(hosts, workers, shards, tokenFile, attempt, runDir, resumeStep, rejoin,
                        shards != services);
                if (rejoin.fired) {
                    workers++;
                    lostAt.poll();
                    resumeStep = latestStep(runDir);
                    System.out.println("lgc launch: a worker's slot is back and the checkpoint after " + resumeStep
                            + " steps is complete: attempt " + attempt + " stopped at " + LocalTime.now().withNano(0)
                            + "; every process again at K = " + workers + ", from that checkpoint");
                    continue;
                }
                if (status == 0 || restarts >= maxRestarts) {
                    return status;
                }
                restarts++;
                boolean shrinks = elastic() && lastFailed != null && lastFailed.startsWith("rank ")
                        && workers - 1 >= minNproc;
                if (shrinks) {
                    workers--;
                    lostAt.add(System.nanoTime());
                }
                resumeStep = latestStep(runDir);
                System.err.println("lgc launch: attempt " + attempt + " failed at " + LocalTime.now()
                        .withNano(0) + " (" + lastFailure + "); restart " + restarts + " of " + maxRestarts
                        + (shrinks ? " at K = " + workers + " (" + lastFailed + "'s slot lost" + (rejoinAfter == null
                        ? "" : ", back in " + rejoinAfter + " s") + ")" : "")
                        + ": every process again, " + (resumeStep < 0 ? "from step 0 (no complete checkpoint yet)"
                        : "from the checkpoint after " + resumeStep + " steps in " + runDir));
            }
        } finally {
            Files.deleteIfExists(tokenFile);
            Files.deleteIfExists(tokenDir);
        }
    }

    /**
     * When a lost slot is back ({@code --rejoin-after} after it was lost): true, once, as soon as a checkpoint
     * completes after that, so the attempt stops there and the job goes on with one worker more. Looks at the run's
     * checkpoint directories (a manifest present) every 500 ms.
     */
    private final class Rejoin implements BooleanSupplier {
        private final Path runDir;
        private final Deque<Long> lostAt;
        private long stepWhenBack = Long.MIN_VALUE;
        private long lastLook;
        boolean fired;

        Rejoin(Path runDir, Deque<Long> lostAt) {
            this.runDir = runDir;
            this.lostAt = lostAt;
        }

        @Override
        public boolean getAsBoolean() {
            long now = System.nanoTime();
            if (fired || rejoinAfter == null || runDir == null || lostAt.isEmpty()
                    || now - lostAt.peek() < TimeUnit.SECONDS.toNanos(rejoinAfter) || now - lastLook < 500_000_000L) {
                return fired;
            }
            lastLook = now;
            long latest = Store.manifestStep(runDir);
            if (stepWhenBack == Long.MIN_VALUE) {
                stepWhenBack = latest;
            }
            fired = latest > stepWhenBack;
            return fired;
        }
    }

    /** The next step of the latest complete checkpoint in {@code runDir}, or -1 when it has none. */
    private static long latestStep(Path runDir) throws IOException {
        return Store.latestStep(runDir, System.err);
    }

    /**
     * {@code --nnodes}: this host's agent of an elastic job on several hosts, and the store when {@code --rdzv} names
     * a port of this host that no other launcher here has bound ({@link Store}, {@link Agent}).
     */
    private int launchHosts() throws UsageError, IOException, InterruptedException {
        int[] range = hostRange();
        InetSocketAddress store = rdzvAddress();
        checkHostOptions();
        Path tokenPath = hostToken();
        byte[] token;
        try {
            token = JobToken.fromFile(tokenPath);
        } catch (IllegalArgumentException | UncheckedIOException e) {
            throw new UsageError(e.getMessage());
        }
        String job = System.getenv().getOrDefault("LGC_JOB_ID", "lgc");
        String name = hostName != null ? hostName : InetAddress.getLocalHost().getHostName();
        checkHostCertificates(name);
        ServerSocket storeSocket = bindStore(store);
        agentOnly = storeSocket == null;
        JobPlan plan = planHosts(storeSocket);
        Thread storeThread = null;
        if (storeSocket != null) {
            Files.createDirectories(plan.runDir()); // every host's agent checks that it sees it
            System.out.println("lgc launch: the store of job '" + job + "' listens on " + store + "; run directory "
                    + plan.runDir().toAbsolutePath());
            storeThread = new Thread(new Store(storeSocket, token, job, new Store.Settings(range[0], range[1],
                    Duration.ofSeconds(joinTimeout), Duration.ofSeconds(hostTimeout), maxRestarts, plan.services(),
                    colocate, plan.runDir().toAbsolutePath(), plan.resumeStep()), System.out), "lgc-store");
            storeThread.start();
        }
        Agent agent = new Agent(token, job, new Agent.Settings(store, name, nproc, advertiseAddr,
                Duration.ofSeconds(hostTimeout), Duration.ofSeconds(joinTimeout)), System.out);
        int status;
        try {
            status = agent.run((round, advertise, stop) -> runRound(round, advertise, plan.services(), tokenPath,
                    stop), LaunchCommand::freePort);
        } catch (IOException e) {
            System.err.println("lgc launch: " + e.getMessage());
            status = 1;
        }
        if (storeThread != null) {
            storeThread.join(TimeUnit.SECONDS.toMillis(hostTimeout));
        }
        return status == 0 && storeThread != null && trace.on() ? mergeTrace(plan.runDir()) : status;
    }

    /** The options one host's launch has and an elastic job on several hosts does not take yet. */
    private void checkHostOptions() throws UsageError {
        if (netnsRate != null || cpuShare > 0) {
            throw new UsageError("--nnodes runs on real hosts: --netns-rate and --cpu-share emulate one host's links"
                    + " and cores and do not go with it");
        }
        if (minNproc != null || rejoinAfter != null || resize) {
            throw new UsageError("--nnodes is elastic by hosts: --min-nproc, --rejoin-after and --resize are the"
                    + " one-host launcher's; give --nnodes MIN:MAX");
        }
    }

    /**
     * With --tls-dir: the files of host {@code name} that {@code lgc keys DIR --hosts NAME,…} wrote, which its
     * processes then present (the data links; the store's links carry no secret and are authenticated by the token).
     */
    private void checkHostCertificates(String name) throws UsageError {
        if (tlsDir == null) {
            return;
        }
        for (String file : List.of("ca.crt", name + ".crt", name + ".key")) {
            if (!Files.isRegularFile(tlsDir.resolve(file))) {
                throw new UsageError("--tls-dir with --nnodes needs " + tlsDir.resolve(file) + ": each host presents"
                        + " its own certificate, DIR/<host name>.crt and .key (lgc keys " + tlsDir + " --hosts " + name
                        + ",...; the name is --host-name, default the machine's)");
            }
        }
        tlsHost = name;
    }

    /** The job token's file every host has: LGC_TOKEN_FILE. */
    private static Path hostToken() throws UsageError {
        String path = System.getenv("LGC_TOKEN_FILE");
        if (path == null) {
            throw new UsageError("--nnodes needs the job token in LGC_TOKEN_FILE: the same file (chmod 600) on every"
                    + " host");
        }
        return Path.of(path);
    }

    /**
     * This host's part of the job, from its CONFIG or its program, with the threads and JIT of its processes; the run
     * directory only on the store's host ({@code storeSocket} not null), which needs one.
     */
    private JobPlan planHosts(ServerSocket storeSocket) throws UsageError, IOException {
        if (programMode()) {
            nproc = nprocOption;
            JobPlan plan = planProgram();
            int processes = nproc + plan.services();
            if (threadsOption != null) {
                threads = resolveThreads(processes);
            }
            jit = resolveJit(processes, mainClass == null);
            program = programCommand();
            return plan;
        }
        config = configFile();
        JobPlan plan = readConfig();
        if (storeSocket != null && plan.runDir() == null) {
            storeSocket.close();
            throw new UsageError("--nnodes needs training.checkpointEverySteps > 0 in " + config + ": each round goes"
                    + " on from the last complete checkpoint");
        }
        int processes = colocate ? nproc : nproc + plan.services();
        threads = resolveThreads(processes);
        jit = resolveJit(processes, false);
        return plan;
    }

    /** {@code --nnodes MIN:MAX} (or N) as {min, max}. */
    private int[] hostRange() throws UsageError {
        String[] parts = nnodes == null ? new String[0] : nnodes.split(":", -1);
        try {
            int min = Integer.parseInt(parts[0].strip());
            int max = parts.length == 1 ? min : Integer.parseInt(parts[1].strip());
            if (parts.length <= 2 && min >= 1 && max >= min) {
                return new int[] {min, max};
            }
        } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
            // said below
        }
        throw new UsageError("--nnodes expects MIN:MAX hosts (1 <= MIN <= MAX) or N, found " + (nnodes == null
                ? "none (--rdzv goes with it)" : nnodes));
    }

    /** {@code --rdzv HOST:PORT}, resolved. */
    private InetSocketAddress rdzvAddress() throws UsageError {
        int colon = rdzv == null ? -1 : rdzv.lastIndexOf(':');
        try {
            InetSocketAddress a = new InetSocketAddress(rdzv.substring(0, colon), Integer.parseInt(rdzv
                    .substring(colon + 1)));
            if (!a.isUnresolved()) {
                return a;
            }
        } catch (RuntimeException e) {
            // said below
        }
        throw new UsageError("--rdzv expects HOST:PORT of the store (a host every host reaches), found " + (rdzv
                == null ? "none" : rdzv));
    }

    /** The store's socket when {@code store} is an address of this host whose port no launcher here has bound. */
    private static ServerSocket bindStore(InetSocketAddress store) throws IOException {
        InetAddress a = store.getAddress();
        if (!a.isLoopbackAddress() && !a.isAnyLocalAddress() && NetworkInterface.getByInetAddress(a) == null) {
            return null;
        }
        ServerSocket socket = new ServerSocket();
        try {
            socket.bind(store, 50);
            return socket;
        } catch (BindException e) {
            socket.close();
            return null; // another launcher of this host runs the store
        }
    }

    /**
     * One round on this host, as the store said: its ranks (and the parameter-server processes, when the store put
     * them here) as {@code lgc worker}s of the round's K, rank 0 at the round's address; until they end or
     * {@code stop}.
     */
    private Agent.Result runRound(Message round, String advertise, int services, Path tokenFile, BooleanSupplier stop)
            throws IOException, InterruptedException {
        Path runDir = Path.of(round.runDir());
        String notShared = Agent.notShared(runDir, round.marker());
        if (notShared != null) {
            return new Agent.Result(2, true, notShared, false);
        }
        int workers = round.workers();
        int shards = round.servers();
        List<String> command = program != null ? program : workerCommand(runDir, round.resumeStep(), shards
                != services ? Integer.valueOf(shards) : servers, round.allowResize());
        List<Integer> endpoints = new ArrayList<>();
        for (int r = round.first(); r < round.first() + nproc && r < workers; r++) {
            endpoints.add(r);
        }
        for (int s = 0; round.services() && !colocate && s < shards; s++) {
            endpoints.add(workers + s);
        }
        System.out.println("lgc launch: round " + round.round() + " here: ranks " + round.first() + ".."
                + (round.first() + nproc - 1) + " of K = " + workers + (endpoints.size() > nproc ? " and the " + shards
                + " parameter-server process" + (shards > 1 ? "es" : "") : "") + "; rank 0 at " + round.advertise()
                + ":" + round.port());
        EmulatedHosts plain = EmulatedHosts.create(0, null, 0);
        try (ProcessGroup group = new ProcessGroup("lgc launch")) {
            for (int e : endpoints) {
                ProcessBuilder pb = new ProcessBuilder(command);
                identity(pb.environment(), plain, e, workers, round.port(), round.job(), round.round(), tokenFile);
                if (program != null) {
                    programEnvironment(pb.environment(), shards, runDir, round.resumeStep(), round.allowResize());
                }
                pb.environment().put("LGC_MASTER_ADDR", round.advertise());
                pb.environment().put("LGC_ADVERTISE_ADDR", advertise);
                pb.environment().put(StopReport.ENV_DIR, group.failureDir().toString());
                group.start(e < workers ? "rank " + e : shards == 1 ? "server" : "server " + (e - workers), pb);
            }
            ProcessGroup.Outcome outcome = group.await(graceSeconds, stop);
            return new Agent.Result(outcome.status(), outcome.status() != StopReport.LOST_PEER_STATUS,
                    outcome.describe(), outcome.stoppedAsAsked());
        }
    }

    private int launch(EmulatedHosts hosts, int workers, int services, Path tokenFile, int attempt, Path runDir,
                       long resumeStep, BooleanSupplier stop, boolean fewerShards)
            throws IOException, InterruptedException {
        int port = masterPort != null && attempt == 0 ? masterPort : freePort();
        String job = "launch-" + new String(JobToken.generate(), 0, 12, StandardCharsets.US_ASCII);
        if (program != null) {
            return launchProgram(hosts, workers, services, tokenFile, attempt, runDir, resumeStep, port, job, stop);
        }
        List<String> command = workerCommand(runDir, resumeStep, fewerShards ? Integer.valueOf(services) : servers,
                allowResize());
        int endpoints = colocate ? workers : workers + services;
        System.out.println("lgc launch: job " + job + ": " + workers + " worker process" + (workers > 1 ? "es" : "")
                + (colocate ? " (" + services + " of them also run a parameter-server shard)"
                : services > 0 ? " and " + services + " parameter-server process" + (services > 1 ? "es" : "") : "")
                + (hosts.namespaced() ? " in network namespaces " + hosts.address(0) + ".." + hosts.address(endpoints
                - 1) : " on 127.0.0.1") + ", rank 0 listening on port " + port + (tlsDir != null ? ", mutual TLS" : ""));
        try (ProcessGroup group = new ProcessGroup("lgc launch")) {
            for (int e = 0; e < endpoints; e++) {
                String name = e < workers ? "rank " + e : services == 1 ? "server" : "server " + (e - workers);
                ProcessBuilder pb = new ProcessBuilder(hosts.wrap(e, command));
                identity(pb.environment(), hosts, e, workers, port, job, attempt, tokenFile);
                pb.environment().put(StopReport.ENV_DIR, group.failureDir().toString());
                group.start(name, pb);
            }
            ProcessGroup.Outcome outcome = group.await(graceSeconds, stop);
            lastFailure = outcome.describe();
            lastFailed = outcome.firstFailed();
            return outcome.status();
        }
    }

    /**
     * CONFIG mode: what every process of an attempt runs, an {@code lgc worker} of the config, with {@code shards}
     * shards when not null (--servers, or fewer co-located shards at a smaller K).
     */
    private List<String> workerCommand(Path runDir, long resumeStep, Integer shards, boolean allowResize) {
        List<String> command = new ArrayList<>();
        command.add(javaExecutable());
        command.addAll(javaOptions());
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), LgcCommand.class.getName(), "worker",
                config.toString(), "--exit-with-stdin"));
        command.addAll(options.forward());
        if (shards != null) {
            command.addAll(List.of("--servers", String.valueOf(shards)));
        }
        if (colocate) {
            command.add("--colocate");
        }
        if (sessionEndpoints > 0) {
            command.addAll(List.of("--session-endpoints", String.valueOf(sessionEndpoints)));
        }
        if (adviseOnly) {
            command.add("--advise-only");
        }
        if (runDir != null) {
            command.addAll(List.of("--run-dir", runDir.toString()));
        }
        if (resumeStep >= 0) {
            command.addAll(List.of("--resume-step", String.valueOf(resumeStep)));
            if (allowResize) {
                command.add("--allow-resize");
            }
        }
        return command;
    }

    /** Whether the arguments came after {@code --} (or {@code --main} was given): a program, not a CONFIG. */
    private boolean programMode() {
        return mainClass != null || spec.commandLine().getParseResult().originalArgs().contains("--");
    }

    /**
     * Program mode: the user's command, once per endpoint (K workers, then {@code --servers} S shard processes),
     * with the {@code LGC_*} environment its {@code DistributedTrainer.Builder#fromEnvironment()} reads.
     */
    private int launchProgram() throws UsageError, IOException, InterruptedException {
        checkProgramOptions();
        if (nnodes != null || rdzv != null) {
            return launchHosts();
        }
        if (options.trace != null) {
            trace = programTrace();
        }
        nproc = nprocOption;
        JobPlan plan = planProgram();
        LinkShape shape = linkShape();
        int processes = nproc + plan.services();
        EmulatedHosts hosts = createHosts(processes, shape);
        try (hosts) {
            if (threadsOption != null) {
                threads = resolveThreads(processes);
            }
            jit = resolveJit(processes, mainClass == null);
            program = programCommand(); // --main's java options carry the JIT: after it is resolved
            int status = launchAttempts(hosts, plan.services(), plan.runDir(), plan.resumeStep());
            return status == 0 && trace.on() ? mergeTrace(plan.runDir()) : status;
        } catch (FabricException e) {
            System.err.println("lgc launch: " + e.getMessage());
            return 1;
        }
    }

    /** Program mode: the options a program needs (--nproc, one command) and those it cannot take. */
    private void checkProgramOptions() throws UsageError {
        String usage = null;
        if (nprocOption == null) {
            usage = "a program needs --nproc K (no config says how many workers it has)";
        } else if (mainClass != null && !arguments.isEmpty()) {
            usage = "give the program either after -- or as --main CLASS, not both (found --main " + mainClass
                    + " and " + arguments + ")";
        } else if (mainClass == null && arguments.isEmpty()) {
            usage = "no command after --: e.g. lgc launch --nproc 2 -- java -cp app.jar com.example.Train";
        } else if (mainClass != null && classPath == null) {
            usage = "--main " + mainClass + " needs --classpath CP";
        } else if (servers != null && servers < 1) {
            usage = "--servers must be >= 1, found " + servers;
        } else if (colocate) {
            usage = "--colocate is a CONFIG mode option: a program runs its shards inside the workers unless"
                    + " --servers starts them as processes of their own";
        } else if (threadsOption != null && ComputeThreads.problem(threadsOption) != null) {
            usage = "--threads " + ComputeThreads.problem(threadsOption);
        } else if (options.trace == null && options.traceSteps != null) {
            usage = "--trace-steps " + options.traceSteps + " has no trace to bound: add --trace FILE";
        }
        if (usage != null) {
            throw new UsageError(usage);
        }
    }

    /** Program mode, with --trace: the trace of every process, its file and --trace-steps. */
    private TraceSection programTrace() throws UsageError {
        String steps = StepRange.ALL.toString();
        if (options.traceSteps != null) {
            try {
                steps = StepRange.parse(options.traceSteps, "--trace-steps").toString();
            } catch (IllegalArgumentException e) {
                throw new UsageError(e.getMessage());
            }
        }
        // absolute, so that every process writes beside the same file; the program reads it from the environment
        // (DistributedTrainer.Builder#fromEnvironment) and the launcher merges the processes' files at the end
        return new TraceSection(Path.of(options.trace).toAbsolutePath().toString(), steps);
    }

    /** Program mode: what every process runs, java with --main CLASS on --classpath, or the command after --. */
    private List<String> programCommand() {
        List<String> command = new ArrayList<>();
        if (mainClass != null) {
            command.add(javaExecutable());
            command.addAll(javaOptions());
            command.addAll(List.of("-cp", classPath, mainClass));
        } else {
            command.addAll(arguments);
        }
        return command;
    }

    /**
     * Program mode: where the job starts: --resume's run from its latest complete checkpoint, else --run-dir, else
     * with --max-restarts a new run directory; the directory is created. The shards run in the workers unless
     * --servers starts them as processes.
     */
    private JobPlan planProgram() throws UsageError, IOException {
        if (agentOnly) {
            return new JobPlan(servers == null ? 0 : servers, null, -1);
        }
        Path runDir = resume != null ? resume : programRunDir;
        long resumeStep = -1;
        if (resume != null) {
            resumeStep = latestStep(resume);
            if (resumeStep < 0) {
                throw new UsageError("cannot resume " + resume + ": no complete checkpoint in "
                        + CheckpointDirectory.in(resume).root());
            }
        } else if (runDir == null && (maxRestarts > 0 || nnodes != null)) {
            runDir = ExperimentRunner.newRunDirectory(Path.of(options.outputDir != null ? options.outputDir
                    : "results"), "launch");
        }
        if (runDir != null) {
            Files.createDirectories(runDir);
        }
        return new JobPlan(servers == null ? 0 : servers, runDir, resumeStep);
    }

    /** The java of this JVM, which every process runs. */
    private static String javaExecutable() {
        return ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    /** Program mode: the user's command ({@code null}: CONFIG mode, every process an {@code lgc worker}). */
    private List<String> program;

    /** The environment every launched process gets, in either mode: who it is, the job, the token, TLS. */
    private void identity(Map<String, String> env, EmulatedHosts hosts, int e, int workers, int port, String job,
                          int attempt, Path tokenFile) {
        env.put("LGC_RANK", String.valueOf(e));
        env.put("LGC_WORLD_SIZE", String.valueOf(workers));
        env.put("LGC_MASTER_ADDR", hosts.address(0));
        env.put("LGC_MASTER_PORT", String.valueOf(port));
        env.put("LGC_JOB_ID", job);
        env.put("LGC_ATTEMPT", String.valueOf(attempt));
        env.put("LGC_TOKEN_FILE", tokenFile.toString());
        env.remove("LGC_TOKEN");
        if (hosts.namespaced()) {
            env.put("LGC_BIND_ADDR", hosts.address(e));
        }
        if (tlsDir != null) {
            env.put("LGC_TLS_CERT", tlsDir.resolve(tlsHost + ".crt").toString());
            env.put("LGC_TLS_KEY", tlsDir.resolve(tlsHost + ".key").toString());
            env.put("LGC_TLS_CA", tlsDir.resolve("ca.crt").toString());
        }
        if (program != null && trace.on()) {
            env.put(TraceSettings.ENV_FILE, trace.file());
            env.put(TraceSettings.ENV_STEPS, trace.steps());
        }
        if (threads == null) {
            env.putIfAbsent("OMP_NUM_THREADS", "1");
        } else {
            env.put("OMP_NUM_THREADS", String.valueOf(threads.threads()));
            env.put(ComputeThreads.ENV_THREADS, String.valueOf(threads.threads()));
            env.put(ComputeThreads.ENV_REASON, threads.reason());
        }
    }

    /**
     * The threads of every process, {@code processes} of them on this machine: each has its --cpu-share when one is
     * given, else shares the CPUs this launcher may use. Says so, and when it replaces the caller's OMP_NUM_THREADS.
     */
    private ComputeThreads resolveThreads(int processes) {
        ComputeThreads t = ComputeThreads.resolve(threadsOption, eachProcess(), processes);
        String inherited = System.getenv("OMP_NUM_THREADS");
        boolean replaced = inherited != null && !inherited.strip().equals(String.valueOf(t.threads()));
        if (replaced || t.threads() != 1 || t.requested().equals(ComputeThreads.AUTO)) {
            System.out.println("lgc launch: " + t.threads() + " OpenMP thread" + (t.threads() == 1 ? "" : "s")
                    + " per process (" + t.reason() + ")" + (replaced ? "; OMP_NUM_THREADS=" + inherited
                    + " from the environment replaced" : ""));
        }
        return t;
    }

    /** The CPU limits of each process: its --cpu-share when one is given, else this launcher's, shared. */
    private CpuLimits eachProcess() {
        CpuLimits own = CpuLimits.ofThisProcess();
        return cpuShare > 0 ? new CpuLimits(own.onlineCpus(), own.affinityCpus(), cpuShare, "--cpu-share") : own;
    }

    /** --java-opts (else the defaults) with the JIT's flag ({@link WorkerJit#appliedTo}). */
    private List<String> javaOptions() {
        return jit.appliedTo(Arrays.asList((javaOpts == null || javaOpts.isBlank() ? DEFAULT_JAVA_OPTS : javaOpts)
                .strip().split("\\s+")));
    }

    /**
     * The JIT of every process, {@code processes} of them on this machine ({@link WorkerJit}); says when C1 alone, or
     * when the user's own command ({@code ownCommand}: program mode after --) should choose it.
     */
    private WorkerJit resolveJit(int processes, boolean ownCommand) {
        WorkerJit j = WorkerJit.resolve(jitOption, eachProcess(), processes);
        if (j.c1Only() && ownCommand) {
            System.out.println("lgc launch: your command chooses its own JIT; with less than a core per process, add "
                    + String.join(" ", j.flags()) + " to its java options (" + j.reason() + ")");
        } else if (j.c1Only()) {
            System.out.println("lgc launch: the C1 JIT alone in every process, compiling early ("
                    + String.join(" ", j.flags()) + "; " + j.reason() + ")");
        }
        return j;
    }

    /** The command as the launch line shows it: a class path after -cp/-classpath/--class-path by its length. */
    static String shortened(List<String> command) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < command.size(); i++) {
            String arg = command.get(i);
            boolean classPath = i > 0 && List.of("-cp", "-classpath", "--class-path").contains(command.get(i - 1));
            line.append(i > 0 ? " " : "").append(classPath && arg.length() > 60
                    ? "<class path of " + arg.split(File.pathSeparator).length + " entries>" : arg);
        }
        return line.toString();
    }

    /**
     * Program mode, one attempt: the user's command per endpoint, with the identity, LGC_SERVERS (only with
     * --servers), LGC_RUN_DIR, LGC_RESUME_STEP (a restart, or --resume), LGC_ALLOW_RESIZE (--resize) and
     * LGC_LAUNCHER_PID.
     */
    private int launchProgram(EmulatedHosts hosts, int workers, int services, Path tokenFile, int attempt,
                              Path runDir, long resumeStep, int port, String job, BooleanSupplier stop)
            throws IOException, InterruptedException {
        int endpoints = workers + services;
        System.out.println("lgc launch: job " + job + ": " + shortened(program) + " as " + workers
                + " worker process" + (workers > 1 ? "es" : "") + (services > 0 ? " and " + services
                + " parameter-server process" + (services > 1 ? "es" : "") : "")
                + (hosts.namespaced() ? " in network namespaces " + hosts.address(0) + ".."
                + hosts.address(endpoints - 1) : " on 127.0.0.1") + ", rank 0 listening on port " + port
                + (tlsDir != null ? ", mutual TLS" : ""));
        try (ProcessGroup group = new ProcessGroup("lgc launch")) {
            for (int e = 0; e < endpoints; e++) {
                String name = e < workers ? "rank " + e : services == 1 ? "server" : "server " + (e - workers);
                ProcessBuilder pb = new ProcessBuilder(hosts.wrap(e, program));
                Map<String, String> env = pb.environment();
                identity(env, hosts, e, workers, port, job, attempt, tokenFile);
                programEnvironment(env, services, runDir, resumeStep, allowResize());
                env.put(StopReport.ENV_DIR, group.failureDir().toString());
                group.start(name, pb);
            }
            ProcessGroup.Outcome outcome = group.await(graceSeconds, stop);
            lastFailure = outcome.describe();
            lastFailed = outcome.firstFailed();
            return outcome.status();
        }
    }

    /**
     * Program mode: what a program's process reads besides its identity: LGC_SERVERS (with --servers), its run
     * directory, the checkpoint it resumes from and whether at another K, the launcher's process.
     */
    private void programEnvironment(Map<String, String> env, int services, Path runDir, long resumeStep,
                                    boolean allowResize) {
        env.remove("LGC_SERVERS");
        env.remove("LGC_COLOCATE");
        env.remove("LGC_RUN_DIR");
        env.remove("LGC_RESUME_STEP");
        env.remove("LGC_ALLOW_RESIZE");
        if (servers != null) {
            env.put("LGC_SERVERS", String.valueOf(services));
        }
        if (runDir != null) {
            env.put("LGC_RUN_DIR", runDir.toString());
        }
        if (resumeStep >= 0) {
            env.put("LGC_RESUME_STEP", String.valueOf(resumeStep));
            if (allowResize) {
                env.put("LGC_ALLOW_RESIZE", "true");
            }
        }
        env.put("LGC_LAUNCHER_PID", String.valueOf(ProcessHandle.current().pid()));
    }

    /**
     * A port free a moment ago for rank 0, below Linux's ephemeral range (32768–60999): the other processes bind port
     * 0, and an ephemeral port could be handed to one of them before rank 0 binds it.
     */
    private static int freePort() throws IOException {
        IOException last = null;
        for (int attempt = 0; attempt < 100; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(20_000, 32_000);
            try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                return s.getLocalPort();
            } catch (IOException e) {
                last = e;
            }
        }
        throw new IOException("no free port for rank 0 in 20000..31999", last);
    }
}

package io.lgc4j.core.runtime;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/**
 * Who this process is in a launched job, read once from the launcher's {@code LGC_*} environment variables (each one:
 * docs/manual.md, "One process per rank"); it opens no sockets and reads no files. A component is {@code null} (or
 * its stated default) when its variable is unset; the {@code require…} methods name the missing variable and option.
 * <pre>{@code
 * LaunchEnvironment env = LaunchEnvironment.current();
 * if (env.launched()) { int rank = env.requireRank(); int workers = env.requireWorldSize(); }
 * }</pre>
 * {@link #worldSize()}, {@link #servers()}, {@link #colocate()}, {@link #runDir()} and {@link #resumeStep()} read one
 * part's component for the callers that need just that one.
 *
 * @param rendezvous  LGC_RANK, LGC_WORLD_SIZE, LGC_MASTER_ADDR, LGC_MASTER_PORT, LGC_JOB_ID, LGC_ATTEMPT
 * @param listen      LGC_BIND_ADDR, LGC_PORT, LGC_ADVERTISE_ADDR
 * @param credentials LGC_TOKEN_FILE, LGC_TOKEN, LGC_TLS_CERT, LGC_TLS_KEY, LGC_TLS_CA
 * @param shards      LGC_COLOCATE, LGC_SERVERS
 * @param resume      LGC_RUN_DIR, LGC_RESUME_STEP
 * @param launcherPid LGC_LAUNCHER_PID, the launcher's process (this one halts when it is gone), or null
 */
public record LaunchEnvironment(Rendezvous rendezvous, Listen listen, Credentials credentials, Shards shards,
                                Resume resume, Long launcherPid) {

    /**
     * Who this process is in the job and where it meets the others.
     *
     * @param rank       LGC_RANK: 0..K-1 a worker, K.. a parameter-server endpoint; null: not launched
     * @param worldSize  LGC_WORLD_SIZE, K
     * @param masterAddr LGC_MASTER_ADDR, rank 0's host
     * @param masterPort LGC_MASTER_PORT, the port rank 0 listens on
     * @param jobId      LGC_JOB_ID, the same text on every process of the job
     * @param attempt    LGC_ATTEMPT, default 0
     */
    public record Rendezvous(Integer rank, Integer worldSize, String masterAddr, Integer masterPort, String jobId,
                             int attempt) {
    }

    /**
     * Where this process listens, and the address it gives the others.
     *
     * @param bindAddr      LGC_BIND_ADDR, or null (see {@link LaunchEnvironment#bindAddress()})
     * @param port          LGC_PORT, default 0: any free port
     * @param advertiseAddr LGC_ADVERTISE_ADDR, the address others dial, or null: derived
     */
    public record Listen(String bindAddr, int port, String advertiseAddr) {
    }

    /**
     * The job token and the mutual-TLS files.
     *
     * @param tokenFile LGC_TOKEN_FILE, the job token's file (readable by its owner only), or null
     * @param token     LGC_TOKEN, or null; never shown by {@link #toString()}
     * @param tlsCert   LGC_TLS_CERT (mutual TLS), or null
     * @param tlsKey    LGC_TLS_KEY, or null
     * @param tlsCa     LGC_TLS_CA, or null
     */
    public record Credentials(Path tokenFile, String token, Path tlsCert, Path tlsKey, Path tlsCa) {

        /**
         * LGC_TLS_CERT, LGC_TLS_KEY and LGC_TLS_CA: all three, or none (false).
         *
         * @throws IllegalArgumentException when one or two are set
         */
        public boolean tls() {
            int files = (tlsCert != null ? 1 : 0) + (tlsKey != null ? 1 : 0) + (tlsCa != null ? 1 : 0);
            if (files != 0 && files != 3) {
                throw new IllegalArgumentException("mutual TLS needs all three of --tls-cert, --tls-key and --tls-ca"
                        + " (or LGC_TLS_CERT, LGC_TLS_KEY, LGC_TLS_CA), found " + files);
            }
            return files == 3;
        }

        /** Never shows the token. */
        @Override
        public String toString() {
            return "Credentials[tokenFile=" + tokenFile + ", token=" + (token != null ? "(LGC_TOKEN)" : "none")
                    + ", tlsCert=" + tlsCert + ", tlsKey=" + tlsKey + ", tlsCa=" + tlsCa + "]";
        }
    }

    /**
     * Where the parameter-server shards run.
     *
     * @param colocate LGC_COLOCATE, default false
     * @param servers  LGC_SERVERS, how many shards, or null
     */
    public record Shards(boolean colocate, Integer servers) {

        /**
         * Whether parameter-server shards run inside the worker processes (shard s in rank s mod K's): LGC_COLOCATE,
         * or LGC_SERVERS unset (a launcher that starts shard processes of their own sets it). {@code lgc worker
         * CONFIG} decides by its {@code --colocate} alone, since its config says how many shards there are.
         */
        public boolean colocated() {
            return colocate || servers == null;
        }
    }

    /**
     * The run this process continues, if any.
     *
     * @param runDir      LGC_RUN_DIR, the run's directory (checkpoints), or null
     * @param resumeStep  LGC_RESUME_STEP, default -1: start at step 0
     * @param allowResize LGC_ALLOW_RESIZE: the checkpoint may have been written by another number of workers
     *                    ({@code lgc launch --resize}; {@code DistributedTrainer.Builder#allowResize})
     */
    public record Resume(Path runDir, long resumeStep, boolean allowResize) {

        /** A resume step needs the directory that holds its checkpoint. */
        public Resume {
            if (resumeStep >= 0 && runDir == null) {
                throw new IllegalArgumentException("--resume-step needs --run-dir (or LGC_RUN_DIR): the directory"
                        + " whose checkpoints/ holds step-" + String.format("%06d", resumeStep));
            }
        }

        /** A resume at the checkpoint's own K. */
        public Resume(Path runDir, long resumeStep) {
            this(runDir, resumeStep, false);
        }
    }

    /** Not launched: every variable unset. */
    public static final LaunchEnvironment NONE = read(Map.of());

    /** The option of {@code lgc worker} that overrides each variable, for messages. */
    private static final Map<String, String> OPTIONS = Map.ofEntries(
            Map.entry("LGC_RANK", "--rank"), Map.entry("LGC_WORLD_SIZE", "--world-size"),
            Map.entry("LGC_MASTER_ADDR", "--master-addr"), Map.entry("LGC_MASTER_PORT", "--master-port"),
            Map.entry("LGC_JOB_ID", "--job-id"), Map.entry("LGC_ATTEMPT", "--attempt"),
            Map.entry("LGC_BIND_ADDR", "--bind-addr"), Map.entry("LGC_PORT", "--port"),
            Map.entry("LGC_ADVERTISE_ADDR", "--advertise-addr"), Map.entry("LGC_TOKEN_FILE", "--token-file"),
            Map.entry("LGC_TLS_CERT", "--tls-cert"), Map.entry("LGC_TLS_KEY", "--tls-key"),
            Map.entry("LGC_TLS_CA", "--tls-ca"), Map.entry("LGC_COLOCATE", "--colocate"),
            Map.entry("LGC_SERVERS", "--servers"), Map.entry("LGC_RUN_DIR", "--run-dir"),
            Map.entry("LGC_RESUME_STEP", "--resume-step"), Map.entry("LGC_ALLOW_RESIZE", "--allow-resize"));

    /** Rejects a missing part: an unset variable is a part's null component, never a null part. */
    public LaunchEnvironment {
        Objects.requireNonNull(rendezvous, "rendezvous");
        Objects.requireNonNull(listen, "listen");
        Objects.requireNonNull(credentials, "credentials");
        Objects.requireNonNull(shards, "shards");
        Objects.requireNonNull(resume, "resume");
    }

    /** This process's environment: {@code read(System.getenv())}. */
    public static LaunchEnvironment current() {
        return read(System.getenv());
    }

    /**
     * Reads the {@code LGC_*} variables of {@code variables}; a blank value counts as unset.
     *
     * @throws IllegalArgumentException naming the variable (and its option) whose value is not of its type
     */
    public static LaunchEnvironment read(Map<String, String> variables) {
        Objects.requireNonNull(variables, "variables");
        Integer attempt = integer(variables, "LGC_ATTEMPT");
        Integer port = integer(variables, "LGC_PORT");
        Long resume = longValue(variables, "LGC_RESUME_STEP");
        boolean colocate = bool(variables, "LGC_COLOCATE");
        boolean allowResize = bool(variables, "LGC_ALLOW_RESIZE");
        Rendezvous rendezvous = new Rendezvous(integer(variables, "LGC_RANK"), integer(variables, "LGC_WORLD_SIZE"),
                text(variables, "LGC_MASTER_ADDR"), integer(variables, "LGC_MASTER_PORT"),
                text(variables, "LGC_JOB_ID"), attempt == null ? 0 : attempt);
        Listen listen = new Listen(text(variables, "LGC_BIND_ADDR"), port == null ? 0 : port,
                text(variables, "LGC_ADVERTISE_ADDR"));
        Credentials credentials = new Credentials(path(variables, "LGC_TOKEN_FILE"), variables.get("LGC_TOKEN"),
                path(variables, "LGC_TLS_CERT"), path(variables, "LGC_TLS_KEY"), path(variables, "LGC_TLS_CA"));
        Shards shards = new Shards(colocate, integer(variables, "LGC_SERVERS"));
        Path runDir = path(variables, "LGC_RUN_DIR");
        // every variable parsed before the parts' checks, so a malformed one is reported first
        Long launcherPid = longValue(variables, "LGC_LAUNCHER_PID");
        return new LaunchEnvironment(rendezvous, listen, credentials, shards,
                new Resume(runDir, resume == null ? -1 : resume, allowResize), launcherPid);
    }

    /** A variable that is true or false (unset: false). */
    private static boolean bool(Map<String, String> variables, String name) {
        String value = text(variables, name);
        if (value != null && !value.equalsIgnoreCase("true") && !value.equalsIgnoreCase("false")) {
            throw new IllegalArgumentException(describe(name) + " must be true or false, found '" + value + "'");
        }
        return Boolean.parseBoolean(value);
    }

    /** Whether a launcher started this process: {@code LGC_RANK} is set. */
    public boolean launched() {
        return rendezvous.rank() != null;
    }

    /** LGC_RANK: this process's endpoint. */
    public int requireRank() {
        return require("rank", "LGC_RANK", rendezvous.rank());
    }

    /** LGC_WORLD_SIZE: K, the number of worker ranks. */
    public int requireWorldSize() {
        int k = require("world size", "LGC_WORLD_SIZE", rendezvous.worldSize());
        if (k < 1) {
            throw new IllegalArgumentException(describe("LGC_WORLD_SIZE") + " must be >= 1, found " + k);
        }
        return k;
    }

    /** LGC_MASTER_ADDR: rank 0's host. */
    public String requireMasterAddr() {
        return require("master address", "LGC_MASTER_ADDR", rendezvous.masterAddr());
    }

    /** LGC_MASTER_PORT: the port rank 0 listens on. */
    public int requireMasterPort() {
        return require("master port", "LGC_MASTER_PORT", rendezvous.masterPort());
    }

    /** LGC_JOB_ID: the job's id, the same text on every process. */
    public String requireJobId() {
        return require("job id", "LGC_JOB_ID", rendezvous.jobId());
    }

    /**
     * Where this process listens: LGC_BIND_ADDR; else the master address when that is a loopback address (one
     * machine); else every interface, 0.0.0.0.
     */
    public String bindAddress() {
        if (listen.bindAddr() != null) {
            return listen.bindAddr();
        }
        String master = requireMasterAddr();
        try {
            return InetAddress.getByName(master).isLoopbackAddress() ? master : "0.0.0.0";
        } catch (UnknownHostException e) {
            return "0.0.0.0";
        }
    }

    /** Never shows the token. */
    @Override
    public String toString() {
        return "LaunchEnvironment[rank=" + rendezvous.rank() + ", worldSize=" + rendezvous.worldSize() + ", master="
                + rendezvous.masterAddr() + ":" + rendezvous.masterPort() + ", jobId=" + rendezvous.jobId()
                + ", attempt=" + rendezvous.attempt() + ", servers=" + shards.servers() + ", colocate="
                + shards.colocate() + ", runDir=" + resume.runDir() + ", resumeStep=" + resume.resumeStep()
                + ", token=" + (credentials.tokenFile() != null ? credentials.tokenFile()
                : credentials.token() != null ? "(LGC_TOKEN)" : "none") + "]";
    }

    private static <T> T require(String what, String variable, T value) {
        if (value == null) {
            throw new IllegalArgumentException("the " + what + " is missing: set " + variable
                    + (OPTIONS.containsKey(variable) ? " or " + OPTIONS.get(variable) : ""));
        }
        return value;
    }

    private static String describe(String variable) {
        return OPTIONS.containsKey(variable) ? variable + " (" + OPTIONS.get(variable) + ")" : variable;
    }

    private static String text(Map<String, String> variables, String name) {
        String value = variables.get(name);
        return value == null || value.isBlank() ? null : value.strip();
    }

    private static Path path(Map<String, String> variables, String name) {
        String value = text(variables, name);
        return value == null ? null : Path.of(value);
    }

    private static Integer integer(Map<String, String> variables, String name) {
        String value = text(variables, name);
        if (value == null) {
            return null;
        }
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(describe(name) + " must be a whole number, found '" + value + "'", e);
        }
    }

    private static Long longValue(Map<String, String> variables, String name) {
        String value = text(variables, name);
        if (value == null) {
            return null;
        }
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(describe(name) + " must be a whole number, found '" + value + "'", e);
        }
    }
}

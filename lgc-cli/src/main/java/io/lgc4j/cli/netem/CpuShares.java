package io.lgc4j.cli.netem;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An equal, fixed CPU share for each of N processes, so K ranks of one method get the same compute as K ranks of
 * another: one cgroup per process, capped by the kernel's CFS bandwidth control at {@code coresEach} cores (cgroup v2
 * {@code cpu.max}, else v1's {@code cpu.cfs_quota_us}; {@link #create} refuses, naming what it looked for, when
 * neither is usable). {@link #wrap} makes a process enter its cgroup before it executes, so every thread is capped
 * from the start. {@link #close()} kills (by pid) what is left in the cgroups and removes them; it is idempotent and
 * a shutdown hook. Details: {@code docs/architecture/slow-links.md}.
 *
 * <pre>{@code
 * try (CpuShares cpu = CpuShares.create(4, 0.4)) {
 *     new ProcessBuilder(cpu.wrap(2, List.of("java", "-jar", "lgc.jar", "worker", "cfg.yaml"))).start();
 * }
 * }</pre>
 */
public final class CpuShares implements AutoCloseable {

    /** The CFS period, microseconds, unless one is given: the kernel's default. */
    public static final long PERIOD_US = 100_000;
    /** The shortest period the kernel accepts, microseconds. */
    public static final long MIN_PERIOD_US = 1_000;
    /** The longest period the kernel accepts, microseconds. */
    public static final long MAX_PERIOD_US = 1_000_000;

    private static final AtomicInteger GROUPS = new AtomicInteger();

    /** Which interface the kernel offers. */
    public enum Mechanism {
        /** cgroup v2 {@code cpu.max}. */
        CGROUP_V2,
        /** cgroup v1 {@code cpu.cfs_quota_us}. */
        CGROUP_V1
    }

    private final Mechanism mechanism;
    private final double coresEach;
    private final long periodUs;
    /** The cgroups made so far, removed at close. */
    private final List<Path> groups = new CopyOnWriteArrayList<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread hook;

    private CpuShares(Mechanism mechanism, double coresEach, long periodUs) {
        this.mechanism = mechanism;
        this.coresEach = coresEach;
        this.periodUs = periodUs;
        this.hook = new Thread(this::teardown, "lgc-cpu-shares-teardown");
    }

    /**
     * Creates {@code processes} cgroups, each capped at {@code coresEach} cores.
     *
     * @throws FabricException when not root, when no cgroup cpu controller is writable, or a write fails
     */
    public static CpuShares create(int processes, double coresEach) {
        return create(processes, coresEach, PERIOD_US);
    }

    /**
     * Creates {@code processes} cgroups, each capped at {@code coresEach} cores over CFS periods of {@code periodUs}:
     * a shorter period throttles in shorter, more frequent pauses (the same share), a longer one in fewer, longer.
     *
     * @throws IllegalArgumentException naming the period when it is outside the kernel's 1 ms .. 1 s
     * @throws FabricException          when not root, when no cgroup cpu controller is writable, or a write fails
     */
    public static CpuShares create(int processes, double coresEach, long periodUs) {
        checkPeriod(periodUs);
        HostCommands.requireRoot("fixed CPU shares");
        if (processes < 1 || !(coresEach >= 0.01)) {
            throw new IllegalArgumentException("CPU shares need processes >= 1 and at least 0.01 cores each, found "
                    + processes + " and " + coresEach);
        }
        Path v2 = cgroup2WithCpu();
        Mechanism mechanism = v2 != null ? Mechanism.CGROUP_V2 : Mechanism.CGROUP_V1;
        Path parent = v2 != null ? v2 : cgroup1Cpu();
        if (parent == null) {
            throw new FabricException("fixed CPU shares need a writable cgroup cpu controller: found no cgroup2"
                    + " mount whose cgroup.controllers lists cpu, and no cgroup v1 mount with the cpu controller"
                    + " (/proc/self/mountinfo)");
        }
        String prefix = "lgc" + ProcessHandle.current().pid() + "c" + GROUPS.incrementAndGet();
        CpuShares shares = new CpuShares(mechanism, coresEach, periodUs);
        Runtime.getRuntime().addShutdownHook(shares.hook);
        long quota = shares.quotaUs();
        try {
            if (mechanism == Mechanism.CGROUP_V2) {
                write(parent.resolve("cgroup.subtree_control"), "+cpu");
            }
            for (int i = 0; i < processes; i++) {
                Path g = parent.resolve(prefix + "-" + i);
                try {
                    Files.createDirectory(g);
                } catch (IOException e) {
                    throw new FabricException("cannot create cgroup " + g + ": " + e, e);
                }
                shares.groups.add(g);
                if (mechanism == Mechanism.CGROUP_V2) {
                    write(g.resolve("cpu.max"), quota + " " + periodUs);
                } else {
                    write(g.resolve("cpu.cfs_period_us"), String.valueOf(periodUs));
                    write(g.resolve("cpu.cfs_quota_us"), String.valueOf(quota));
                }
            }
            return shares;
        } catch (RuntimeException e) {
            try {
                shares.close();
            } catch (RuntimeException teardown) {
                e.addSuppressed(teardown);
            }
            throw e;
        }
    }

    /**
     * Checks a CFS period against the kernel's bounds.
     *
     * @throws IllegalArgumentException naming the period and the bounds
     */
    public static void checkPeriod(long periodUs) {
        if (periodUs < MIN_PERIOD_US || periodUs > MAX_PERIOD_US) {
            throw new IllegalArgumentException("the CFS period must be 1 to 1000 ms (the kernel's bounds), found "
                    + periodUs / 1000.0 + " ms");
        }
    }

    private long quotaUs() {
        return Math.max(1_000, Math.round(coresEach * periodUs));
    }

    /** The CFS period, microseconds. */
    public long periodUs() {
        return periodUs;
    }

    /** Which kernel interface caps the processes. */
    public Mechanism mechanism() {
        return mechanism;
    }

    /** Cores each process may use. */
    public double coresEach() {
        return coresEach;
    }

    /** Number of processes (cgroups). */
    public int processes() {
        return groups.size();
    }

    /** The cgroup of process {@code i}. */
    public Path group(int i) {
        return groups.get(i);
    }

    /** {@code command} started inside process {@code i}'s cgroup (the same pid once it executes). */
    public List<String> wrap(int i, List<String> command) {
        List<String> wrapped = new ArrayList<>(List.of("sh", "-c", "echo $$ > \"$0\" && exec \"$@\"",
                groups.get(i).resolve("cgroup.procs").toString()));
        wrapped.addAll(command);
        return wrapped;
    }

    /** For provenance: e.g. {@code cgroup v1 cpu.cfs_quota_us 40000 per cpu.cfs_period_us 100000 (0.40 cores) ...}. */
    public String describe() {
        long quota = quotaUs();
        return String.format(Locale.ROOT, "%s: %s, %.2f cores for each of %d processes (%d available)",
                mechanism == Mechanism.CGROUP_V2 ? "cgroup v2 cpu.max" : "cgroup v1 cpu controller",
                mechanism == Mechanism.CGROUP_V2 ? "cpu.max \"" + quota + " " + periodUs + "\""
                        : "cpu.cfs_quota_us " + quota + " per cpu.cfs_period_us " + periodUs,
                coresEach, groups.size(), Runtime.getRuntime().availableProcessors());
    }

    /** Kills (by pid) any process left in the cgroups and removes them; idempotent. */
    @Override
    public void close() {
        teardown();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or has run
        }
    }

    private void teardown() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        FabricException first = null;
        for (Path g : groups) {
            try {
                empty(g);
                Files.deleteIfExists(g);   // rmdir of a cgroup: its control files go with it
            } catch (IOException | RuntimeException e) {
                FabricException f = new FabricException("cannot remove cgroup " + g + ": " + e, e);
                if (first == null) {
                    first = f;
                } else {
                    first.addSuppressed(f);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** Kills the processes in {@code group} (they are the wrapped commands' own) and waits until it is empty. */
    private static void empty(Path group) throws IOException {
        Path procs = group.resolve("cgroup.procs");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (Files.exists(procs)) {
            List<String> pids = Files.readAllLines(procs, StandardCharsets.US_ASCII).stream()
                    .filter(s -> !s.isBlank()).toList();
            if (pids.isEmpty() || System.nanoTime() > deadline) {
                return;
            }
            for (String pid : pids) {
                ProcessHandle.of(Long.parseLong(pid.strip())).ifPresent(ProcessHandle::destroyForcibly);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static void write(Path file, String value) {
        try {
            Files.writeString(file, value, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new FabricException("cannot write \"" + value + "\" to " + file + ": " + e.getMessage(), e);
        }
    }

    /** The root of a cgroup2 mount whose controllers include cpu, or null. */
    private static Path cgroup2WithCpu() {
        for (String[] m : mounts()) {
            if (m[1].equals("cgroup2")) {
                Path root = Path.of(m[0]);
                try {
                    String controllers = Files.readString(root.resolve("cgroup.controllers"));
                    if (List.of(controllers.strip().split("\\s+")).contains("cpu") && Files.isWritable(root)) {
                        return root;
                    }
                } catch (IOException e) {
                    // not this one
                }
            }
        }
        return null;
    }

    /** This process's cgroup in the v1 cpu hierarchy, or null. */
    private static Path cgroup1Cpu() {
        for (String[] m : mounts()) {
            if (m[1].equals("cgroup") && List.of(m[2].split(",")).contains("cpu")) {
                Path root = Path.of(m[0]);
                String own = "/";
                try {
                    for (String line : Files.readAllLines(Path.of("/proc/self/cgroup"))) {
                        String[] f = line.split(":", 3);
                        if (f.length == 3 && List.of(f[1].split(",")).contains("cpu")) {
                            own = f[2];
                        }
                    }
                } catch (IOException e) {
                    // the mount's root then
                }
                Path group = root.resolve(own.substring(1));
                return Files.isWritable(group) ? group : Files.isWritable(root) ? root : null;
            }
        }
        return null;
    }

    /** (mount point, file-system type, super options) of every mount, from /proc/self/mountinfo. */
    private static List<String[]> mounts() {
        List<String[]> mounts = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
                String[] halves = line.split(" - ", 2);
                if (halves.length < 2) {
                    continue;
                }
                String[] left = halves[0].split(" ");
                String[] right = halves[1].split(" ");
                if (left.length > 4 && right.length > 2) {
                    mounts.add(new String[] {left[4], right[0], right[2]});
                }
            }
        } catch (IOException e) {
            // no mounts known
        }
        return mounts;
    }
}

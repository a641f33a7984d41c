package io.lgc4j.core.compute;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The cores a process may really use: the CPUs the scheduler lets it run on (its affinity, {@code Cpus_allowed_list}
 * in {@code /proc/self/status}) and the CFS quota of its cgroup (v2 {@code cpu.max}; v1 {@code cpu.cfs_quota_us} over
 * {@code cpu.cfs_period_us}), read from the files themselves: the JDK's {@code availableProcessors()} rounds a quota
 * of 0.4 cores up to 1. A file that is missing or unreadable leaves its limit unknown (the machine has none there).
 *
 * <pre>{@code
 * CpuLimits limits = CpuLimits.ofThisProcess();
 * double cores = limits.cores();   // 0.4 in a cgroup with cpu.max "40000 100000"; 2 on a 2-CPU machine without one
 * }</pre>
 *
 * @param onlineCpus   the machine's CPUs ({@code availableProcessors} without a quota, at least 1)
 * @param affinityCpus the CPUs this process may run on, or 0 when unknown
 * @param quotaCores   the cgroup's CPU quota in cores, or 0 when there is none or it is unknown
 * @param quotaSource  where the quota was read ("cgroup v2 cpu.max /sys/fs/cgroup/…"), or "" without one
 */
public record CpuLimits(int onlineCpus, int affinityCpus, double quotaCores, String quotaSource) {

    private static final Path PROC_SELF = Path.of("/proc/self");
    private static final Path CGROUP_ROOT = Path.of("/sys/fs/cgroup");

    /** Checks the components. */
    public CpuLimits {
        if (onlineCpus < 1 || affinityCpus < 0 || !(quotaCores >= 0)) {
            throw new IllegalArgumentException("CPU limits need onlineCpus >= 1, affinityCpus >= 0 and quotaCores >= 0,"
                    + " found " + onlineCpus + ", " + affinityCpus + ", " + quotaCores);
        }
        quotaSource = quotaSource == null ? "" : quotaSource;
    }

    /** This process's limits, read from {@code /proc/self} and {@code /sys/fs/cgroup}. */
    public static CpuLimits ofThisProcess() {
        return read(PROC_SELF, CGROUP_ROOT, Runtime.getRuntime().availableProcessors());
    }

    /**
     * The limits read from a {@code /proc/self}-like directory ({@code status}, {@code cgroup}) and a cgroup mount
     * root, for a machine of {@code onlineCpus} CPUs.
     */
    public static CpuLimits read(Path procSelf, Path cgroupRoot, int onlineCpus) {
        int affinity = 0;
        for (String line : lines(procSelf.resolve("status"))) {
            if (line.startsWith("Cpus_allowed_list:")) {
                affinity = countCpus(line.substring("Cpus_allowed_list:".length()).trim());
            }
        }
        double quota = 0;
        String source = "";
        for (String line : lines(procSelf.resolve("cgroup"))) {
            // v2: "0::/path"; v1: "4:cpu,cpuacct:/path"
            String[] f = line.split(":", 3);
            if (f.length < 3) {
                continue;
            }
            String path = f[2].startsWith("/") ? f[2].substring(1) : f[2];
            boolean v2 = f[0].equals("0") && f[1].isEmpty();
            if (!v2 && !List.of(f[1].split(",")).contains("cpu")) {
                continue;
            }
            // the quota may sit on any ancestor of the process's group: the least one limits it
            for (Path dir : ancestors(v2 ? cgroupRoot : v1Mount(cgroupRoot, f[1]), path)) {
                double q = v2 ? v2Quota(dir.resolve("cpu.max")) : v1Quota(dir);
                if (q > 0 && (quota == 0 || q < quota)) {
                    quota = q;
                    source = (v2 ? "cgroup v2 " + dir.resolve("cpu.max") : "cgroup v1 "
                            + dir.resolve("cpu.cfs_quota_us"));
                }
            }
        }
        return new CpuLimits(Math.max(1, onlineCpus), affinity, quota, source);
    }

    /**
     * The cores this process may use: the least of the machine's CPUs, its affinity and its quota (each where
     * known).
     */
    public double cores() {
        double cores = onlineCpus;
        if (affinityCpus > 0) {
            cores = Math.min(cores, affinityCpus);
        }
        if (quotaCores > 0) {
            cores = Math.min(cores, quotaCores);
        }
        return cores;
    }

    /** Whether a CFS quota limits this process. */
    public boolean hasQuota() {
        return quotaCores > 0;
    }

    /** What the limits are, for a log line and provenance: "quota 0.40 cores (cgroup v2 …), affinity 2 CPUs, …". */
    public String describe() {
        StringBuilder b = new StringBuilder();
        if (hasQuota()) {
            b.append(String.format(Locale.ROOT, "quota %.2f cores (%s), ", quotaCores, quotaSource));
        }
        if (affinityCpus > 0) {
            b.append("affinity ").append(affinityCpus).append(affinityCpus == 1 ? " CPU, " : " CPUs, ");
        }
        return b.append(onlineCpus).append(onlineCpus == 1 ? " CPU online" : " CPUs online").toString();
    }

    /** The number of CPUs in a list such as {@code 0-3,6,8-9} (7); 0 when it cannot be read. */
    static int countCpus(String list) {
        int count = 0;
        try {
            for (String part : list.split(",")) {
                String p = part.trim();
                if (p.isEmpty()) {
                    continue;
                }
                int dash = p.indexOf('-');
                count += dash < 0 ? 1 : Integer.parseInt(p.substring(dash + 1)) - Integer.parseInt(p.substring(0, dash))
                        + 1;
            }
        } catch (NumberFormatException e) {
            return 0;
        }
        return count;
    }

    /** The v1 hierarchy of the controllers {@code controllers} ("cpu,cpuacct"), as the machine mounts it. */
    private static Path v1Mount(Path cgroupRoot, String controllers) {
        for (String name : new String[] {controllers, "cpu,cpuacct", "cpu"}) {
            if (Files.isDirectory(cgroupRoot.resolve(name))) {
                return cgroupRoot.resolve(name);
            }
        }
        return cgroupRoot.resolve(controllers);
    }

    /** {@code root/path}, then each of its parents up to {@code root} itself. */
    private static List<Path> ancestors(Path root, String path) {
        ArrayList<Path> dirs = new ArrayList<>();
        Path dir = path.isEmpty() ? root : root.resolve(path);
        while (dir != null && dir.startsWith(root)) {
            dirs.add(dir);
            dir = dir.equals(root) ? null : dir.getParent();
        }
        return dirs;
    }

    /** v2 {@code cpu.max}: "max 100000" (no quota) or "40000 100000" (0.4 cores). */
    private static double v2Quota(Path cpuMax) {
        List<String> l = lines(cpuMax);
        if (l.isEmpty()) {
            return 0;
        }
        String[] f = l.get(0).trim().split("\\s+");
        try {
            return f.length == 2 && !f[0].equals("max") ? Double.parseDouble(f[0]) / Double.parseDouble(f[1]) : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** v1: {@code cpu.cfs_quota_us} (-1: no quota) over {@code cpu.cfs_period_us}. */
    private static double v1Quota(Path dir) {
        List<String> quota = lines(dir.resolve("cpu.cfs_quota_us"));
        List<String> period = lines(dir.resolve("cpu.cfs_period_us"));
        if (quota.isEmpty() || period.isEmpty()) {
            return 0;
        }
        try {
            double q = Double.parseDouble(quota.get(0).trim());
            double p = Double.parseDouble(period.get(0).trim());
            return q > 0 && p > 0 ? q / p : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException | SecurityException e) {
            return List.of();
        }
    }
}

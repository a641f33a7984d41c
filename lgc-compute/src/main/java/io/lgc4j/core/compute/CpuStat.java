package io.lgc4j.core.compute;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How much CPU a process was denied: its cgroup's throttling under a CPU quota, and the sampling thread's time waiting
 * in the run queue. The cgroup is found from {@code /proc/self/cgroup}:
 * <ul>
 *   <li>v2 ({@code 0::/path}): {@code <mount>/path/cpu.stat}, keys {@code throttled_usec} and
 *       {@code nr_throttled};</li>
 *   <li>v1 ({@code N:cpu,cpuacct:/path}): {@code <mount>/cpu,cpuacct/path/cpu.stat}, keys {@code throttled_time}
 *       (ns) and {@code nr_throttled}.</li>
 * </ul>
 * Inside a container the path is often not visible under the mount; then the mount's own {@code cpu.stat} (the
 * container's group) is read. A file that is missing or unreadable makes its counters -1 ("not available"), never an
 * error: a trace still records everything else. One small read per counter and step.
 *
 * <pre>{@code
 * CpuStat cpu = CpuStat.system();
 * CpuSample before = cpu.sample();   // on the rank's thread, for its schedstat
 * }</pre>
 */
public final class CpuStat {
    private final Path cpuStat;     // null: no cgroup counters
    private final boolean v2;
    private final Path schedstat;   // null: no per-thread counters

    private CpuStat(Path cpuStat, boolean v2, Path schedstat) {
        this.cpuStat = cpuStat;
        this.v2 = v2;
        this.schedstat = schedstat;
    }

    /** This process's counters, from {@code /proc} and {@code /sys/fs/cgroup}. */
    public static CpuStat system() {
        return of(Path.of("/proc/self/cgroup"), Path.of("/sys/fs/cgroup"), Path.of("/proc/thread-self/schedstat"));
    }

    /**
     * The counters {@code procCgroup} (a {@code /proc/self/cgroup}) points to under {@code cgroupMount}, and the thread
     * counters in {@code schedstat}; missing files give "not available".
     */
    public static CpuStat of(Path procCgroup, Path cgroupMount, Path schedstat) {
        Path stat = null;
        boolean v2 = false;
        List<String> lines;
        try {
            lines = Files.readAllLines(procCgroup, StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            lines = List.of();
        }
        for (String line : lines) {
            String[] parts = line.split(":", 3);
            if (parts.length != 3) {
                continue;
            }
            String relative = parts[2].startsWith("/") ? parts[2].substring(1) : parts[2];
            if (parts[0].equals("0") && parts[1].isEmpty()) {
                // hybrid hosts mount v2 under unified/, where it usually has no cpu controller: then v1's line counts
                Path v2Stat = firstFile(cgroupMount.resolve(relative).resolve("cpu.stat"),
                        cgroupMount.resolve("cpu.stat"));
                if (v2Stat != null) {
                    stat = v2Stat;
                    v2 = true;
                    break;
                }
                continue;
            }
            if (List.of(parts[1].split(",")).contains("cpu")) {
                Path controllers = cgroupMount.resolve(parts[1]);
                stat = firstFile(controllers.resolve(relative).resolve("cpu.stat"), controllers.resolve("cpu.stat"),
                        cgroupMount.resolve("cpu").resolve(relative).resolve("cpu.stat"),
                        cgroupMount.resolve("cpu").resolve("cpu.stat"));
                v2 = false;
                if (stat != null) {
                    break;
                }
            }
        }
        return new CpuStat(stat, v2, Files.isReadable(schedstat) ? schedstat : null);
    }

    private static Path firstFile(Path... candidates) {
        for (Path p : candidates) {
            if (Files.isReadable(p)) {
                return p;
            }
        }
        return null;
    }

    /** Whether any counter is available. */
    public boolean available() {
        return cpuStat != null || schedstat != null;
    }

    /** Where the counters come from, or "not available", for a trace's metadata and a summary's footnote. */
    public String describe() {
        String group = cpuStat == null ? "cgroup cpu.stat not available"
                : "cgroup " + (v2 ? "v2 " : "v1 ") + cpuStat;
        return group + "; " + (schedstat == null ? "thread schedstat not available" : "thread " + schedstat);
    }

    /** The counters now; on the calling thread for the thread's own. */
    public CpuSample sample() {
        long throttled = -1;
        long nr = -1;
        if (cpuStat != null) {
            Map<String, Long> keys = keyValues(cpuStat);
            nr = keys.getOrDefault("nr_throttled", -1L);
            if (v2) {
                Long usec = keys.get("throttled_usec");
                throttled = usec == null ? -1 : usec * 1_000;
            } else {
                throttled = keys.getOrDefault("throttled_time", -1L);
            }
        }
        long run = -1;
        long queue = -1;
        if (schedstat != null) {
            try {
                String[] f = Files.readString(schedstat, StandardCharsets.US_ASCII).strip().split("\\s+");
                run = Long.parseLong(f[0]);
                queue = Long.parseLong(f[1]);
            } catch (IOException | RuntimeException e) {
                // not available this time
            }
        }
        return new CpuSample(throttled, nr, run, queue);
    }

    /** The sample as a trace's {@code cpu} counter: milliseconds and counts, the unavailable ones left out. */
    public static Map<String, Number> counterValues(CpuSample s) {
        Map<String, Number> values = new LinkedHashMap<>();
        if (s.throttledNanos() >= 0) {
            values.put("throttled_ms", s.throttledNanos() / 1e6);
        }
        if (s.nrThrottled() >= 0) {
            values.put("nr_throttled", s.nrThrottled());
        }
        if (s.runNanos() >= 0) {
            values.put("cpu_ms", s.runNanos() / 1e6);
        }
        if (s.runqueueNanos() >= 0) {
            values.put("runqueue_ms", s.runqueueNanos() / 1e6);
        }
        return values;
    }

    private static Map<String, Long> keyValues(Path file) {
        Map<String, Long> map = new LinkedHashMap<>();
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.US_ASCII)) {
                String[] kv = line.strip().split("\\s+");
                if (kv.length == 2) {
                    try {
                        map.put(kv[0], Long.parseLong(kv[1]));
                    } catch (NumberFormatException e) {
                        // a key this reader does not use
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // not available this time
        }
        return map;
    }

    @Override
    public String toString() {
        return "CpuStat[" + describe() + "]";
    }
}

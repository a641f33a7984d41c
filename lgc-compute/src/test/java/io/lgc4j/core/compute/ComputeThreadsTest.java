package io.lgc4j.core.compute;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The cores a process has, read from fixture {@code /proc/self} and cgroup trees (v1 and v2, a quota on an ancestor,
 * none at all), and the threads {@code auto} gives it; a request that is not a count; the check against ND4J's count.
 */
class ComputeThreadsTest {

    private static Path proc(Path dir, String cpusAllowed, String cgroup) throws IOException {
        Path p = Files.createDirectories(dir.resolve("proc"));
        Files.writeString(p.resolve("status"), "Name:\tjava\nCpus_allowed:\tff\nCpus_allowed_list:\t" + cpusAllowed
                + "\nMems_allowed_list:\t0\n");
        Files.writeString(p.resolve("cgroup"), cgroup);
        return p;
    }

    private static void write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }

    @Test
    void shouldReadACgroupV2QuotaOnAnAncestorAndTheAffinity(@TempDir Path dir) throws IOException {
        Path root = dir.resolve("cg");
        write(root.resolve("lgc/cpu.max"), "40000 100000\n");     // the parent: 0.4 cores
        write(root.resolve("lgc/rank-2/cpu.max"), "max 100000\n"); // the process's own group: none
        CpuLimits limits = CpuLimits.read(proc(dir, "0-1", "0::/lgc/rank-2\n"), root, 2);
        assertEquals(2, limits.affinityCpus());
        assertEquals(0.4, limits.quotaCores(), 1e-12);
        assertEquals(0.4, limits.cores(), 1e-12);
        assertEquals("quota 0.40 cores (cgroup v2 " + root.resolve("lgc/cpu.max") + "), affinity 2 CPUs, 2 CPUs"
                + " online", limits.describe());
        assertEquals("auto: 0.40 cores for its quota (" + limits.describe() + ")",
                ComputeThreads.resolve("auto", limits, 5).reason());
        assertEquals(1, ComputeThreads.resolve("auto", limits, 5).threads());
    }

    @Test
    void shouldReadACgroupV1QuotaAndIgnoreOtherControllers(@TempDir Path dir) throws IOException {
        Path root = dir.resolve("cg");
        write(root.resolve("cpu,cpuacct/lgc/cpu.cfs_quota_us"), "250000\n");
        write(root.resolve("cpu,cpuacct/lgc/cpu.cfs_period_us"), "100000\n");
        write(root.resolve("memory/lgc/cpu.cfs_quota_us"), "10000\n"); // not the cpu controller's
        write(root.resolve("memory/lgc/cpu.cfs_period_us"), "100000\n");
        CpuLimits limits = CpuLimits.read(proc(dir, "0-7", "12:memory:/lgc\n4:cpu,cpuacct:/lgc\n1:name=systemd:/\n"),
                root, 8);
        assertEquals(2.5, limits.quotaCores(), 1e-12);
        assertEquals(8, limits.affinityCpus());
        assertEquals(2, ComputeThreads.resolve("auto", limits, 4).threads(), "a quota is the process's own share");
    }

    @Test
    void withoutAQuotaAutoShouldShareTheAffinityCpusAmongTheProcesses(@TempDir Path dir) throws IOException {
        Path root = dir.resolve("cg");
        write(root.resolve("cpu.max"), "max 100000\n");
        CpuLimits limits = CpuLimits.read(proc(dir, "0-5,8,10-11", "0::/\n"), root, 16);
        assertFalse(limits.hasQuota());
        assertEquals(9, limits.affinityCpus());
        ComputeThreads t = ComputeThreads.resolve("auto", limits, 4);
        assertEquals(2, t.threads());
        assertEquals("auto: 2.25 cores for 4 processes computing at once (affinity 9 CPUs, 16 CPUs online)",
                t.reason());
        assertEquals(9, ComputeThreads.resolve("auto", limits, 1).threads());
        assertEquals(1, ComputeThreads.resolve("auto", limits, 40).threads(), "never below one");
        assertEquals(new ComputeThreads("3", 3, "asked for 3"), ComputeThreads.resolve("3", limits, 4));
    }

    @Test
    void missingFilesShouldLeaveTheLimitsUnknownNotFail(@TempDir Path dir) {
        CpuLimits limits = CpuLimits.read(dir.resolve("no-proc"), dir.resolve("no-cgroup"), 2);
        assertEquals(new CpuLimits(2, 0, 0, ""), limits);
        assertEquals("2 CPUs online", limits.describe());
        assertEquals(0, CpuLimits.countCpus("0-x"));
    }

    @Test
    void shouldRefuseARequestThatIsNotAutoOrACount() {
        assertEquals("auto", ComputeThreads.parse("model.compute.threads", " Auto "));
        assertEquals("2", ComputeThreads.parse("model.compute.threads", "2"));
        for (String bad : new String[] {"0", "-1", "two", ""}) {
            assertEquals("model.compute.threads must be 'auto' or a number of threads of at least 1, found '" + bad
                    + "'", assertThrows(IllegalArgumentException.class,
                    () -> ComputeThreads.parse("model.compute.threads", bad)).getMessage());
        }
    }

    @Test
    void shouldRefuseToRunWhenNd4jsPoolHasFewerThreads() {
        ComputeThreads two = new ComputeThreads("2", 2, "asked for 2");
        two.check("model.compute.threads", "2");
        two.check("model.compute.threads", "4"); // the run's threads compute with 2 of them
        two.check("model.compute.threads", null); // nothing reported: nothing to check
        String omp = System.getenv("OMP_NUM_THREADS");
        assertEquals("model.compute.threads is 2, but ND4J's thread pool has 1 thread (" + (omp == null
                ? "OMP_NUM_THREADS unset" : "OMP_NUM_THREADS=" + omp) + " when this JVM started; ND4J sizes it once):"
                + " start it with OMP_NUM_THREADS=2 (bin/lgc passes the caller's on; lgc launch sets it from"
                + " model.compute.threads), or set model.compute.threads: 1",
                assertThrows(IllegalStateException.class, () -> two.check("model.compute.threads", "1"))
                        .getMessage());
    }
}

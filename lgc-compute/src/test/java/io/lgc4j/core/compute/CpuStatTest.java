package io.lgc4j.core.compute;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** {@link CpuStat} on fixture files of cgroup v1, v2, a hybrid host and a machine with none. */
class CpuStatTest {

    private static Path write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        return Files.writeString(file, text);
    }

    @Test
    void shouldReadThrottledMicrosecondsOfCgroupV2(@TempDir Path root) throws IOException {
        Path proc = write(root.resolve("proc/cgroup"), "0::/lgc/rank2\n");
        write(root.resolve("sys/lgc/rank2/cpu.stat"), "usage_usec 900000\nuser_usec 800000\nsystem_usec 100000\n"
                + "nr_periods 50\nnr_throttled 7\nthrottled_usec 120500\n");
        Path sched = write(root.resolve("proc/schedstat"), "5000000 250000 12\n");
        CpuStat stat = CpuStat.of(proc, root.resolve("sys"), sched);
        assertEquals(new CpuSample(120_500_000L, 7, 5_000_000, 250_000), stat.sample());
        assertEquals("cgroup v2 " + root.resolve("sys/lgc/rank2/cpu.stat") + "; thread " + sched, stat.describe());
        assertEquals(Map.of("throttled_ms", 120.5, "nr_throttled", 7L, "cpu_ms", 5.0, "runqueue_ms", 0.25),
                CpuStat.counterValues(stat.sample()));
    }

    @Test
    void shouldReadThrottledNanosecondsOfCgroupV1OnAHybridHost(@TempDir Path root) throws IOException {
        // v2's line comes first but its group has no cpu.stat (hybrid: unified/ holds no cpu controller)
        Path proc = write(root.resolve("proc/cgroup"), "0::/\n4:memory:/job\n2:cpu,cpuacct:/job\n");
        write(root.resolve("sys/cpu,cpuacct/job/cpu.stat"), "nr_periods 10\nnr_throttled 3\nthrottled_time 45000000\n");
        CpuStat stat = CpuStat.of(proc, root.resolve("sys"), root.resolve("proc/missing"));
        assertEquals(new CpuSample(45_000_000L, 3, -1, -1), stat.sample());
    }

    @Test
    void shouldReadTheMountsOwnGroupWhenThePathIsNotVisibleInAContainer(@TempDir Path root) throws IOException {
        Path proc = write(root.resolve("proc/cgroup"), "1:cpu:/docker/abc\n");
        write(root.resolve("sys/cpu/cpu.stat"), "nr_throttled 1\nthrottled_time 5\n");
        assertEquals(new CpuSample(5, 1, -1, -1), CpuStat.of(proc, root.resolve("sys"), root.resolve("x")).sample());
    }

    @Test
    void shouldSayNotAvailableWhenNoFileIsThere(@TempDir Path root) {
        CpuStat stat = CpuStat.of(root.resolve("no/cgroup"), root.resolve("no/sys"), root.resolve("no/schedstat"));
        assertFalse(stat.available());
        assertEquals(CpuSample.NONE, stat.sample());
        assertEquals("cgroup cpu.stat not available; thread schedstat not available", stat.describe());
        assertEquals(Map.of(), CpuStat.counterValues(stat.sample()));
    }
}

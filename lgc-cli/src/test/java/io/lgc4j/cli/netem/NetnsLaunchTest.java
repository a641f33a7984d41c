package io.lgc4j.cli.netem;

import io.lgc4j.cli.LgcCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code lgc launch --netns-rate --cpu-share} end to end (root only; CI runs as root): K = 2 workers, each in its own
 * namespace on 100 Mbit/s links and held to half a core over CFS periods of 20 ms, train 8 steps of the dense ring on
 * Fashion-MNIST; rank 0 writes its results, and neither a namespace nor a cgroup of the launcher is left afterwards.
 * A period outside the kernel's bounds is refused before anything is made.
 */
class NetnsLaunchTest {

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void shouldTrainWithEveryProcessInItsOwnNamespaceAndLeaveNothingBehind(@TempDir Path tmp) throws Exception {
        HostCapabilities.assumeNamespaces();
        HostCapabilities.assumeCpuShares();
        Path config = tmp.resolve("k2.yaml");
        Path out = tmp.resolve("out");
        Files.writeString(config, """
                run: {name: netns-k2, seed: 3}
                data: {trainLimit: 640, testLimit: 200}
                training: {workers: 2, batchSizePerWorker: 16, epochs: 1, maxSteps: 8, evalEverySteps: 4}
                topology: {type: ring}
                """);
        Path log = tmp.resolve("launch.log");
        ProcessBuilder pb = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"), "-Xmx256m",
                "-cp", System.getProperty("java.class.path"), LgcCommand.class.getName(), "launch", "--nproc", "2",
                config.toString(), "--output-dir", out.toString(), "--netns-rate", "100mbit", "--cpu-share", "0.5",
                "--cpu-period-ms", "20", "--java-opts", "-Xmx1g -Dorg.bytedeco.javacpp.maxbytes=2G -Dorg.bytedeco.javacpp.maxphysicalbytes=3G")
                .redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("OMP_NUM_THREADS", "1");
        Process launch = pb.start();
        assertTrue(launch.waitFor(150, TimeUnit.SECONDS), "the launch did not end: " + read(log));
        String output = read(log);
        assertEquals(0, launch.exitValue(), output);
        assertTrue(output.contains("in network namespaces 10.200.0.1..10.200.0.2"), output);
        assertTrue(output.contains("rate 100Mbit burst 50000b"), output);
        assertTrue(output.contains("0.50 cores for each of 2 processes"), output);
        assertTrue(output.contains("cpu.cfs_quota_us 10000 per cpu.cfs_period_us 20000")
                || output.contains("cpu.max \"10000 20000\""), output);
        assertTrue(output.contains("[rank 0] test accuracy"), output);
        try (Stream<Path> runs = Files.list(out)) {
            Path run = runs.findFirst().orElseThrow();
            assertTrue(Files.isRegularFile(run.resolve("summary.json")), run.toString());
        }
        String prefix = "lgc" + launch.pid();
        String namespaces = HostCommands.SYSTEM.run(List.of("ip", "netns", "list"));
        assertFalse(namespaces.contains(prefix + "f"), "left behind: " + namespaces);
        for (String mount : List.of("/sys/fs/cgroup", "/sys/fs/cgroup/cpu", "/sys/fs/cgroup/unified")) {
            try (Stream<Path> groups = Files.isDirectory(Path.of(mount)) ? Files.list(Path.of(mount)) : Stream.of()) {
                assertFalse(groups.anyMatch(g -> g.getFileName().toString().startsWith(prefix + "c")),
                        "a cgroup of the launcher is left in " + mount);
            }
        }
    }

    @Test
    @Timeout(value = 1, unit = TimeUnit.MINUTES)
    void shouldRefuseACpuPeriodOutsideTheKernelsBounds(@TempDir Path tmp) throws Exception {
        Path config = tmp.resolve("k2.yaml");
        Files.writeString(config, "run: {name: k2}\ntraining: {workers: 2}\n");
        Path log = tmp.resolve("launch.log");
        Process launch = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"), "-Xmx128m",
                "-cp", System.getProperty("java.class.path"), LgcCommand.class.getName(), "launch", "--nproc", "2",
                config.toString(), "--cpu-share", "0.5", "--cpu-period-ms", "0.5")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        assertTrue(launch.waitFor(50, TimeUnit.SECONDS), read(log));
        assertEquals(2, launch.exitValue(), read(log));
        assertEquals("lgc launch: --cpu-period-ms must be 1 to 1000 ms (the kernel's bounds), found 0.5",
                read(log).strip());
    }

    private static String read(Path log) throws IOException {
        return Files.readString(log, StandardCharsets.UTF_8);
    }
}

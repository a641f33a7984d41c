package io.lgc4j.cli.netem;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The namespace fabric, the link probe and the CPU shares on the real kernel (root only; CI runs as root): nothing
 * is left behind, also after a failure half-way through the setup, and a 10 Mbit/s cap is what a TCP stream gets.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class NetnsFabricTest {

    @BeforeEach
    void needsRootAndNamespaces() {
        HostCapabilities.assumeNamespaces();
    }

    @Test
    void shouldLeaveNoNamespaceOrLinkBehindWhenClosed() {
        NetnsFabric fabric = NetnsFabric.create(3, LinkShape.parse("100mbit", 400));
        String prefix = fabric.prefix();
        assertEquals(4, count(prefix, netns()), netns());
        assertTrue(fabric.qdiscs().contains("tbf"), fabric.qdiscs());
        assertFalse(links().contains(prefix), "nothing of the fabric in the host's namespace: " + links());
        fabric.close();
        fabric.close();   // idempotent
        assertEquals(0, count(prefix, netns()), netns());
        assertFalse(links().contains(prefix) || links().contains(NetnsFabric.HOST_INTERFACE), links());
    }

    @Test
    void shouldRemoveWhatItMadeWhenACommandFailsHalfWay() {
        AtomicInteger qdiscs = new AtomicInteger();
        HostCommands failing = command -> {
            if (command.contains("qdisc") && command.contains("add") && qdiscs.incrementAndGet() == 3) {
                return HostCommands.SYSTEM.run(List.of("tc", "qdisc", "add", "dev", "no-such-device", "root",
                        "tbf", "rate", "1mbit", "burst", "4000b", "latency", "10ms"));
            }
            return HostCommands.SYSTEM.run(command);
        };
        String prefix = "lgct" + ProcessHandle.current().pid();
        FabricException e = assertThrows(FabricException.class,
                () -> NetnsFabric.create(failing, prefix, 3, LinkShape.parse("10mbit", 400)));
        assertTrue(e.getMessage().startsWith("`tc qdisc add dev no-such-device root tbf"), e.getMessage());
        assertTrue(e.getMessage().contains("failed with exit status"), e.getMessage());
        assertEquals(0, count(prefix, netns()), netns());
        assertFalse(links().contains(prefix), links());
    }

    @Test
    void shouldCapAStreamAtTheTbfRate() {
        try (NetnsFabric fabric = NetnsFabric.create(2, LinkShape.parse("10mbit", 400))) {
            LinkProbe.Result r = LinkProbe.measure(fabric, 0, 1, 3);
            // an invariant of the kernel's shaping, not a timing of our code: well under twice the cap, over half
            assertTrue(r.megabitsPerSecond() > 5 && r.megabitsPerSecond() < 20, r + " = " + r.megabitsPerSecond()
                    + " Mbit/s through a 10mbit cap");
        }
    }

    /**
     * A wrapped process is in its namespace (it sees the fabric's interface, not the host's) and still sees the
     * cgroup file system, where a traced process reads its CPU throttling (CpuStat): {@code ip netns exec} would give
     * it a fresh {@code /sys} without it.
     */
    @Test
    void shouldRunAWrappedProcessInTheNamespaceWithTheCgroupFileSystemInView() throws Exception {
        try (NetnsFabric fabric = NetnsFabric.create(1, LinkShape.parse("unshaped", 400))) {
            Process p = new ProcessBuilder(fabric.wrap(0, List.of("sh", "-c", "ip -o link; ls /sys/fs/cgroup")))
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            assertEquals(0, p.waitFor(), out);
            assertTrue(out.contains(NetnsFabric.HOST_INTERFACE), out);
            assertEquals(2, out.lines().filter(l -> l.contains("link/")).count(),
                    "the namespace's loopback and its veth end, none of the host's links: " + out);
            assertTrue(out.contains("cpu"), "the cgroup file system in view: " + out);
        }
    }

    @Test
    void shouldRunAWrappedProcessInItsCgroupAndRemoveTheCgroups() throws Exception {
        HostCapabilities.assumeCpuShares();
        java.nio.file.Path group;
        try (CpuShares cpu = CpuShares.create(2, 0.25)) {
            group = cpu.group(1);
            Process p = new ProcessBuilder(cpu.wrap(1, List.of("cat", "/proc/self/cgroup"))).redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes());
            assertEquals(0, p.waitFor(), out);
            assertTrue(out.contains(group.getFileName().toString()), out + " should name " + group);
            assertTrue(cpu.describe().contains("0.25 cores for each of 2 processes"), cpu.describe());
        }
        assertFalse(Files.exists(group), group + " should be gone");
    }

    private static long count(String prefix, String listing) {
        return listing.lines().filter(l -> l.startsWith(prefix)).count();
    }

    private static String netns() {
        return HostCommands.SYSTEM.run(List.of("ip", "netns", "list"));
    }

    private static String links() {
        return HostCommands.SYSTEM.run(List.of("ip", "-o", "link"));
    }
}

package io.lgc4j.cli.netem;

import java.util.List;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What the kernel lets this (root) test process do, probed once: a machine without network namespaces or a writable
 * cgroup cpu controller skips the tests that need them, saying why, instead of failing for its own reasons.
 */
final class HostCapabilities {
    private static String namespaces;
    private static String cpuShares;

    private HostCapabilities() {
    }

    /** Skips unless root may create a network namespace here. */
    static synchronized void assumeNamespaces() {
        assumeTrue(HostCommands.isRoot(), "skipped: network namespaces, tc and cgroups need root (CI runs as root)");
        if (namespaces == null) {
            String name = "lgcprobe" + ProcessHandle.current().pid();
            try {
                HostCommands.SYSTEM.run(List.of("ip", "netns", "add", name));
                HostCommands.SYSTEM.run(List.of("ip", "netns", "del", name));
                namespaces = "";
            } catch (FabricException e) {
                namespaces = e.getMessage();
            }
        }
        assumeTrue(namespaces.isEmpty(), "skipped: this machine gives root no network namespaces: " + namespaces);
    }

    /** Skips unless a cgroup cpu controller is writable here. */
    static synchronized void assumeCpuShares() {
        assumeTrue(HostCommands.isRoot(), "skipped: cgroups need root (CI runs as root)");
        if (cpuShares == null) {
            try (CpuShares probe = CpuShares.create(1, 0.5)) {
                cpuShares = probe.processes() == 1 ? "" : "no cgroup made";
            } catch (FabricException e) {
                cpuShares = e.getMessage();
            }
        }
        assumeTrue(cpuShares.isEmpty(), "skipped: this machine has no writable cgroup cpu controller: " + cpuShares);
    }
}

package io.lgc4j.cli.netem;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the N processes of one job run when each must look like a host of its own: in its own network namespace of
 * a {@link NetnsFabric} (every link capped as {@link LinkShape} says), and, when {@code coresEach > 0}, in its own
 * cgroup with a fixed CPU share ({@link CpuShares}). Either part may be absent: no fabric means loopback in the host's
 * namespace, no shares means the scheduler's fair share. {@link #close()} removes both; each is also a shutdown hook.
 *
 * <pre>{@code
 * try (EmulatedHosts hosts = EmulatedHosts.create(5, LinkShape.parse("100mbit", 400), 0.4)) {
 *     ProcessBuilder pb = new ProcessBuilder(hosts.wrap(2, command));
 *     pb.environment().put("LGC_BIND_ADDR", hosts.address(2));
 * }
 * }</pre>
 */
public final class EmulatedHosts implements AutoCloseable {

    private final NetnsFabric fabric;
    private final CpuShares cpu;

    private EmulatedHosts(NetnsFabric fabric, CpuShares cpu) {
        this.fabric = fabric;
        this.cpu = cpu;
    }

    /**
     * Sets up {@code processes} hosts.
     *
     * @param shape     the links' cap, or null for no namespaces at all (loopback)
     * @param coresEach each process's CPU share in cores, or 0 for none
     * @throws FabricException when not root or a command fails; what was made is removed first
     */
    public static EmulatedHosts create(int processes, LinkShape shape, double coresEach) {
        return create(processes, shape, coresEach, CpuShares.PERIOD_US);
    }

    /**
     * As {@link #create(int, LinkShape, double)}, the CPU shares enforced over CFS periods of {@code periodUs}.
     *
     * @throws IllegalArgumentException naming the period when it is outside the kernel's 1 ms .. 1 s
     */
    public static EmulatedHosts create(int processes, LinkShape shape, double coresEach, long periodUs) {
        CpuShares.checkPeriod(periodUs);
        if (shape != null || coresEach > 0) {
            HostCommands.requireRoot("network namespaces and CPU shares");
        }
        NetnsFabric fabric = shape == null ? null : NetnsFabric.create(processes, shape);
        try {
            CpuShares cpu = coresEach > 0 ? CpuShares.create(processes, coresEach, periodUs) : null;
            return new EmulatedHosts(fabric, cpu);
        } catch (RuntimeException e) {
            if (fabric != null) {
                fabric.close();
            }
            throw e;
        }
    }

    /** Whether processes run in namespaces of their own (else on loopback). */
    public boolean namespaced() {
        return fabric != null;
    }

    /** The fabric, or null. */
    public NetnsFabric fabric() {
        return fabric;
    }

    /** Process {@code i}'s address: its namespace's, or 127.0.0.1. */
    public String address(int i) {
        return fabric == null ? "127.0.0.1" : fabric.address(i);
    }

    /** {@code command} run as process {@code i}: in its cgroup, then in its namespace; the pid is the command's. */
    public List<String> wrap(int i, List<String> command) {
        List<String> c = fabric == null ? command : fabric.wrap(i, command);
        return cpu == null ? c : cpu.wrap(i, c);
    }

    /** What was set up, for provenance and log lines: the link shape, the qdiscs as tc shows them, the CPU shares. */
    public Map<String, Object> describe() {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("network", fabric == null ? "loopback (no namespaces)" : fabric.hosts() + " network namespaces on a"
                + " bridge, every link's both directions shaped: " + fabric.shape().describe());
        if (fabric != null && fabric.shape().shaped()) {
            d.put("qdiscs", fabric.qdiscs());
        }
        d.put("cpu", cpu == null ? "no fixed shares (the scheduler's fair share)" : cpu.describe());
        return d;
    }

    /** Removes the namespaces and cgroups. */
    @Override
    public void close() {
        try {
            if (cpu != null) {
                cpu.close();
            }
        } finally {
            if (fabric != null) {
                fabric.close();
            }
        }
    }
}

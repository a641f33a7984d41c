package io.lgc4j.cli.netem;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * N network namespaces, each a "host" with one address ({@code 10.200.0.<i+1>/24} on {@code lgc0}), joined by veth
 * pairs to a bridge in a namespace of its own, so nothing of the fabric appears in the host's network. Both ends of
 * every link are shaped ({@link LinkShape}, tbf), so each direction is capped. Names carry a prefix unique to this
 * process and fabric ({@code lgc<pid>f<n>}), so concurrent fabrics never collide. {@link #close()} kills (by pid)
 * what still runs in the namespaces and removes them; it is idempotent and a shutdown hook. A failure half-way through
 * {@link #create} removes what was made before it throws. Layout diagram: {@code docs/architecture/slow-links.md}.
 *
 * <pre>{@code
 * try (NetnsFabric fabric = NetnsFabric.create(3, LinkShape.parse("100mbit", 400))) {
 *     List<String> cmd = fabric.wrap(1, List.of("java", "-jar", "lgc.jar", "worker", "cfg.yaml"));
 *     String master = fabric.address(0);   // 10.200.0.1
 * }
 * }</pre>
 */
public final class NetnsFabric implements AutoCloseable {

    /** The subnet every fabric uses inside its own namespaces (it never reaches the host's network). */
    public static final String SUBNET = "10.200.0.";
    /** The interface name inside each host namespace. */
    public static final String HOST_INTERFACE = "lgc0";

    private static final AtomicInteger FABRICS = new AtomicInteger();
    /** At most 253 hosts in one /24. */
    private static final int MAX_HOSTS = 253;

    private final HostCommands host;
    private final String prefix;
    private final int hosts;
    private final LinkShape shape;
    /** Namespaces made so far, removed at close in reverse order. */
    private final List<String> made = new ArrayList<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread hook;

    private NetnsFabric(HostCommands host, String prefix, int hosts, LinkShape shape) {
        this.host = host;
        this.prefix = prefix;
        this.hosts = hosts;
        this.shape = shape;
        this.hook = new Thread(this::teardown, prefix + "-teardown");
    }

    /**
     * Builds a fabric of {@code hosts} namespaces with every link shaped as {@code shape}.
     *
     * @throws FabricException when not root, or when a command fails (naming it and its standard error); whatever
     *                         was made is removed first
     */
    public static NetnsFabric create(int hosts, LinkShape shape) {
        return create(HostCommands.SYSTEM, "lgc" + ProcessHandle.current().pid() + "f" + FABRICS.incrementAndGet(),
                hosts, shape);
    }

    /** As {@link #create(int, LinkShape)} with the given command runner and name prefix (tests inject failures). */
    static NetnsFabric create(HostCommands host, String prefix, int hosts, LinkShape shape) {
        HostCommands.requireRoot("a network-namespace fabric");
        if (hosts < 1 || hosts > MAX_HOSTS) {
            throw new IllegalArgumentException("a fabric has 1 to " + MAX_HOSTS + " hosts, found " + hosts);
        }
        NetnsFabric fabric = new NetnsFabric(host, prefix, hosts, shape);
        Runtime.getRuntime().addShutdownHook(fabric.hook);
        try {
            fabric.build();
            return fabric;
        } catch (RuntimeException e) {
            try {
                fabric.close();
            } catch (RuntimeException teardown) {
                e.addSuppressed(teardown);
            }
            throw e;
        }
    }

    private void build() {
        String bridgeNs = bridgeNamespace();
        addNamespace(bridgeNs);
        ip(bridgeNs, "link", "set", "lo", "up");
        ip(bridgeNs, "link", "add", "br0", "type", "bridge");
        ip(bridgeNs, "link", "set", "br0", "up");
        for (int i = 0; i < hosts; i++) {
            String ns = namespace(i);
            String port = "p" + i;
            addNamespace(ns);
            ip(ns, "link", "set", "lo", "up");
            // both ends are born in their namespaces: nothing passes through the host's
            ip(ns, "link", "add", HOST_INTERFACE, "type", "veth", "peer", "name", port, "netns", bridgeNs);
            ip(ns, "addr", "add", address(i) + "/24", "dev", HOST_INTERFACE);
            ip(bridgeNs, "link", "set", port, "master", "br0");
            if (shape.shaped()) {
                tbf(ns, HOST_INTERFACE);
                tbf(bridgeNs, port);
            }
            ip(bridgeNs, "link", "set", port, "up");
            ip(ns, "link", "set", HOST_INTERFACE, "up");
        }
    }

    private void addNamespace(String ns) {
        host.run(List.of("ip", "netns", "add", ns));
        made.add(ns);
    }

    private void ip(String ns, String... args) {
        List<String> command = new ArrayList<>(List.of("ip", "-n", ns));
        command.addAll(List.of(args));
        host.run(command);
    }

    private void tbf(String ns, String device) {
        List<String> command = new ArrayList<>(List.of("tc", "-n", ns, "qdisc", "add", "dev", device, "root"));
        command.addAll(shape.tbfArguments());
        host.run(command);
    }

    /** Number of host namespaces. */
    public int hosts() {
        return hosts;
    }

    /** How every link is shaped. */
    public LinkShape shape() {
        return shape;
    }

    /** The prefix of every name this fabric made. */
    public String prefix() {
        return prefix;
    }

    /** Host {@code i}'s namespace. */
    public String namespace(int i) {
        return prefix + "-n" + check(i);
    }

    /** The bridge's namespace. */
    public String bridgeNamespace() {
        return prefix + "-br";
    }

    /** Host {@code i}'s address, 10.200.0.(i + 1). */
    public String address(int i) {
        return SUBNET + (check(i) + 1);
    }

    /**
     * {@code command} run in host {@code i}'s namespace: {@code nsenter --net=/run/netns/<ns> -- command...} (same
     * pid). Not {@code ip netns exec}, which also gives the command a mount namespace with a fresh {@code /sys}
     * (no cgroup file system there), so a process could not read its own CPU throttling ({@code CpuStat}).
     */
    public List<String> wrap(int i, List<String> command) {
        List<String> wrapped = new ArrayList<>(List.of("nsenter", "--net=/run/netns/" + namespace(i), "--"));
        wrapped.addAll(command);
        return wrapped;
    }

    /** The qdiscs in place as {@code tc qdisc show} prints them for host 0's link (both ends), for provenance. */
    public String qdiscs() {
        if (hosts == 0) {
            return "";
        }
        return (host.run(List.of("tc", "-n", namespace(0), "qdisc", "show", "dev", HOST_INTERFACE)).strip() + "; "
                + host.run(List.of("tc", "-n", bridgeNamespace(), "qdisc", "show", "dev", "p0")).strip());
    }

    /**
     * Removes every namespace the fabric made, killing (by pid) any process still running in one. Idempotent; a
     * second call does nothing.
     *
     * @throws FabricException when a namespace could not be removed (after trying all of them)
     */
    @Override
    public void close() {
        teardown();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or has run: teardown is idempotent
        }
    }

    private void teardown() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        FabricException first = null;
        List<String> namespaces;
        synchronized (made) {
            namespaces = new ArrayList<>(made);
        }
        for (int i = namespaces.size() - 1; i >= 0; i--) {
            String ns = namespaces.get(i);
            try {
                killProcessesIn(ns);
                host.run(List.of("ip", "netns", "del", ns));
            } catch (FabricException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private void killProcessesIn(String ns) {
        String pids;
        try {
            pids = host.run(List.of("ip", "netns", "pids", ns));
        } catch (FabricException e) {
            return;   // already gone, or never fully made: `ip netns del` below reports a real problem
        }
        for (String pid : pids.strip().split("\\s+")) {
            if (!pid.isEmpty()) {
                ProcessHandle.of(Long.parseLong(pid)).ifPresent(ProcessHandle::destroyForcibly);
            }
        }
    }

    private int check(int i) {
        if (i < 0 || i >= hosts) {
            throw new IndexOutOfBoundsException("host " + i + " of a fabric of " + hosts);
        }
        return i;
    }
}

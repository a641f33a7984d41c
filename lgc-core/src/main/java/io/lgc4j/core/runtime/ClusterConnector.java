package io.lgc4j.core.runtime;

import java.util.function.IntFunction;

/**
 * Joins this process to a cluster of OS processes (one endpoint each): the network runtime's entry point for
 * {@code DistributedTrainer}. The TCP implementation lives in {@code lgc-net}.
 *
 * <pre>{@code
 * DistributedTrainer.builder()...cluster(TcpConnector.builder().endpoint(rank).job(job).master(address).token(token)
 *         .build()).build().fit(1);
 * }</pre>
 */
@FunctionalInterface
public interface ClusterConnector {

    /**
     * Connects to the other {@code endpoints - 1} endpoints of the run and returns once every link is up.
     *
     * @param endpoints all endpoints of the run: the workers, then the topology's service endpoints
     * @param names     how messages name an endpoint ("rank 2", "the server")
     */
    ClusterConnection connect(int endpoints, IntFunction<String> names);

    /**
     * Connects as {@link #connect(int, IntFunction)}, refusing any endpoint whose run plan differs: {@code plan} is
     * the topology's {@code Topology.fingerprint} (0: nothing to check), {@code planMeaning}
     * what it stands for, for the message. The default ignores the plan; the TCP connector checks it in its
     * handshake.
     */
    default ClusterConnection connect(int endpoints, IntFunction<String> names, long plan, String planMeaning) {
        return connect(endpoints, names);
    }

    /**
     * The endpoint this connector joins as, known before it connects; -1 when only the join tells (a Spark barrier
     * task). The runtime refuses a parameter-server endpoint started as a process of its own while the shards run
     * inside the workers, before any rendezvous.
     */
    default int endpoint() {
        return -1;
    }

    /**
     * Whether this process also hosts the parameter-server shards placed with its worker rank r: the service
     * endpoints K+s with s mod K == r, each on its own thread and its own connection ({@link #forEndpoint}), on the
     * same topology and model layout. False by default: every endpoint its own process.
     */
    default boolean colocatesServices() {
        return false;
    }

    /**
     * The same connector for another endpoint of this process (a colocated shard): the same job and rendezvous,
     * its own links, any free port.
     *
     * @throws UnsupportedOperationException when this connector can join only as its own endpoint
     */
    default ClusterConnector forEndpoint(int endpoint) {
        throw new UnsupportedOperationException(getClass().getName() + " joins as one endpoint only; it cannot host"
                + " endpoint " + endpoint + " as well (run that endpoint as a process of its own)");
    }

    /**
     * Makes a connector from a launched process's environment; found by {@link java.util.ServiceLoader} (lgc-net
     * registers {@code tcp}), so a program that calls {@code DistributedTrainer.Builder#fromEnvironment()} needs
     * only the connector's module on its class path.
     *
     * <pre>{@code
     * // META-INF/services/io.lgc4j.core.runtime.ClusterConnector$Provider
     * io.lgc4j.net.TcpConnector$EnvironmentProvider
     * }</pre>
     */
    interface Provider {

        /** A short name: {@code tcp}. */
        String name();

        /**
         * The connector of the process {@code environment} describes ({@link LaunchEnvironment#launched()}).
         *
         * @throws IllegalArgumentException naming the variable that is missing or wrong
         */
        ClusterConnector connector(LaunchEnvironment environment);
    }
}

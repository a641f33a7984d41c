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
}

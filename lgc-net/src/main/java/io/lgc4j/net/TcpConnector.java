package io.lgc4j.net;

import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.runtime.ClusterConnection;
import io.lgc4j.core.runtime.ClusterConnector;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.IntFunction;

/**
 * Joins a {@link io.lgc4j.core.train.DistributedTrainer} process to its job over TCP: the trainer says how many
 * endpoints the run has and how to name them, this connector says who this process is and where rank 0 listens.
 *
 * <pre>{@code
 * TcpConnector tcp = new TcpConnector(rank, job, 0, new InetSocketAddress("10.0.0.1", 29500), "0.0.0.0", 0, null,
 *         JobToken.fromFile(Path.of("job.token")), Duration.ofMinutes(2), Duration.ofMinutes(1),
 *         Duration.ofMinutes(5), Duration.ofSeconds(1), Duration.ofSeconds(5), null);
 * DistributedTrainer.builder()...cluster(tcp).build().fit(1);
 * }</pre>
 *
 * @param endpoint            this process's endpoint: ranks 0..K-1, then the topology's services
 * @param job                 the job id every process shares
 * @param attempt             which attempt of the job this is
 * @param master              rank 0's address
 * @param bindHost            where this process listens
 * @param bindPort            the port it listens on (0: any; rank 0: master's port)
 * @param advertiseHost       the host others dial (null: derived, see {@link NetSettings})
 * @param token               the job token
 * @param rendezvousTimeout   how long joining may take
 * @param receiveTimeout      deadline of one receive in steady state
 * @param firstReceiveTimeout deadline of the first receive from each peer
 * @param heartbeatInterval   heartbeat on an idle link
 * @param idleTimeout         silence after which a peer is lost
 * @param tls                 mutual TLS on every link, or {@code null} for plaintext (HMAC-authenticated either way)
 */
public record TcpConnector(int endpoint, int job, int attempt, InetSocketAddress master, String bindHost,
                           int bindPort, String advertiseHost, byte[] token, Duration rendezvousTimeout,
                           Duration receiveTimeout, Duration firstReceiveTimeout, Duration heartbeatInterval,
                           Duration idleTimeout, NetSettings.Tls tls) implements ClusterConnector {

    /** Copies the token. */
    public TcpConnector {
        token = token.clone();
    }

    /** The settings this connector joins with, for a run of {@code endpoints} endpoints named by {@code names}. */
    public NetSettings settings(int endpoints, IntFunction<String> names) {
        return new NetSettings(endpoint, endpoints, job, attempt, master, bindHost, bindPort, advertiseHost, token,
                rendezvousTimeout, receiveTimeout, firstReceiveTimeout, heartbeatInterval, idleTimeout, names, tls,
                NetSettings.Plan.NONE);
    }

    @Override
    public ClusterConnection connect(int endpoints, IntFunction<String> names) {
        return connect(endpoints, names, 0L, NetSettings.Plan.NONE.meaning());
    }

    /** Joins with the run's plan in every HELLO: a peer with another plan is refused, naming both. */
    @Override
    public ClusterConnection connect(int endpoints, IntFunction<String> names, long plan, String planMeaning) {
        TcpCluster cluster = TcpCluster.join(settings(endpoints, names)
                .withPlan(new NetSettings.Plan(plan, planMeaning)));
        return connection(cluster, endpoint);
    }

    /**
     * {@code cluster} as the trainer's {@link ClusterConnection} of {@code endpoint}: for connectors that join
     * their own way (a Spark barrier task listens first and learns endpoint 0's address from the engine).
     */
    public static ClusterConnection connection(TcpCluster cluster, int endpoint) {
        return new ClusterConnection() {
            @Override
            public int endpoint() {
                return endpoint;
            }

            @Override
            public Transport transport() {
                return cluster.transport();
            }

            @Override
            public void abort(int lostEndpoint, String reason) {
                cluster.abort(lostEndpoint, reason);
            }

            @Override
            public void close() {
                cluster.close();
            }
        };
    }

    /** Never shows the token. */
    @Override
    public String toString() {
        return "TcpConnector[endpoint=" + endpoint + ", job=" + Integer.toUnsignedString(job) + ", attempt=" + attempt
                + ", master=" + master + "]";
    }

    @Override
    public boolean equals(Object o) {
        return this == o;
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(this);
    }
}

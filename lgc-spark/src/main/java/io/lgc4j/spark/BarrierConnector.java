package io.lgc4j.spark;

import io.lgc4j.core.runtime.ClusterConnection;
import io.lgc4j.core.runtime.ClusterConnector;
import io.lgc4j.runner.config.RuntimeConfig;
import io.lgc4j.net.NetSettings;
import io.lgc4j.net.TcpCluster;
import io.lgc4j.net.TcpConnector;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.function.IntFunction;

/**
 * Joins one endpoint of a barrier task to the run: listen on any port first, offer it to the task's {@link
 * TaskRendezvous} (one allGather for the whole stage), then join the mesh through endpoint 0's address. Training
 * traffic then flows over lgc-net's authenticated links (mutual TLS when the task has certificates), never through
 * Spark.
 */
final class BarrierConnector implements ClusterConnector {
    private final int endpoint;
    private final int job;
    private final int attempt;
    private final String host;
    private final byte[] token;
    private final RuntimeConfig runtime;
    private final TaskRendezvous rendezvous;
    private final NetSettings.Tls tls;
    private volatile long listeningMs;
    private volatile boolean joinedOverTls;
    private volatile long joinedMs;

    /**
     * @param host the executor's host, advertised to the other endpoints (the task listens on every interface)
     * @param tls  the task's mutual-TLS settings ({@link TaskCertificates#trust}), or null for plain TCP
     */
    BarrierConnector(int endpoint, int job, int attempt, String host, byte[] token, RuntimeConfig runtime,
                     TaskRendezvous rendezvous, NetSettings.Tls tls) {
        this.endpoint = endpoint;
        this.job = job;
        this.attempt = attempt;
        this.host = host;
        this.token = token.clone();
        this.runtime = runtime;
        this.rendezvous = rendezvous;
        this.tls = tls;
    }

    @Override
    public ClusterConnection connect(int endpoints, IntFunction<String> names) {
        return connect(endpoints, names, 0L, NetSettings.Plan.NONE.meaning());
    }

    @Override
    public ClusterConnection connect(int endpoints, IntFunction<String> names, long plan, String planMeaning) {
        // no master yet: endpoint 0's address comes from the rendezvous below
        NetSettings settings = NetSettings.builder()
                .endpoint(endpoint).endpoints(endpoints).job(job).attempt(attempt)
                .bindHost("0.0.0.0").bindPort(0).advertiseHost(host)
                .token(token)
                .rendezvousTimeout(Duration.ofMillis(runtime.rendezvousTimeoutMs()))
                .receiveTimeout(Duration.ofMillis(runtime.timeoutMs()))
                .firstReceiveTimeout(Duration.ofMillis(runtime.firstStepTimeoutMs()))
                .heartbeatInterval(Duration.ofMillis(runtime.heartbeatMs()))
                .idleTimeout(Duration.ofMillis(runtime.peerIdleTimeoutMs()))
                .names(names)
                .plan(new NetSettings.Plan(plan, planMeaning))
                .tls(tls)
                .build();
        TcpCluster cluster = TcpCluster.listen(settings);
        listeningMs = System.currentTimeMillis();
        try {
            List<InetSocketAddress> table = rendezvous.offer(endpoint, host, cluster.boundPort());
            cluster.join(table.get(0));
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
        joinedOverTls = cluster.tls();
        joinedMs = System.currentTimeMillis();
        return TcpConnector.connection(cluster, endpoint);
    }

    /** When this endpoint listened (0 before). */
    long listeningMs() {
        return listeningMs;
    }

    /** Whether this endpoint's links, once up, ran mutual TLS (as lgc-net reports it). */
    boolean joinedOverTls() {
        return joinedOverTls;
    }

    /** When this endpoint's links were all up (0 before). */
    long joinedMs() {
        return joinedMs;
    }
}

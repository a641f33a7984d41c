package io.lgc4j.net;

import io.lgc4j.core.comm.FrameDescriptor;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.runtime.ClusterConnection;
import io.lgc4j.core.runtime.ClusterConnector;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.IntFunction;

/**
 * Joins a {@link io.lgc4j.core.train.DistributedTrainer} process to its job over TCP: the trainer says how many
 * endpoints the run has and how to name them, this connector says who this process is and where rank 0 listens.
 * Build it with {@link #builder()}: the settings of {@link NetSettings.Builder} but the endpoint count, the names and
 * the plan, which the trainer supplies at connect; the defaults are {@link NetSettings.Builder}'s.
 *
 * <pre>{@code
 * TcpConnector tcp = TcpConnector.builder()
 *         .endpoint(rank).job(job).master(new InetSocketAddress("10.0.0.1", 29500))
 *         .token(JobToken.fromFile(Path.of("job.token")))
 *         .receiveTimeout(Duration.ofMinutes(1)).idleTimeout(Duration.ofSeconds(5))
 *         .build();
 * DistributedTrainer.builder()...cluster(tcp).build().fit(1);
 * }</pre>
 */
public final class TcpConnector implements ClusterConnector {
    /** Every setting checked; the endpoint count (here the smallest that admits the endpoint) is the trainer's. */
    private final NetSettings settings;

    private TcpConnector(NetSettings settings) {
        this.settings = settings;
    }

    /** A builder with every setting at {@link NetSettings.Builder}'s default; see {@link Builder}. */
    public static Builder builder() {
        return new Builder();
    }

    /** This process's endpoint: ranks 0..K-1, then the topology's services. */
    public int endpoint() {
        return settings.endpoint();
    }

    /** The settings this connector joins with, for a run of {@code endpoints} endpoints named by {@code names}. */
    public NetSettings settings(int endpoints, IntFunction<String> names) {
        return settings.toBuilder().endpoints(endpoints).names(names).build();
    }

    @Override
    public ClusterConnection connect(int endpoints, IntFunction<String> names) {
        return connect(endpoints, names, 0L, NetSettings.Plan.NONE.meaning());
    }

    /** Joins with the run's plan in every HELLO: a peer with another plan is refused, naming both. */
    @Override
    public ClusterConnection connect(int endpoints, IntFunction<String> names, long plan, String planMeaning) {
        TcpCluster cluster = TcpCluster.join(settings.toBuilder().endpoints(endpoints).names(names)
                .plan(new NetSettings.Plan(plan, planMeaning)).build());
        return connection(cluster, settings.endpoint());
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
        return "TcpConnector[endpoint=" + settings.endpoint() + ", job=" + Integer.toUnsignedString(settings.job())
                + ", attempt=" + settings.attempt() + ", master=" + settings.master() + "]";
    }

    /**
     * Names each setting of a {@link TcpConnector}; the defaults are {@link NetSettings.Builder}'s, and
     * {@code endpoint}, {@code job} and {@code token} have none. {@link #build()} checks every value (the endpoint
     * against the largest job; the trainer's endpoint count is checked at connect) and throws an
     * {@link IllegalArgumentException} naming the setting, the value and what was expected.
     */
    public static final class Builder {
        private final NetSettings.Builder settings = NetSettings.builder();

        private Builder() {
        }

        /** See {@link NetSettings#endpoint()}: ranks 0..K-1, then the topology's services; no default. */
        public Builder endpoint(int value) {
            settings.endpoint(value);
            return this;
        }

        /** See {@link NetSettings#job()}; no default. */
        public Builder job(int value) {
            settings.job(value);
            return this;
        }

        /** See {@link NetSettings#attempt()}. */
        public Builder attempt(int value) {
            settings.attempt(value);
            return this;
        }

        /** See {@link NetSettings#master()}: rank 0's address. */
        public Builder master(InetSocketAddress value) {
            settings.master(value);
            return this;
        }

        /** See {@link NetSettings#bindHost()}. */
        public Builder bindHost(String value) {
            settings.bindHost(value);
            return this;
        }

        /** See {@link NetSettings#bindPort()}: 0 for any, rank 0 listens on master's port. */
        public Builder bindPort(int value) {
            settings.bindPort(value);
            return this;
        }

        /** See {@link NetSettings#advertiseHost()}: {@code null} for derived. */
        public Builder advertiseHost(String value) {
            settings.advertiseHost(value);
            return this;
        }

        /** See {@link NetSettings#token()}; no default. The builder keeps its own copy. */
        public Builder token(byte[] value) {
            settings.token(value);
            return this;
        }

        /** See {@link NetSettings#rendezvousTimeout()}. */
        public Builder rendezvousTimeout(Duration value) {
            settings.rendezvousTimeout(value);
            return this;
        }

        /** See {@link NetSettings#receiveTimeout()}. */
        public Builder receiveTimeout(Duration value) {
            settings.receiveTimeout(value);
            return this;
        }

        /** See {@link NetSettings#firstReceiveTimeout()}. */
        public Builder firstReceiveTimeout(Duration value) {
            settings.firstReceiveTimeout(value);
            return this;
        }

        /** See {@link NetSettings#heartbeatInterval()}. */
        public Builder heartbeatInterval(Duration value) {
            settings.heartbeatInterval(value);
            return this;
        }

        /** See {@link NetSettings#idleTimeout()}. */
        public Builder idleTimeout(Duration value) {
            settings.idleTimeout(value);
            return this;
        }

        /** See {@link NetSettings#tls()}: mutual TLS on every link, {@code null} for plain TCP. */
        public Builder tls(NetSettings.Tls value) {
            settings.tls(value);
            return this;
        }

        /**
         * The connector, every value checked.
         *
         * @throws IllegalArgumentException naming the first bad or missing setting, its value and what was expected
         */
        public TcpConnector build() {
            int e = settings.requiredEndpoint();
            if (e < 0 || e > FrameDescriptor.MAX_ENDPOINT) {
                throw NetSettings.invalid("endpoint", e, "0.." + FrameDescriptor.MAX_ENDPOINT);
            }
            // The endpoint count comes from the trainer at connect; the rest is checked now, in the smallest job
            // this endpoint belongs to.
            return new TcpConnector(settings.endpoints(e + 1).build());
        }
    }
}

package io.lgc4j.net;

import io.lgc4j.core.comm.FrameDescriptor;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.runtime.ClusterConnection;
import io.lgc4j.core.runtime.ClusterConnector;
import io.lgc4j.core.runtime.LaunchEnvironment;

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
 *
 * TcpConnector launched = TcpConnector.builder().fromEnvironment(LaunchEnvironment.current()).build();   // LGC_*
 * }</pre>
 */
public final class TcpConnector implements ClusterConnector {
    /** Every setting checked; the endpoint count (here the smallest that admits the endpoint) is the trainer's. */
    private final NetSettings settings;
    private final boolean colocatesServices;

    private TcpConnector(NetSettings settings, boolean colocatesServices) {
        this.settings = settings;
        this.colocatesServices = colocatesServices;
    }

    /** A builder with every setting at {@link NetSettings.Builder}'s default; see {@link Builder}. */
    public static Builder builder() {
        return new Builder();
    }

    /** This process's endpoint: ranks 0..K-1, then the topology's services. */
    @Override
    public int endpoint() {
        return settings.identity().endpoint();
    }

    /** See {@link Builder#colocateServices}. */
    @Override
    public boolean colocatesServices() {
        return colocatesServices;
    }

    /** The same job, rendezvous, token and deadlines as {@code endpoint}, listening on any free port. */
    @Override
    public TcpConnector forEndpoint(int endpoint) {
        if (endpoint < 1 || endpoint > FrameDescriptor.MAX_ENDPOINT) {
            throw NetSettings.invalid("endpoint", endpoint, "1.." + FrameDescriptor.MAX_ENDPOINT
                    + " (endpoint 0 listens on the master port and runs in a process of its own)");
        }
        return new TcpConnector(settings.toBuilder().endpoint(endpoint).bindPort(0)
                .endpoints(Math.max(settings.identity().endpoints(), endpoint + 1)).build(), colocatesServices);
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
        return connection(cluster, settings.identity().endpoint());
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
        NetSettings.Identity identity = settings.identity();
        return "TcpConnector[endpoint=" + identity.endpoint() + ", job=" + Integer.toUnsignedString(identity.job())
                + ", attempt=" + identity.attempt() + ", master=" + settings.addressing().master() + "]";
    }

    /**
     * Names each setting of a {@link TcpConnector}; the defaults are {@link NetSettings.Builder}'s, and
     * {@code endpoint}, {@code job} and {@code token} have none. {@link #build()} checks every value (the endpoint
     * against the largest job; the trainer's endpoint count is checked at connect) and throws an
     * {@link IllegalArgumentException} naming the setting, the value and what was expected.
     */
    public static final class Builder {
        private final NetSettings.Builder settings = NetSettings.builder();
        private boolean colocateServices;

        private Builder() {
        }

        /**
         * Who this process is, where rank 0 listens, the job, the token and mutual TLS, from a launched process's
         * environment ({@link LaunchEnvironment}): LGC_RANK, LGC_MASTER_ADDR and LGC_MASTER_PORT, LGC_JOB_ID
         * ({@link #job(String)}), LGC_ATTEMPT, LGC_BIND_ADDR, LGC_PORT, LGC_ADVERTISE_ADDR, LGC_TOKEN_FILE or
         * LGC_TOKEN, LGC_TLS_*, and whether the shards run in the workers ({@link
         * LaunchEnvironment.Shards#colocated()}). The deadlines stay as they are; set them after this.
         *
         * @throws IllegalArgumentException naming the variable (and {@code lgc worker}'s option) that is missing or
         *                                  wrong
         */
        public Builder fromEnvironment(LaunchEnvironment env) {
            int endpoint = env.requireRank();
            String master = env.requireMasterAddr();
            int masterPort = env.requireMasterPort();
            String job = env.requireJobId();
            LaunchEnvironment.Credentials credentials = env.credentials();
            byte[] token;
            if (credentials.tokenFile() != null) {
                token = JobToken.fromFile(credentials.tokenFile());
            } else if (credentials.token() != null) {
                token = JobToken.fromEnvironment("LGC_TOKEN", name -> credentials.token());
            } else {
                throw new IllegalArgumentException("no job token: set LGC_TOKEN_FILE (or --token-file) to a file"
                        + " readable by its owner only, or LGC_TOKEN to the token; every process of the job needs"
                        + " the same token");
            }
            NetSettings.Tls tls = credentials.tls()
                    ? new NetSettings.Tls(credentials.tlsCert(), credentials.tlsKey(), credentials.tlsCa()) : null;
            endpoint(endpoint).job(job).attempt(env.rendezvous().attempt())
                    .master(new InetSocketAddress(master, masterPort)).bindHost(env.bindAddress())
                    .bindPort(endpoint == 0 ? masterPort : env.listen().port())
                    .advertiseHost(env.listen().advertiseAddr()).token(token).tls(tls);
            return colocateServices(env.shards().colocated());
        }

        /**
         * Whether this worker process also hosts its parameter-server shards (see
         * {@link ClusterConnector#colocatesServices()}); default false, every endpoint a process of its own.
         */
        public Builder colocateServices(boolean value) {
            this.colocateServices = value;
            return this;
        }

        /** See {@link NetSettings.Identity#endpoint()}: ranks 0..K-1, then the topology's services; no default. */
        public Builder endpoint(int value) {
            settings.endpoint(value);
            return this;
        }

        /** See {@link NetSettings.Identity#job()}; no default. */
        public Builder job(int value) {
            settings.job(value);
            return this;
        }

        /** The job by its id as text, mapped to a number as {@link JobId#of} maps it (as {@code lgc worker} does). */
        public Builder job(String id) {
            return job(JobId.of(id));
        }

        /** See {@link NetSettings.Identity#attempt()}. */
        public Builder attempt(int value) {
            settings.attempt(value);
            return this;
        }

        /** See {@link NetSettings.Addressing#master()}: rank 0's address. */
        public Builder master(InetSocketAddress value) {
            settings.master(value);
            return this;
        }

        /** See {@link NetSettings.Addressing#bindHost()}. */
        public Builder bindHost(String value) {
            settings.bindHost(value);
            return this;
        }

        /** See {@link NetSettings.Addressing#bindPort()}: 0 for any, rank 0 listens on master's port. */
        public Builder bindPort(int value) {
            settings.bindPort(value);
            return this;
        }

        /** See {@link NetSettings.Addressing#advertiseHost()}: {@code null} for derived. */
        public Builder advertiseHost(String value) {
            settings.advertiseHost(value);
            return this;
        }

        /** See {@link NetSettings#token()}; no default. The builder keeps its own copy. */
        public Builder token(byte[] value) {
            settings.token(value);
            return this;
        }

        /** See {@link NetSettings.Deadlines#rendezvousTimeout()}. */
        public Builder rendezvousTimeout(Duration value) {
            settings.rendezvousTimeout(value);
            return this;
        }

        /** See {@link NetSettings.Deadlines#receiveTimeout()}. */
        public Builder receiveTimeout(Duration value) {
            settings.receiveTimeout(value);
            return this;
        }

        /** See {@link NetSettings.Deadlines#firstReceiveTimeout()}. */
        public Builder firstReceiveTimeout(Duration value) {
            settings.firstReceiveTimeout(value);
            return this;
        }

        /** See {@link NetSettings.Deadlines#heartbeatInterval()}. */
        public Builder heartbeatInterval(Duration value) {
            settings.heartbeatInterval(value);
            return this;
        }

        /** See {@link NetSettings.Deadlines#idleTimeout()}. */
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
            return new TcpConnector(settings.endpoints(e + 1).build(), colocateServices);
        }
    }

    /** Registers this connector with the {@link java.util.ServiceLoader} as {@code tcp}. */
    public static final class EnvironmentProvider implements ClusterConnector.Provider {

        /** For the {@link java.util.ServiceLoader}. */
        public EnvironmentProvider() {
        }

        @Override
        public String name() {
            return "tcp";
        }

        @Override
        public ClusterConnector connector(LaunchEnvironment environment) {
            return builder().fromEnvironment(environment).build();
        }
    }
}

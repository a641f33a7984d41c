package io.lgc4j.net;

import io.lgc4j.core.comm.FrameDescriptor;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.IntFunction;

/**
 * Everything one endpoint needs to join a {@link TcpCluster}: who it is, where endpoint 0 listens, where it listens
 * itself, the job token and the deadlines. The compact constructor rejects a bad value naming the field, the value
 * and what was expected.
 *
 * <pre>{@code
 * byte[] token = JobToken.fromEnvironment("LGC_JOB_TOKEN");
 * InetSocketAddress master = new InetSocketAddress("10.0.0.1", 7070);
 * NetSettings settings = NetSettings.defaults(rank, 5, jobId, master, token)
 *         .withNames(e -> e < 4 ? "rank " + e : "the server");
 * try (TcpCluster cluster = TcpCluster.join(settings)) { ... }
 * }</pre>
 *
 * @param endpoint            this endpoint's id, in 0..endpoints-1; endpoint 0 is the rendezvous
 * @param endpoints           number of endpoints in the job, 1..65536
 * @param job                 the job id every endpoint of the run shares (stamped on every frame)
 * @param attempt             which attempt of the job this is (a restarted job refuses the previous attempt's
 *                            stragglers), at least 0
 * @param master              endpoint 0's data address: endpoint 0 binds its port, everyone else dials it;
 *                            {@code null} while it is not known yet ({@link TcpCluster#listen}, then
 *                            {@link TcpCluster#join(InetSocketAddress)})
 * @param bindHost            where this endpoint listens ("0.0.0.0" for every interface)
 * @param bindPort            the port this endpoint listens on, 0 for any free port; endpoint 0 listens on
 *                            {@code master}'s port and accepts 0 or that port here
 * @param advertiseHost       the host others dial to reach this endpoint; {@code null} for {@code bindHost}, or
 *                            when that is a wildcard, the address this endpoint reaches endpoint 0 from (the
 *                            loopback address on one machine)
 * @param token               the job token, the key of the handshake's HMAC, at least 16 bytes; never sent
 * @param rendezvousTimeout   how long {@link TcpCluster#join} waits for the whole table and all links
 * @param receiveTimeout      deadline of one receive in steady state (and of a send that cannot progress)
 * @param firstReceiveTimeout deadline of the first receive from each peer (model loading, warm-up)
 * @param heartbeatInterval   a LINK heartbeat goes on a link nothing was written to for this long
 * @param idleTimeout         nothing at all read from a peer for this long: that peer is lost
 * @param names               how messages name an endpoint, e.g. {@code e -> e < 4 ? "rank " + e : "the server"}
 * @param tls                 mutual TLS for every link, or {@code null} for plain TCP (the token's handshake runs
 *                            either way)
 * @param plan                the run's plan fingerprint (the parameter server's fusion plan, say), sent in every
 *                            HELLO: a peer with another is refused ({@link Plan#NONE} when there is nothing to check)
 */
public record NetSettings(int endpoint, int endpoints, int job, int attempt, InetSocketAddress master,
                          String bindHost, int bindPort, String advertiseHost, byte[] token,
                          Duration rendezvousTimeout, Duration receiveTimeout, Duration firstReceiveTimeout,
                          Duration heartbeatInterval, Duration idleTimeout, IntFunction<String> names, Tls tls,
                          Plan plan) {

    /**
     * What every endpoint of the run must agree on beyond the job: a hash, and what it stands for in the message
     * that refuses a peer with another.
     *
     * @param hash    64 bits, equal on every endpoint of a run
     * @param meaning e.g. {@code "fusion plan 0x…: 431,080 elements in 2 buffers of 262,144 over 4 shards"}
     */
    public record Plan(long hash, String meaning) {
        /** Nothing to check: hash 0. */
        public static final Plan NONE = new Plan(0L, "no plan");

        /** Rejects a null meaning. */
        public Plan {
            java.util.Objects.requireNonNull(meaning, "meaning");
        }
    }

    /** Shortest job token accepted. */
    public static final int MIN_TOKEN_LENGTH = 16;
    /** Longest advertised host name, in UTF-8 bytes (it travels in one length byte). */
    public static final int MAX_HOST_LENGTH = 255;

    /**
     * Mutual TLS from PEM files: every endpoint presents {@code certChain} (its certificate first) with
     * {@code privateKey} (PKCS#8) and accepts only peers whose certificate chains to {@code trustedCa}. A job's CA
     * vouches for its endpoints; host names are not checked.
     *
     * <pre>{@code
     * settings.withTls(new NetSettings.Tls(Path.of("node.crt"), Path.of("node.key"), Path.of("job-ca.crt")))
     * }</pre>
     *
     * @param certChain  PEM certificate chain of this endpoint
     * @param privateKey PEM PKCS#8 private key of the chain's first certificate
     * @param trustedCa  PEM certificate(s) of the CA that signs every endpoint of the job
     */
    public record Tls(java.nio.file.Path certChain, java.nio.file.Path privateKey, java.nio.file.Path trustedCa) {
        /** Checks that every file is given and readable. */
        public Tls {
            readable("tls.certChain", certChain);
            readable("tls.privateKey", privateKey);
            readable("tls.trustedCa", trustedCa);
        }

        private static void readable(String field, java.nio.file.Path file) {
            if (file == null || !java.nio.file.Files.isReadable(file)) {
                throw invalid(field, file, "a readable PEM file");
            }
        }
    }

    /** Checks every value; see the components. */
    public NetSettings {
        plan = plan == null ? Plan.NONE : plan;
        int maxEndpoints = FrameDescriptor.MAX_ENDPOINT + 1;
        if (endpoints < 1 || endpoints > maxEndpoints) {
            throw invalid("endpoints", endpoints, "1.." + maxEndpoints);
        }
        if (endpoint < 0 || endpoint >= endpoints) {
            throw invalid("endpoint", endpoint, "0.." + (endpoints - 1) + " (endpoints=" + endpoints + ")");
        }
        if (attempt < 0) {
            throw invalid("attempt", attempt, "at least 0");
        }
        if (master != null && master.getPort() < 1) {
            throw invalid("master", Addresses.show(master),
                    "endpoint 0's host and a port in 1..65535 (everyone dials it)");
        }
        if (bindHost == null || bindHost.isBlank()) {
            throw invalid("bindHost", bindHost == null ? null : '"' + bindHost + '"',
                    "a host name or address (\"0.0.0.0\" for every interface)");
        }
        if (bindPort < 0 || bindPort > 0xFFFF) {
            throw invalid("bindPort", bindPort, "0..65535 (0 for any free port)");
        }
        if (endpoint == 0 && master != null && bindPort != 0 && bindPort != master.getPort()) {
            throw invalid("bindPort", bindPort, "0 or master's port " + master.getPort()
                    + " (endpoint 0 listens on master's port)");
        }
        if (advertiseHost != null && (advertiseHost.isBlank()
                || advertiseHost.getBytes(StandardCharsets.UTF_8).length > MAX_HOST_LENGTH)) {
            throw invalid("advertiseHost", '"' + advertiseHost + '"',
                    "null or a host name of 1.." + MAX_HOST_LENGTH + " UTF-8 bytes");
        }
        if (token == null || token.length < MIN_TOKEN_LENGTH) {
            // The length only: a token's bytes never appear in a message.
            throw invalid("token", token == null ? null : token.length + " bytes",
                    "at least " + MIN_TOKEN_LENGTH + " bytes");
        }
        token = token.clone();
        positive("rendezvousTimeout", rendezvousTimeout);
        positive("receiveTimeout", receiveTimeout);
        positive("firstReceiveTimeout", firstReceiveTimeout);
        positive("heartbeatInterval", heartbeatInterval);
        positive("idleTimeout", idleTimeout);
        if (heartbeatInterval.compareTo(idleTimeout) >= 0) {
            throw invalid("heartbeatInterval", heartbeatInterval.toMillis() + " ms",
                    "shorter than idleTimeout=" + idleTimeout.toMillis() + " ms (a live peer must be heard from"
                            + " before it is declared lost)");
        }
        if (names == null) {
            throw invalid("names", null, "a function naming endpoints");
        }
    }

    /**
     * Settings with the usual values: listen on every interface at any free port (endpoint 0: on {@code master}'s
     * port), advertise the address endpoint 0 is reached from, rendezvous within 120 s, receive within 120 s (the
     * first receive from each peer within 10 min), a heartbeat after 1 s without writes, a peer lost after 15 s
     * without anything read, endpoints named "endpoint e". Attempt 0.
     */
    public static NetSettings defaults(int endpoint, int endpoints, int job, InetSocketAddress master, byte[] token) {
        return new NetSettings(endpoint, endpoints, job, 0, master, "0.0.0.0", 0, null, token,
                Duration.ofSeconds(120), Duration.ofSeconds(120), Duration.ofMinutes(10), Duration.ofSeconds(1),
                Duration.ofSeconds(15), e -> "endpoint " + e, null, Plan.NONE);
    }

    /** The job token (a copy: the settings keep their own). */
    @Override
    public byte[] token() {
        return token.clone();
    }

    /** These settings for another attempt of the job. */
    public NetSettings withAttempt(int newAttempt) {
        return new NetSettings(endpoint, endpoints, job, newAttempt, master, bindHost, bindPort, advertiseHost, token,
                rendezvousTimeout, receiveTimeout, firstReceiveTimeout, heartbeatInterval, idleTimeout,
                names, tls, plan);
    }

    /** These settings with endpoint 0 at {@code newMaster}. */
    public NetSettings withMaster(InetSocketAddress newMaster) {
        return new NetSettings(endpoint, endpoints, job, attempt, newMaster, bindHost, bindPort, advertiseHost, token,
                rendezvousTimeout, receiveTimeout, firstReceiveTimeout, heartbeatInterval, idleTimeout,
                names, tls, plan);
    }

    /** These settings listening on {@code host}:{@code port}, advertising {@code advertised} (may be null). */
    public NetSettings withBind(String host, int port, String advertised) {
        return new NetSettings(endpoint, endpoints, job, attempt, master, host, port, advertised, token,
                rendezvousTimeout, receiveTimeout, firstReceiveTimeout, heartbeatInterval, idleTimeout,
                names, tls, plan);
    }

    /** These settings with other deadlines. */
    public NetSettings withTimeouts(Duration rendezvous, Duration receive, Duration firstReceive, Duration heartbeat,
                                    Duration idle) {
        return new NetSettings(endpoint, endpoints, job, attempt, master, bindHost, bindPort, advertiseHost, token,
                rendezvous, receive, firstReceive, heartbeat, idle, names, tls, plan);
    }

    /** These settings naming endpoints with {@code newNames}. */
    public NetSettings withNames(IntFunction<String> newNames) {
        return new NetSettings(endpoint, endpoints, job, attempt, master, bindHost, bindPort, advertiseHost, token,
                rendezvousTimeout, receiveTimeout, firstReceiveTimeout, heartbeatInterval, idleTimeout,
                newNames, tls, plan);
    }

    /** These settings with the run's plan fingerprint. */
    public NetSettings withPlan(Plan newPlan) {
        return new NetSettings(endpoint, endpoints, job, attempt, master, bindHost, bindPort, advertiseHost, token,
                rendezvousTimeout, receiveTimeout, firstReceiveTimeout, heartbeatInterval, idleTimeout, names, tls,
                newPlan);
    }

    /** These settings with mutual TLS ({@code null}: plain TCP). */
    public NetSettings withTls(Tls newTls) {
        return new NetSettings(endpoint, endpoints, job, attempt, master, bindHost, bindPort, advertiseHost, token,
                rendezvousTimeout, receiveTimeout, firstReceiveTimeout, heartbeatInterval, idleTimeout,
                names, newTls, plan);
    }

    /** How messages name {@code e}. */
    public String name(int e) {
        return names.apply(e);
    }

    /** Never shows the token. */
    @Override
    public String toString() {
        return "NetSettings[endpoint=" + endpoint + ", endpoints=" + endpoints + ", job="
                + Integer.toUnsignedString(job) + ", attempt=" + attempt + ", master=" + master + ", bind=" + bindHost
                + ":" + bindPort + ", advertiseHost=" + advertiseHost + ", token=<" + token.length + " bytes>"
                + ", rendezvousTimeout=" + rendezvousTimeout + ", receiveTimeout=" + receiveTimeout
                + ", firstReceiveTimeout=" + firstReceiveTimeout + ", heartbeatInterval=" + heartbeatInterval
                + ", idleTimeout=" + idleTimeout + ", tls=" + tls + "]";
    }

    private static void positive(String field, Duration value) {
        if (value == null || value.isNegative() || value.isZero() || value.toMillis() < 1) {
            throw invalid(field, value == null ? null : value.toMillis() + " ms", "a duration of at least 1 ms");
        }
    }

    static IllegalArgumentException invalid(String field, Object value, String expected) {
        return new IllegalArgumentException(field + ": expected " + expected + ", found " + value);
    }
}

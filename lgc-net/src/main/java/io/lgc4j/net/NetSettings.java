package io.lgc4j.net;

import io.lgc4j.core.comm.FrameDescriptor;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.function.IntFunction;

/**
 * Everything one endpoint needs to join a {@link TcpCluster}; {@link #builder()} names every setting and holds the
 * defaults, and every constructor rejects a bad value naming the field, the value and what was expected.
 * <pre>{@code
 * NetSettings settings = NetSettings.builder()
 *         .endpoint(rank).endpoints(5).job(jobId)
 *         .master(new InetSocketAddress("10.0.0.1", 7070))
 *         .token(JobToken.fromEnvironment("LGC_TOKEN"))
 *         .names(e -> e < 4 ? "rank " + e : "the server")
 *         .build();
 * try (TcpCluster cluster = TcpCluster.join(settings)) { ... }
 * settings.toBuilder().attempt(1).build();   // the same settings for the job's next attempt
 * }</pre>
 *
 * @param identity   who this endpoint is, in which attempt of which job
 * @param addressing where endpoint 0 listens, where this endpoint listens and the host others dial
 * @param token      the job token, the key of the handshake's HMAC, at least 16 bytes; never sent
 * @param deadlines  how long the rendezvous, a receive and a silent peer may take
 * @param names      how messages name an endpoint, e.g. {@code e -> e < 4 ? "rank " + e : "the server"}
 * @param tls        mutual TLS for every link, or {@code null} for plain TCP (the token's handshake runs either way)
 * @param plan       the run's plan fingerprint, sent in every HELLO: a peer with another is refused
 *                   ({@link Plan#NONE} when there is nothing to check)
 */
public record NetSettings(Identity identity, Addressing addressing, byte[] token, Deadlines deadlines,
                          IntFunction<String> names, Tls tls, Plan plan) {

    /**
     * Who an endpoint is: its id among the job's endpoints, the job and the attempt.
     *
     * @param endpoint  this endpoint's id, in 0..endpoints-1; endpoint 0 is the rendezvous
     * @param endpoints number of endpoints in the job, 1..65536
     * @param job       the job id every endpoint of the run shares (stamped on every frame)
     * @param attempt   which attempt of the job this is (a restarted job refuses the previous attempt's
     *                  stragglers), at least 0
     */
    public record Identity(int endpoint, int endpoints, int job, int attempt) {

        /** Checks every value, naming the field. */
        public Identity {
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
        }
    }

    /**
     * Where endpoint 0 listens, where this endpoint listens and the host the others dial to reach it.
     *
     * @param master        endpoint 0's data address: endpoint 0 binds its port, everyone else dials it;
     *                      {@code null} while it is not known yet ({@link TcpCluster#listen}, then
     *                      {@link TcpCluster#join(InetSocketAddress)})
     * @param bindHost      where this endpoint listens ("0.0.0.0" for every interface)
     * @param bindPort      the port this endpoint listens on, 0 for any free port; endpoint 0 listens on
     *                      {@code master}'s port and accepts 0 or that port here
     * @param advertiseHost the host others dial to reach this endpoint; {@code null} for {@code bindHost}, or when
     *                      that is a wildcard, the address this endpoint reaches endpoint 0 from (the loopback
     *                      address on one machine)
     */
    public record Addressing(InetSocketAddress master, String bindHost, int bindPort, String advertiseHost) {

        /** Checks every value, naming the field; endpoint 0's port is checked by {@link NetSettings}. */
        public Addressing {
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
            if (advertiseHost != null && (advertiseHost.isBlank()
                    || advertiseHost.getBytes(StandardCharsets.UTF_8).length > MAX_HOST_LENGTH)) {
                throw invalid("advertiseHost", '"' + advertiseHost + '"',
                        "null or a host name of 1.." + MAX_HOST_LENGTH + " UTF-8 bytes");
            }
        }
    }

    /**
     * How long an endpoint waits.
     *
     * @param rendezvousTimeout   how long {@link TcpCluster#join} waits for the whole table and all links
     * @param receiveTimeout      deadline of one receive in steady state (and of a send that cannot progress)
     * @param firstReceiveTimeout deadline of the first receive from each peer (model loading, warm-up)
     * @param heartbeatInterval   a LINK heartbeat goes on a link nothing was written to for this long
     * @param idleTimeout         nothing at all read from a peer for this long: that peer is lost
     */
    public record Deadlines(Duration rendezvousTimeout, Duration receiveTimeout, Duration firstReceiveTimeout,
                            Duration heartbeatInterval, Duration idleTimeout) {

        /** Checks every duration, naming the field; a heartbeat must come before a peer counts as lost. */
        public Deadlines {
            positive("rendezvousTimeout", rendezvousTimeout);
            positive("receiveTimeout", receiveTimeout);
            positive("firstReceiveTimeout", firstReceiveTimeout);
            positive("heartbeatInterval", heartbeatInterval);
            positive("idleTimeout", idleTimeout);
            if (heartbeatInterval.compareTo(idleTimeout) >= 0) {
                throw invalid("heartbeatInterval", heartbeatInterval.toMillis() + " ms",
                        "shorter than idleTimeout=" + idleTimeout.toMillis() + " ms (a live peer must be heard"
                                + " from before it is declared lost)");
            }
        }
    }

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
            Objects.requireNonNull(meaning, "meaning");
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
     * builder.tls(new NetSettings.Tls(Path.of("node.crt"), Path.of("node.key"), Path.of("job-ca.crt")))
     * }</pre>
     *
     * @param certChain  PEM certificate chain of this endpoint
     * @param privateKey PEM PKCS#8 private key of the chain's first certificate
     * @param trustedCa  PEM certificate(s) of the CA that signs every endpoint of the job
     */
    public record Tls(Path certChain, Path privateKey, Path trustedCa) {
        /** Checks that every file is given and readable. */
        public Tls {
            readable("tls.certChain", certChain);
            readable("tls.privateKey", privateKey);
            readable("tls.trustedCa", trustedCa);
        }

        private static void readable(String field, Path file) {
            if (file == null || !Files.isReadable(file)) {
                throw invalid(field, file, "a readable PEM file");
            }
        }
    }

    /**
     * Checks what spans the parts (endpoint 0 listens on master's port), the token and the names; each part checks
     * its own values. Public only because a record's canonical constructor must be as visible as the record: build
     * settings with {@link #builder()}, which names each value.
     */
    public NetSettings {
        plan = plan == null ? Plan.NONE : plan;
        Objects.requireNonNull(identity, "identity");
        Objects.requireNonNull(addressing, "addressing");
        InetSocketAddress master = addressing.master();
        if (identity.endpoint() == 0 && master != null && addressing.bindPort() != 0
                && addressing.bindPort() != master.getPort()) {
            throw invalid("bindPort", addressing.bindPort(), "0 or master's port " + master.getPort()
                    + " (endpoint 0 listens on master's port)");
        }
        if (token == null || token.length < MIN_TOKEN_LENGTH) {
            // The length only: a token's bytes never appear in a message.
            throw invalid("token", token == null ? null : token.length + " bytes",
                    "at least " + MIN_TOKEN_LENGTH + " bytes");
        }
        token = token.clone();
        Objects.requireNonNull(deadlines, "deadlines");
        if (names == null) {
            throw invalid("names", null, "a function naming endpoints");
        }
    }

    /** A builder with every setting at its default; see {@link Builder}. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding these settings, to change some of them. */
    public Builder toBuilder() {
        Builder b = new Builder()
                .endpoint(identity.endpoint()).endpoints(identity.endpoints()).job(identity.job())
                .attempt(identity.attempt()).master(addressing.master()).bindHost(addressing.bindHost())
                .bindPort(addressing.bindPort()).advertiseHost(addressing.advertiseHost())
                .rendezvousTimeout(deadlines.rendezvousTimeout()).receiveTimeout(deadlines.receiveTimeout())
                .firstReceiveTimeout(deadlines.firstReceiveTimeout())
                .heartbeatInterval(deadlines.heartbeatInterval()).idleTimeout(deadlines.idleTimeout())
                .names(names).tls(tls).plan(plan);
        b.token = token; // already a private copy
        return b;
    }

    /** The job token (a copy: the settings keep their own). */
    @Override
    public byte[] token() {
        return token.clone();
    }

    /** How messages name {@code e}. */
    public String name(int e) {
        return names.apply(e);
    }

    /** Equal components, the token compared by content (a record compares an array by reference). */
    @Override
    public boolean equals(Object o) {
        return o instanceof NetSettings other && identity.equals(other.identity)
                && addressing.equals(other.addressing) && Arrays.equals(token, other.token)
                && deadlines.equals(other.deadlines) && names.equals(other.names) && Objects.equals(tls, other.tls)
                && plan.equals(other.plan);
    }

    /** Leaves the token out: nothing derived from it leaves the settings. */
    @Override
    public int hashCode() {
        return Objects.hash(identity, addressing, deadlines, names, tls, plan);
    }

    /** Never shows the token. */
    @Override
    public String toString() {
        return "NetSettings[endpoint=" + identity.endpoint() + ", endpoints=" + identity.endpoints() + ", job="
                + Integer.toUnsignedString(identity.job()) + ", attempt=" + identity.attempt() + ", master="
                + addressing.master() + ", bind=" + addressing.bindHost() + ":" + addressing.bindPort()
                + ", advertiseHost=" + addressing.advertiseHost() + ", token=<" + token.length + " bytes>"
                + ", rendezvousTimeout=" + deadlines.rendezvousTimeout() + ", receiveTimeout="
                + deadlines.receiveTimeout() + ", firstReceiveTimeout=" + deadlines.firstReceiveTimeout()
                + ", heartbeatInterval=" + deadlines.heartbeatInterval() + ", idleTimeout=" + deadlines.idleTimeout()
                + ", tls=" + tls + "]";
    }

    /**
     * Names every setting of a {@link NetSettings} and holds the defaults: listen on every interface at any free port
     * (endpoint 0: on {@code master}'s port), advertise the address endpoint 0 is reached from, rendezvous within
     * 120 s, receive within 120 s (the first receive from each peer within 10 min), a heartbeat after 1 s without
     * writes, a peer lost after 15 s without anything read, endpoints named "endpoint e", attempt 0, plain TCP, no
     * plan. {@code endpoint}, {@code endpoints}, {@code job} and {@code token} have no default. {@link #build()}
     * checks every value and throws an {@link IllegalArgumentException} naming the setting, the value and what was
     * expected: {@code "heartbeatInterval: expected shorter than idleTimeout=5000 ms (...), found 5000 ms"}.
     *
     * <pre>{@code
     * NetSettings settings = NetSettings.builder()
     *         .endpoint(rank).endpoints(5).job(jobId).master(new InetSocketAddress("10.0.0.1", 7070))
     *         .token(JobToken.fromEnvironment("LGC_TOKEN"))
     *         .names(e -> e < 4 ? "rank " + e : "the server")
     *         .build();
     * }</pre>
     */
    public static final class Builder {
        /** Outside the int range: the setting was not given. */
        private static final long UNSET = Long.MIN_VALUE;

        private long endpoint = UNSET;
        private long endpoints = UNSET;
        private long job = UNSET;
        private int attempt = 0;
        private InetSocketAddress master;
        private String bindHost = "0.0.0.0";
        private int bindPort = 0;
        private String advertiseHost;
        private byte[] token;
        private Duration rendezvousTimeout = Duration.ofSeconds(120);
        private Duration receiveTimeout = Duration.ofSeconds(120);
        private Duration firstReceiveTimeout = Duration.ofMinutes(10);
        private Duration heartbeatInterval = Duration.ofSeconds(1);
        private Duration idleTimeout = Duration.ofSeconds(15);
        private IntFunction<String> names = e -> "endpoint " + e;
        private Tls tls;
        private Plan plan = Plan.NONE;

        private Builder() {
        }

        /** See {@link Identity#endpoint()}; no default. */
        public Builder endpoint(int value) {
            endpoint = value;
            return this;
        }

        /** See {@link Identity#endpoints()}; no default. */
        public Builder endpoints(int value) {
            endpoints = value;
            return this;
        }

        /** See {@link Identity#job()}; no default. */
        public Builder job(int value) {
            job = value;
            return this;
        }

        /** See {@link Identity#attempt()}; default 0. */
        public Builder attempt(int value) {
            attempt = value;
            return this;
        }

        /** See {@link Addressing#master()}; default {@code null} (not known yet). */
        public Builder master(InetSocketAddress value) {
            master = value;
            return this;
        }

        /** See {@link Addressing#bindHost()}; default "0.0.0.0". */
        public Builder bindHost(String value) {
            bindHost = value;
            return this;
        }

        /** See {@link Addressing#bindPort()}; default 0 (any free port; endpoint 0: master's). */
        public Builder bindPort(int value) {
            bindPort = value;
            return this;
        }

        /** See {@link Addressing#advertiseHost()}; default {@code null} (derived). */
        public Builder advertiseHost(String value) {
            advertiseHost = value;
            return this;
        }

        /** See {@link NetSettings#token()}; no default. The builder keeps its own copy. */
        public Builder token(byte[] value) {
            token = value == null ? null : value.clone();
            return this;
        }

        /** See {@link Deadlines#rendezvousTimeout()}; default 120 s. */
        public Builder rendezvousTimeout(Duration value) {
            rendezvousTimeout = value;
            return this;
        }

        /** See {@link Deadlines#receiveTimeout()}; default 120 s. */
        public Builder receiveTimeout(Duration value) {
            receiveTimeout = value;
            return this;
        }

        /** See {@link Deadlines#firstReceiveTimeout()}; default 10 min. */
        public Builder firstReceiveTimeout(Duration value) {
            firstReceiveTimeout = value;
            return this;
        }

        /** See {@link Deadlines#heartbeatInterval()}; default 1 s. */
        public Builder heartbeatInterval(Duration value) {
            heartbeatInterval = value;
            return this;
        }

        /** See {@link Deadlines#idleTimeout()}; default 15 s. */
        public Builder idleTimeout(Duration value) {
            idleTimeout = value;
            return this;
        }

        /** See {@link NetSettings#names()}; default {@code e -> "endpoint " + e}. */
        public Builder names(IntFunction<String> value) {
            names = value;
            return this;
        }

        /** See {@link NetSettings#tls()}; default {@code null} (plain TCP). */
        public Builder tls(Tls value) {
            tls = value;
            return this;
        }

        /** See {@link NetSettings#plan()}; default {@link Plan#NONE} ({@code null} means the same). */
        public Builder plan(Plan value) {
            plan = value;
            return this;
        }

        /** The endpoint; an {@link IllegalArgumentException} naming it when it was not given. */
        int requiredEndpoint() {
            return required("endpoint", endpoint);
        }

        /**
         * The settings, every value checked.
         *
         * @throws IllegalArgumentException naming the first bad or missing setting, its value and what was expected
         */
        public NetSettings build() {
            return new NetSettings(new Identity(required("endpoint", endpoint), required("endpoints", endpoints),
                    required("job", job), attempt), new Addressing(master, bindHost, bindPort, advertiseHost), token,
                    new Deadlines(rendezvousTimeout, receiveTimeout, firstReceiveTimeout, heartbeatInterval,
                            idleTimeout), names, tls, plan);
        }

        private static int required(String field, long value) {
            if (value == UNSET) {
                throw invalid(field, "nothing", "a value (it has no default)");
            }
            return (int) value;
        }
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

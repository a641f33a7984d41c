package io.lgc4j.net;

import io.lgc4j.core.comm.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.handler.timeout.IdleStateHandler;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * One endpoint of a job's TCP cluster: {@link #join} meets the others through endpoint 0 and returns once a full mesh
 * of links authenticated with the job token is up (rendezvous and handshake: docs/architecture/tcp.md).
 * <pre>{@code
 * NetSettings settings = NetSettings.builder().endpoint(rank).endpoints(endpoints).job(jobId).master(master)
 *         .token(JobToken.fromFile(tokenFile)).build();
 * TcpCluster cluster = TcpCluster.join(settings);          // returns once every link is up
 * try {
 *     Transport transport = cluster.transport();           // wrap it in the run's TrafficMeter
 *     transport.send(peer, FrameCodec.seal(payload, TrafficKind.VALUES, Stage.FULL, step));
 *     Frame in = transport.receive(peer);                  // PeerLostException if the peer is gone
 *     ...
 *     cluster.close();                                     // goodbye on every link
 * } catch (PeerLostException e) {
 *     cluster.abort(e.peer(), e.getMessage());             // every process then names the same first loss
 * }
 * }</pre>
 * A lost peer is a {@link io.lgc4j.core.comm.PeerLostException} naming it; {@link #abort} tells every peer which.
 */
public final class TcpCluster implements AutoCloseable {
    /** A connection must authenticate within this (or the rendezvous deadline, if shorter). */
    static final long HANDSHAKE_TIMEOUT_MS = 5_000;
    /** How long {@link #close()} waits for the peers to read the last bytes and close their side. */
    static final long CLOSE_TIMEOUT_MS = 5_000;
    /** How long endpoint 0, giving up the rendezvous, waits for its reasons to be written. */
    static final long GIVE_UP_WRITE_MS = 1_000;
    private static final System.Logger LOGGER = System.getLogger("io.lgc4j.net");

    /** Final but for {@link #join(InetSocketAddress)}, which names endpoint 0 once after {@link #listen}. */
    private volatile NetSettings settings;
    private final byte[] token;
    private final NetTransport.Log log;
    private final NetTransport transport;
    private final LinkPipelines pipelines;
    private final Set<Channel> channels = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closing = new AtomicBoolean();
    private Channel server;
    private int boundPort;

    // rendezvous state, guarded by transport.lock
    private final Channel[] claims;
    private final HandshakeHandler[] registrations;
    private final InetSocketAddress[] registered;
    private final InetSocketAddress[] dialAddresses;
    private final String[] lastFailure;
    private final int[] dialAttempts;
    private volatile List<InetSocketAddress> table;
    private String fatal;
    private boolean rendezvousStarted;
    private boolean rendezvousOver;
    private long deadlineNanos;

    private TcpCluster(NetSettings settings, NetTransport.Log log) {
        this.settings = settings;
        this.token = settings.token();
        this.log = log;
        this.transport = new NetTransport(settings, log);
        int n = settings.identity().endpoints();
        this.claims = new Channel[n];
        this.registrations = new HandshakeHandler[n];
        this.registered = new InetSocketAddress[n];
        this.dialAddresses = new InetSocketAddress[n];
        this.lastFailure = new String[n];
        this.dialAttempts = new int[n];
        this.pipelines = new LinkPipelines(settings);
    }

    /**
     * Binds, meets every other endpoint of the job and returns once a link to each is up.
     *
     * @throws RendezvousException naming the endpoints still missing when the rendezvous deadline passes, or
     *                             saying why a peer refused this endpoint (wrong token, job, attempt, ...)
     */
    public static TcpCluster join(NetSettings settings) {
        return join(settings, systemLog());
    }

    /** As {@link #join(NetSettings)}, logging to {@code log} (tests watch the refusals this way). */
    static TcpCluster join(NetSettings settings, NetTransport.Log log) {
        if (settings.addressing().master() == null) {
            throw NetSettings.invalid("master", null, "endpoint 0's host and a port in 1..65535 (everyone dials it;"
                    + " when it is not known yet, TcpCluster.listen first and join(master) once it is)");
        }
        TcpCluster cluster = listen(settings, log);
        return cluster.join(settings.addressing().master());
    }

    /**
     * Binds and returns at once, before anyone is met: the first half of {@link #join(NetSettings)}, for an engine
     * that exchanges the endpoints' addresses itself (Spark's barrier {@code allGather}) and must know this
     * endpoint's port before it does. Every endpoint, endpoint 0 too, listens on
     * {@code settings.addressing().bindPort()} (0: any free port; {@link #boundPort()} tells which) unless
     * {@code settings.addressing().master()} is given, whose port endpoint 0 then takes. The rendezvous deadline runs from here. Peers that dial before {@link
     * #join(InetSocketAddress)} are handled as they would be after it. Close the cluster if the join never comes.
     *
     * @throws RendezvousException when it cannot listen there
     */
    public static TcpCluster listen(NetSettings settings) {
        return listen(settings, systemLog());
    }

    static TcpCluster listen(NetSettings settings, NetTransport.Log log) {
        TcpCluster cluster = new TcpCluster(settings, log);
        try {
            cluster.deadlineNanos = System.nanoTime() + settings.deadlines().rendezvousTimeout().toNanos();
            cluster.bind();
            return cluster;
        } catch (RuntimeException | Error e) {
            cluster.shutdown(null);
            throw e;
        }
    }

    /**
     * The second half of {@link #join(NetSettings)} after {@link #listen}: meets every other endpoint through
     * endpoint 0 at {@code master} (endpoint 0 itself ignores it but for the messages) and returns once a link to
     * each is up, within the rendezvous deadline that started at {@code listen}. Closes this cluster when it fails.
     *
     * @return this cluster
     * @throws RendezvousException as {@link #join(NetSettings)}
     * @throws IllegalStateException when called twice
     */
    public TcpCluster join(InetSocketAddress master) {
        if (rendezvousStarted) {
            throw new IllegalStateException(settings.name(settings.identity().endpoint()) + " already joined its job");
        }
        rendezvousStarted = true;
        try {
            if (master == null && settings.identity().endpoint() != 0) {
                throw NetSettings.invalid("master", null, "endpoint 0's host and a port in 1..65535 (everyone dials"
                        + " it)");
            }
            settings = settings.toBuilder().master(master).build();
            rendezvous();
            return this;
        } catch (RuntimeException | Error e) {
            shutdown(null);
            throw e;
        }
    }

    /** This endpoint's transport. Not metered: wrap it in the caller's meter. */
    public Transport transport() {
        return transport;
    }

    /**
     * Where each endpoint listens, by endpoint id: the table endpoint 0 sent (host names resolved here, on the
     * caller's thread).
     */
    public List<InetSocketAddress> endpointTable() {
        List<InetSocketAddress> wire = table;
        return wire == null ? List.of() : wire.stream()
                .map(a -> a.isUnresolved() ? new InetSocketAddress(a.getHostString(), a.getPort()) : a)
                .toList();
    }

    /**
     * Whether every link of this endpoint runs mutual TLS ({@link NetSettings#tls()} given): a peer's certificate
     * was checked against the trusted CAs before its HELLO was read.
     */
    public boolean tls() {
        return pipelines.tls();
    }

    /** The data port this endpoint actually bound. */
    public int boundPort() {
        return boundPort;
    }

    /**
     * Bytes this endpoint moved so far, by path: in place (a pooled frame written by the socket from where the
     * payload was encoded, a received frame read where its payload is decoded from) or copied once more on the way
     * (a heap frame Netty copies into direct memory; received bytes copied out of a read buffer into their frame);
     * and what the frame pool allocated. Frames the endpoint's user sent and received, whole frames (header and
     * trailer included); the transport's own LINK frames are not counted. A benchmark's figure: copies per byte,
     * allocation per step.
     */
    public Copies copies() {
        return transport.copies();
    }

    /**
     * What {@link #copies()} counts.
     *
     * @param sentInPlace      frame bytes written to the socket from pooled frames, no copy
     * @param sentCopied       frame bytes of heap frames, copied into direct memory by Netty
     * @param receivedInPlace  frame bytes the socket read into the frame's memory, or frames that stayed in the read
     *                         buffer (a slice)
     * @param receivedCopied   frame bytes copied from a read buffer (or TLS's plaintext) into a frame's memory
     * @param poolLeases       frame buffers leased (sends and receives)
     * @param poolAllocations  of those, buffers newly allocated (the others reused)
     * @param poolAllocatedBytes direct bytes the pool allocated
     */
    public record Copies(long sentInPlace, long sentCopied, long receivedInPlace, long receivedCopied,
                         long poolLeases, long poolAllocations, long poolAllocatedBytes) {
    }

    /** Whether the native epoll transport is in use (else NIO). */
    public boolean nativeTransport() {
        return pipelines.epoll();
    }

    /**
     * Tells every live peer that {@code lostEndpoint} was lost for {@code reason} (a LINK abort: their receives
     * throw {@link io.lgc4j.core.comm.PeerLostException} naming {@code lostEndpoint} and this endpoint), then
     * closes without goodbye. Does nothing after {@link #close()}.
     */
    public void abort(int lostEndpoint, String reason) {
        if (lostEndpoint < 0 || lostEndpoint >= settings.identity().endpoints()) {
            throw new IllegalArgumentException("lostEndpoint: expected 0.." + (settings.identity().endpoints() - 1)
                    + ", found " + lostEndpoint);
        }
        int self = settings.identity().endpoint();
        log.warning(settings.name(self) + " aborts the job: " + (lostEndpoint == self
                ? "" : "lost " + settings.name(lostEndpoint) + ": ") + reason);
        shutdown(transport.stamped(new LinkMessage.Abort(lostEndpoint, reason)));
    }

    /**
     * Orderly close: a GOODBYE after what was sent on every live link, each link closed once its peer has read it
     * (at most {@value #CLOSE_TIMEOUT_MS} ms), then the event loops stop. Idempotent; afterwards the transport's
     * operations throw {@link io.lgc4j.core.comm.TransportClosedException}.
     */
    @Override
    public void close() {
        shutdown(transport.stamped(new LinkMessage.Goodbye()));
    }

    // ---------------------------------------------------------------- rendezvous

    private void rendezvous() {
        int self = settings.identity().endpoint();
        int n = settings.identity().endpoints();
        if (n == 1) {
            setTable(List.of(InetSocketAddress.createUnresolved(ownHost(null), boundPort)));
        } else if (self == 0) {
            try {
                awaitRendezvous(() -> missingRegistrations().isEmpty(), this::registrationsMissing);
            } catch (RendezvousException e) {
                giveUp(registrationsMissing() + " within " + settings.deadlines().rendezvousTimeout().toMillis()
                        + " ms");
                throw e;
            }
            activateRegistrations();
        } else {
            dial(0, settings.addressing().master());
            awaitRendezvous(() -> table != null, this::tableMissing);
            for (int j = 1; j < self; j++) {
                dial(j, table.get(j));
            }
        }
        awaitRendezvous(() -> transport.missingLinks().isEmpty(), this::linksMissing);
        transport.lock.lock();
        try {
            rendezvousOver = true;
        } finally {
            transport.lock.unlock();
        }
        log.info(settings.name(self) + " joined job " + Integer.toUnsignedString(settings.identity().job())
                + " (attempt " + settings.identity().attempt() + ") with " + (n - 1) + " links over "
                + (pipelines.epoll() ? "epoll" : "NIO")
                + (pipelines.tls() ? ", mutual TLS by " + pipelines.tlsProvider() : "")
                + ", listening on port " + boundPort);
    }

    private void bind() {
        InetSocketAddress master = settings.addressing().master();
        int port = settings.identity().endpoint() == 0 && master != null ? master.getPort()
                : settings.addressing().bindPort();
        ServerBootstrap bootstrap = pipelines.acceptor(ch -> {
            track(ch);
            return new HandshakeHandler(this, HandshakeHandler.Role.ACCEPTOR, -1);
        });
        ChannelFuture bound = bootstrap.bind(settings.addressing().bindHost(), port).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            throw new RendezvousException(settings.name(settings.identity().endpoint()) + " cannot listen on "
                    + settings.addressing().bindHost() + ":" + port + ": " + bound.cause().getMessage(), bound.cause());
        }
        server = bound.channel();
        boundPort = ((InetSocketAddress) server.localAddress()).getPort();
    }

    private void dial(int peer, InetSocketAddress address) {
        transport.lock.lock();
        try {
            if (rendezvousOver || fatal != null || closing.get()) {
                return;
            }
            dialAddresses[peer] = address;
        } finally {
            transport.lock.unlock();
        }
        Bootstrap bootstrap = pipelines.dialer(address, (int) Math.min(handshakeTimeoutMillis(), 2_000), ch -> {
            track(ch);
            return new HandshakeHandler(this, HandshakeHandler.Role.DIALER, peer);
        });
        try {
            bootstrap.connect(address).addListener((ChannelFuture f) -> {
                if (!f.isSuccess()) {
                    dialFailed(peer, "cannot connect to " + describeDialed(peer) + ": " + f.cause().getMessage(),
                            false);
                }
            });
        } catch (RejectedExecutionException e) {
            // closing: the event loops are gone
        }
    }

    private void awaitRendezvous(BooleanSupplier done, Supplier<String> missing) {
        transport.lock.lock();
        try {
            while (!done.getAsBoolean()) {
                if (fatal != null) {
                    throw new RendezvousException(settings.name(settings.identity().endpoint()) + " could not join job "
                            + Integer.toUnsignedString(settings.identity().job()) + ": " + fatal);
                }
                long remaining = deadlineNanos - System.nanoTime();
                if (remaining <= 0) {
                    throw new RendezvousException(settings.name(settings.identity().endpoint()) + " could not join job "
                            + Integer.toUnsignedString(settings.identity().job()) + " within "
                            + settings.deadlines().rendezvousTimeout().toMillis() + " ms: " + missing.get());
                }
                transport.changed.awaitNanos(remaining);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RendezvousException(settings.name(settings.identity().endpoint())
                    + " was interrupted while joining");
        } finally {
            transport.lock.unlock();
        }
    }

    /** Endpoint 0: frames on every registered link, then the table to each. */
    private void activateRegistrations() {
        List<InetSocketAddress> endpoints = new ArrayList<>(settings.identity().endpoints());
        List<HandshakeHandler> handlers = new ArrayList<>();
        transport.lock.lock();
        try {
            endpoints.add(InetSocketAddress.createUnresolved(ownHost(null), boundPort));
            for (int e = 1; e < settings.identity().endpoints(); e++) {
                endpoints.add(registered[e]);
                handlers.add(registrations[e]);
            }
        } finally {
            transport.lock.unlock();
        }
        setTable(List.copyOf(endpoints));
        for (HandshakeHandler handler : handlers) {
            Channel channel = handler.channel();
            try {
                channel.eventLoop().submit(() -> handler.activate(Handshake.table(channel.alloc(), table)))
                        .get(handshakeTimeoutMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RendezvousException(settings.name(0) + " was interrupted while joining");
            } catch (ExecutionException | TimeoutException | RejectedExecutionException e) {
                throw new RendezvousException(settings.name(0) + " could not send the endpoint table: " + e, e);
            }
        }
    }

    /**
     * Endpoint 0 gives up the rendezvous: every endpoint that registered (its link still in its handshake, waiting
     * for the table) gets a REFUSED with {@code reason}, so it reports why rather than the closed port it would dial
     * next. Waits (briefly) until the reasons are written.
     */
    private void giveUp(String reason) {
        List<HandshakeHandler> handlers = new ArrayList<>();
        transport.lock.lock();
        try {
            for (int e = 1; e < settings.identity().endpoints(); e++) {
                if (registrations[e] != null) {
                    handlers.add(registrations[e]);
                }
            }
        } finally {
            transport.lock.unlock();
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(GIVE_UP_WRITE_MS);
        for (HandshakeHandler handler : handlers) {
            Channel channel = handler.channel();
            try {
                ChannelFuture written = channel.eventLoop().submit(() -> handler.giveUp(reason))
                        .get(GIVE_UP_WRITE_MS, TimeUnit.MILLISECONDS);
                written.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (ExecutionException | TimeoutException | RejectedExecutionException e) {
                // that endpoint learns it from the closed connection instead
            }
        }
    }

    private void setTable(List<InetSocketAddress> endpoints) {
        transport.lock.lock();
        try {
            table = endpoints;
            transport.table(endpoints);
            transport.changed.signalAll();
        } finally {
            transport.lock.unlock();
        }
    }

    private List<Integer> missingRegistrations() {
        List<Integer> missing = new ArrayList<>();
        for (int e = 1; e < settings.identity().endpoints(); e++) {
            if (registered[e] == null) {
                missing.add(e);
            }
        }
        return missing;
    }

    private String registrationsMissing() {
        return "no registration from " + names(missingRegistrations());
    }

    private String tableMissing() {
        String failure = lastFailure[0];
        return "no endpoint table from " + describeDialed(0)
                + (failure == null ? " (it waits until every endpoint has registered)" : "; last attempt: " + failure);
    }

    private String linksMissing() {
        List<Integer> missing = transport.missingLinks();
        return "still missing links to " + missing.stream().map(e -> {
            String failure = lastFailure[e];
            String how = e > settings.identity().endpoint() ? " (it dials this endpoint)"
                    : failure == null ? "" : " (last attempt: " + failure + ")";
            return describeDialed(e) + how;
        }).collect(Collectors.joining(", "));
    }

    private String names(List<Integer> endpoints) {
        return endpoints.stream().map(settings::name).collect(Collectors.joining(", "));
    }

    // ---------------------------------------------------------------- callbacks from the handshake (event loop)

    NetSettings settings() {
        return settings;
    }

    byte[] token() {
        return token;
    }

    long handshakeTimeoutMillis() {
        return Math.min(HANDSHAKE_TIMEOUT_MS, settings.deadlines().rendezvousTimeout().toMillis());
    }

    /** Acceptor: null when the dialer's HELLO is acceptable, else the reason to refuse it. */
    String checkHello(Handshake.Hello hello) {
        String refusal = HelloCheck.refusal(settings, hello);
        return refusal != null ? refusal : duplicate(hello.endpoint());
    }

    /** Null when {@code peer} has no link and no registration yet, else the reason to refuse another. */
    private String duplicate(int peer) {
        transport.lock.lock();
        try {
            Link link = transport.linkOrNull(peer);
            Channel existing = link != null ? link.channel : claims[peer];
            if (existing != null && (link != null || existing.isActive())) {
                return "endpoint " + peer + " is already " + (link != null ? "connected" : "registered") + " (from "
                        + existing.remoteAddress() + ")";
            }
            return null;
        } finally {
            transport.lock.unlock();
        }
    }

    /** Dialer: what is wrong with the acceptor's HELLO, or null. */
    HandshakeHandler.Complaint checkAnswer(Handshake.Hello hello, int dialed) {
        return HelloCheck.complaint(settings, hello, dialed, describeDialed(dialed));
    }

    /** Endpoint 0: an authenticated dialer takes its endpoint's slot; null, or the reason to refuse it. */
    String claim(int peer, Channel channel) {
        transport.lock.lock();
        try {
            String duplicate = duplicate(peer);
            if (duplicate != null) {
                return duplicate;
            }
            if (table != null) {
                return "the rendezvous is over";
            }
            claims[peer] = channel;
            return null;
        } finally {
            transport.lock.unlock();
        }
    }

    /** Endpoint 0: the dialer of {@code peer} told where it listens. */
    void registered(int peer, Channel channel, InetSocketAddress address, HandshakeHandler handler) {
        transport.lock.lock();
        try {
            if (claims[peer] != channel) {
                return;
            }
            registered[peer] = address;
            registrations[peer] = handler;
            transport.changed.signalAll();
        } finally {
            transport.lock.unlock();
        }
        log.info(settings.name(0) + ": " + settings.name(peer) + " registered, listening on "
                + Addresses.show(address));
    }

    /** Endpoint 0: a registered dialer left before the table went out; its slot is free again. */
    void unclaim(int peer, Channel channel) {
        transport.lock.lock();
        try {
            if (claims[peer] == channel) {
                claims[peer] = null;
                registered[peer] = null;
                registrations[peer] = null;
            }
        } finally {
            transport.lock.unlock();
        }
        log.info(settings.name(0) + ": " + settings.name(peer) + " left before the rendezvous was complete");
    }

    /**
     * The link to {@code peer} is authenticated: frames from now on. Adds the link, puts the frame handlers behind
     * the handshake handler and removes that. Null, or the reason the link cannot be added.
     */
    String linkUp(int peer, Channel channel, HandshakeHandler handshake) {
        if (!channel.isActive()) {
            return "the connection of " + settings.name(peer) + " closed";
        }
        Link link = new Link(peer, channel);
        if (!transport.addLink(link)) {
            return "endpoint " + peer + " is already connected";
        }
        channel.pipeline().addLast("idle", new IdleStateHandler(false, settings.deadlines().idleTimeout().toMillis(),
                settings.deadlines().heartbeatInterval().toMillis(), 0, TimeUnit.MILLISECONDS));
        FrameReadAllocator reads = channel.config().getRecvByteBufAllocator() instanceof FrameReadAllocator a
                ? a : null;
        FrameReader reader = new FrameReader(transport, link, settings.identity().job(),
                settings.deadlines().idleTimeout().toNanos(), reads != null);
        channel.pipeline().addLast("frames", reader);
        if (reads != null) {
            reads.attach(reader);
        }
        handshake.leave();
        return null;
    }

    /** Dialer of endpoint 0: the table came; the link carries frames from now on. */
    void tableReceived(List<InetSocketAddress> endpoints, Channel channel, HandshakeHandler handshake) {
        String reason = linkUp(0, channel, handshake);
        if (reason != null) {
            dialFailed(0, reason, true);
            return;
        }
        setTable(endpoints);
    }

    /** Dialer: an attempt failed; a fatal failure ends the join, another is retried with a backoff. */
    void dialFailed(int peer, String message, boolean fatal) {
        long backoffMs;
        transport.lock.lock();
        try {
            if (rendezvousOver || closing.get() || transport.linkOrNull(peer) != null) {
                return;
            }
            if (fatal) {
                if (this.fatal == null) {
                    this.fatal = message;
                    log.warning(settings.name(settings.identity().endpoint()) + " cannot join: " + message);
                }
                transport.changed.signalAll();
                return;
            }
            boolean news = !message.equals(lastFailure[peer]);
            lastFailure[peer] = message;
            dialAttempts[peer]++;
            // a peer that is still starting (or building its trainer after an advise session) is retried every
            // second: say so when the reason changes and every 10th attempt, not each time
            if (news || dialAttempts[peer] % 10 == 0) {
                log.info(settings.name(settings.identity().endpoint()) + ": " + message + " (will retry"
                        + (dialAttempts[peer] > 1 ? "; attempt " + dialAttempts[peer] : "") + ")");
            }
            backoffMs = Math.min(1_000, 50L << Math.min(dialAttempts[peer], 5));
            transport.changed.signalAll();
            if (System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(backoffMs) - deadlineNanos > 0) {
                return;
            }
        } finally {
            transport.lock.unlock();
        }
        InetSocketAddress address = dialAddresses[peer];
        try {
            pipelines.group().schedule(() -> dial(peer, address), backoffMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // closing
        }
    }

    /** Acceptor: one log line per refused connection. */
    void refused(Channel channel, int claimed, String reason) {
        log.warning("refused a connection from " + channel.remoteAddress()
                + (claimed >= 0 ? " claiming endpoint " + claimed : "") + ": " + reason);
    }

    /** The endpoint dialed, named with the address dialed: "rank 1 (127.0.0.1:4000)". */
    String describeDialed(int peer) {
        InetSocketAddress address = peer == 0 ? settings.addressing().master() : dialAddresses[peer];
        if (address == null && table != null) {
            address = table.get(peer);
        }
        return settings.name(peer) + (address == null ? "" : " (" + Addresses.show(address) + ")");
    }

    /** The host this endpoint tells the others to dial. */
    String advertisedHost(Channel toMaster) {
        return ownHost(toMaster);
    }

    private String ownHost(Channel toMaster) {
        NetSettings.Addressing addressing = settings.addressing();
        if (addressing.advertiseHost() != null) {
            return addressing.advertiseHost();
        }
        if (!isWildcard(addressing.bindHost())) {
            return addressing.bindHost();
        }
        if (toMaster != null && toMaster.localAddress() instanceof InetSocketAddress local) {
            return local.getAddress().getHostAddress();
        }
        return settings.identity().endpoint() == 0 && addressing.master() != null ? addressing.master().getHostString()
                : InetAddress.getLoopbackAddress()
                .getHostAddress();
    }

    private static boolean isWildcard(String host) {
        try {
            return InetAddress.getByName(host).isAnyLocalAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private void track(Channel channel) {
        channels.add(channel);
        channel.closeFuture().addListener(f -> channels.remove(channel));
    }

    // ---------------------------------------------------------------- shutdown

    /**
     * Stops this endpoint after {@code last} (a goodbye, an abort) on every live link; with {@code null}, the peers see
     * the links close with nothing after the last frame, as when a process is killed (the tests' way to kill one).
     */
    void shutdown(byte[] last) {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        transport.lock.lock();
        try {
            rendezvousOver = true;
            transport.changed.signalAll();
        } finally {
            transport.lock.unlock();
        }
        List<ChannelFuture> closing = transport.shutdown(last);
        if (server != null) {
            server.close();
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLOSE_TIMEOUT_MS);
        for (ChannelFuture f : closing) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0 || !f.awaitUninterruptibly(remaining, TimeUnit.NANOSECONDS)) {
                break;
            }
        }
        for (Channel channel : channels) {
            channel.close();
        }
        pipelines.group().shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
    }

    private static NetTransport.Log systemLog() {
        return new NetTransport.Log() {
            @Override
            public void info(String message) {
                LOGGER.log(System.Logger.Level.INFO, message);
            }

            @Override
            public void warning(String message) {
                LOGGER.log(System.Logger.Level.WARNING, message);
            }
        };
    }
}

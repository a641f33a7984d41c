package io.lgc4j.net;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.net.InetSocketAddress;
import java.util.function.Function;

/**
 * The sockets of one endpoint's links: the event loops (epoll where the native transport loads, else NIO), the
 * options every link gets (no Nagle, pooled buffers, the write water marks), and each new connection's pipeline —
 * mutual TLS first when the job has certificates, else reads that place large frames straight where they go, then the
 * handshake, which hands the link over to the frame handlers once the peer is authenticated.
 */
final class LinkPipelines {
    static final int LOW_WATER_MARK = 1 << 20;
    static final int HIGH_WATER_MARK = 4 << 20;

    private final boolean epoll;
    private final EventLoopGroup group;
    /** Mutual TLS contexts, or null for plain TCP. */
    private final SslContext tlsServer;
    private final SslContext tlsClient;

    LinkPipelines(NetSettings settings) {
        this.epoll = Epoll.isAvailable();
        this.tlsServer = settings.tls() == null ? null : tlsContext(settings.tls(), true);
        this.tlsClient = settings.tls() == null ? null : tlsContext(settings.tls(), false);
        int threads = Math.max(1, Math.min(Math.min(settings.identity().endpoints() - 1, 4),
                Runtime.getRuntime().availableProcessors()));
        DefaultThreadFactory threadFactory = new DefaultThreadFactory("lgc-net-" + settings.identity().endpoint(),
                false);
        this.group = epoll ? new EpollEventLoopGroup(threads, threadFactory)
                : new NioEventLoopGroup(threads, threadFactory);
    }

    /** Whether the native epoll transport is in use (else NIO). */
    boolean epoll() {
        return epoll;
    }

    /** Whether every link runs mutual TLS. */
    boolean tls() {
        return tlsServer != null;
    }

    /** The TLS implementation in use, for the log line after the rendezvous. */
    String tlsProvider() {
        return tlsServer.isServer() && OpenSsl.isAvailable() ? "OpenSSL (BoringSSL)" : "the JDK's SSLEngine";
    }

    /** The event loops: a dial retried later is scheduled on them; they stop when the cluster closes. */
    EventLoopGroup group() {
        return group;
    }

    /** The listening side: each accepted connection gets the handshake {@code handshake} makes for it. */
    ServerBootstrap acceptor(Function<Channel, HandshakeHandler> handshake) {
        return new ServerBootstrap().group(group)
                .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK,
                        new WriteBufferWaterMark(LOW_WATER_MARK, HIGH_WATER_MARK))
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        HandshakeHandler h = handshake.apply(ch);
                        install(ch, tlsServer == null ? null : tlsServer.newHandler(ch.alloc()), h);
                    }
                });
    }

    /** The dialing side, to {@code address}: the connection gets the handshake {@code handshake} makes for it. */
    Bootstrap dialer(InetSocketAddress address, int connectTimeoutMillis,
                     Function<Channel, HandshakeHandler> handshake) {
        return new Bootstrap().group(group)
                .channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(LOW_WATER_MARK, HIGH_WATER_MARK))
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectTimeoutMillis)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        HandshakeHandler h = handshake.apply(ch);
                        install(ch, tlsClient == null ? null : tlsClient.newHandler(ch.alloc(),
                                address.getHostString(), address.getPort()), h);
                    }
                });
    }

    /** A new connection's pipeline: TLS (a failed TLS handshake is the handshake's failure) or placed reads. */
    private static void install(Channel ch, SslHandler tls, HandshakeHandler handshake) {
        if (tls != null) {
            tls.handshakeFuture().addListener(f -> {
                if (!f.isSuccess()) {
                    handshake.tlsFailed(f.cause());
                }
            });
            ch.pipeline().addLast("tls", tls);
        } else {
            // plaintext: once the link carries frames, large ones are read straight into place
            ch.config().setRecvByteBufAllocator(new FrameReadAllocator());
        }
        ch.pipeline().addLast("handshake", handshake);
    }

    /** A mutual-TLS context: this endpoint's chain and key, peers trusted when their chain ends at the job's CA. */
    private static SslContext tlsContext(NetSettings.Tls tls, boolean server) {
        try {
            SslContextBuilder builder = server
                    ? SslContextBuilder.forServer(tls.certChain().toFile(), tls.privateKey().toFile())
                            .clientAuth(ClientAuth.REQUIRE)
                    : SslContextBuilder.forClient().keyManager(tls.certChain().toFile(), tls.privateKey().toFile());
            return builder.trustManager(tls.trustedCa().toFile()).build();
        } catch (javax.net.ssl.SSLException | IllegalArgumentException e) {
            throw new IllegalArgumentException("tls: cannot use certificate chain " + tls.certChain() + ", key "
                    + tls.privateKey() + " and CA " + tls.trustedCa() + ": " + e.getMessage(), e);
        }
    }
}

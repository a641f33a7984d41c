package io.lgc4j.net;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.DecoderException;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The handshake of one new connection, on either side (layouts in {@link Handshake}):
 *
 * <ol>
 *   <li>both send HELLO at once (protocol, job, attempt, endpoint, a fresh nonce);</li>
 *   <li>the acceptor checks the dialer's HELLO (version, job, attempt, endpoint in range, not yet connected);</li>
 *   <li>the dialer checks the acceptor's HELLO (it is the endpoint it dialed) and sends its PROOF;</li>
 *   <li>the acceptor checks that PROOF; only then does it send its own (a dialer without the token learns
 *       nothing derived from it);</li>
 *   <li>the dialer checks the acceptor's PROOF. A link to endpoint 0 then carries the dialer's REGISTER and,
 *       once endpoint 0 holds every registration, its TABLE; any other link carries frames at once.</li>
 * </ol>
 *
 * <p>The acceptor refuses a bad peer with a REFUSED message naming the reason, one log line, and a close; it
 * drops a peer that has not authenticated within the handshake timeout. The handler replaces itself with the
 * link's frame handlers when the link is up; bytes that came behind the handshake go to them.
 */
final class HandshakeHandler extends ByteToMessageDecoder {
    private static final SecureRandom RANDOM = new SecureRandom();

    enum Role { DIALER, ACCEPTOR }

    private enum State { HELLO, PROOF, REGISTER, REGISTERED, TABLE, DONE }

    /** What a dialer found wrong with the acceptor's HELLO, and whether the acceptor will refuse it too. */
    record Complaint(String reason, boolean mutual) {
    }

    private final TcpCluster cluster;
    private final Role role;
    /** Dialer: the endpoint dialed. Acceptor: -1 until the HELLO names it. */
    private int peer;
    private final byte[] nonce = new byte[Handshake.NONCE_LENGTH];
    private Handshake.Hello peerHello;
    private State state = State.HELLO;
    private Complaint complaint;
    private ScheduledFuture<?> timeout;
    private boolean started;
    private ChannelHandlerContext context;

    HandshakeHandler(TcpCluster cluster, Role role, int dialed) {
        this.cluster = cluster;
        this.role = role;
        this.peer = dialed;
        RANDOM.nextBytes(nonce);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        context = ctx;
        if (ctx.channel().isActive()) {
            start(ctx);
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        start(ctx);
        super.channelActive(ctx);
    }

    private void start(ChannelHandlerContext ctx) {
        if (started) {
            return;
        }
        started = true;
        NetSettings s = cluster.settings();
        NetSettings.Identity me = s.identity();
        ctx.writeAndFlush(Handshake.hello(ctx.alloc(), me.job(), me.attempt(), me.endpoint(), nonce, s.plan().hash()));
        long ms = cluster.handshakeTimeoutMillis();
        timeout = ctx.executor().schedule(() -> timedOut(ctx, ms), ms, TimeUnit.MILLISECONDS);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (state != State.DONE) {
            if (in.readableBytes() < Handshake.MESSAGE_HEADER_LENGTH) {
                return;
            }
            int type = in.getUnsignedByte(in.readerIndex() + Handshake.TYPE_OFFSET);
            long length = in.getUnsignedIntLE(in.readerIndex() + Handshake.LENGTH_OFFSET);
            String unexpected = check(type, length);
            if (unexpected != null) {
                malformed(ctx, unexpected);
                break;
            }
            if (in.readableBytes() < Handshake.MESSAGE_HEADER_LENGTH + length) {
                return;
            }
            in.skipBytes(Handshake.MESSAGE_HEADER_LENGTH);
            ByteBuf body = in.readSlice((int) length);
            if (handle(ctx, type, body)) {
                return; // replaced by the frame handlers, which get whatever follows
            }
        }
        in.skipBytes(in.readableBytes());
    }

    /** Null when a message of {@code type} and {@code length} may come now, else what is wrong. */
    private String check(int type, long length) {
        boolean expected = switch (state) {
            case HELLO -> type == Handshake.HELLO;
            case PROOF -> type == Handshake.PROOF;
            case REGISTER -> type == Handshake.REGISTER;
            case TABLE -> type == Handshake.TABLE;
            case REGISTERED, DONE -> false;
        };
        if (role == Role.DIALER && type == Handshake.REFUSED) {
            expected = true;
        }
        if (!expected) {
            return "unexpected " + Handshake.typeName(type) + " during the handshake (state " + state + ")";
        }
        long max = Handshake.maxBodyLength(type, cluster.settings().identity().endpoints());
        boolean exact = type == Handshake.HELLO || type == Handshake.PROOF;
        if (length > max || exact && length != max) {
            return Handshake.typeName(type) + " of " + length + " bytes, expected " + (exact ? "" : "at most ") + max;
        }
        return null;
    }

    /** Handles one whole message; true when this handler has left the pipeline. */
    private boolean handle(ChannelHandlerContext ctx, int type, ByteBuf body) {
        NetSettings s = cluster.settings();
        if (type == Handshake.REFUSED) {
            String reason = body.toString(StandardCharsets.UTF_8);
            // registered and waiting for the table: endpoint 0 gave up the whole rendezvous, not this endpoint
            finishDialer(ctx, state == State.TABLE ? s.name(0) + " gave up the rendezvous: " + reason
                    : cluster.describeDialed(peer) + " refused " + s.name(s.identity().endpoint()) + ": " + reason,
                    true);
            return false;
        }
        switch (state) {
            case HELLO -> {
                peerHello = Handshake.readHello(body);
                if (role == Role.ACCEPTOR) {
                    String reason = cluster.checkHello(peerHello);
                    if (reason != null) {
                        refuse(ctx, peerHello.magic() == Handshake.MAGIC ? peerHello.endpoint() : -1, reason);
                        return false;
                    }
                    peer = peerHello.endpoint();
                    state = State.PROOF;
                } else {
                    complaint = cluster.checkAnswer(peerHello, peer);
                    if (complaint != null && !complaint.mutual()) {
                        finishDialer(ctx, complaint.reason(), true);
                        return false;
                    }
                    state = State.PROOF;
                    if (complaint == null) {
                        NetSettings.Identity me = s.identity();
                        ctx.writeAndFlush(Handshake.proof(ctx.alloc(), Handshake.mac(cluster.token(),
                                Handshake.DIALER_LABEL, me.endpoint(), peerHello.nonce(), nonce, me.job(),
                                me.attempt())));
                    } // else: the acceptor refuses this endpoint too and says why; wait for that
                }
            }
            case PROOF -> {
                byte[] found = new byte[Handshake.PROOF_LENGTH];
                body.readBytes(found);
                return role == Role.ACCEPTOR ? acceptorProof(ctx, found) : dialerProof(ctx, found);
            }
            case REGISTER -> {
                InetSocketAddress address;
                try {
                    address = Handshake.readAddress(body);
                } catch (IllegalArgumentException e) {
                    refuse(ctx, peer, "malformed registration: " + e.getMessage());
                    return false;
                }
                timeout.cancel(false);
                state = State.REGISTERED;
                cluster.registered(peer, ctx.channel(), address, this);
            }
            case TABLE -> {
                List<InetSocketAddress> table;
                try {
                    table = Handshake.readTable(body, s.identity().endpoints());
                } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
                    finishDialer(ctx, "malformed endpoint table from " + cluster.describeDialed(peer) + ": "
                            + e.getMessage(), true);
                    return false;
                }
                state = State.DONE;
                cluster.tableReceived(table, ctx.channel(), this);
                return true;
            }
            default -> throw new IllegalStateException("no message expected in state " + state);
        }
        return false;
    }

    private boolean acceptorProof(ChannelHandlerContext ctx, byte[] found) {
        NetSettings s = cluster.settings();
        byte[] expected = Handshake.mac(cluster.token(), Handshake.DIALER_LABEL, peer, nonce, peerHello.nonce(),
                s.identity().job(), s.identity().attempt());
        if (!Handshake.proofMatches(expected, found)) {
            refuse(ctx, peer, "its proof of the job token does not match (wrong token?)");
            return false;
        }
        NetSettings.Identity me = s.identity();
        byte[] own = Handshake.mac(cluster.token(), Handshake.ACCEPTOR_LABEL, me.endpoint(), peerHello.nonce(), nonce,
                me.job(), me.attempt());
        Channel channel = ctx.channel();
        if (s.identity().endpoint() == 0) {
            String reason = cluster.claim(peer, channel);
            if (reason != null) {
                refuse(ctx, peer, reason);
                return false;
            }
            state = State.REGISTER;
            ctx.writeAndFlush(Handshake.proof(ctx.alloc(), own));
            return false;
        }
        timeout.cancel(false);
        state = State.DONE;
        // Frame handlers first: the dialer may send frames as soon as it has read this proof.
        String reason = cluster.linkUp(peer, channel, this);
        if (reason != null) {
            state = State.PROOF;
            refuse(ctx, peer, reason);
            return false;
        }
        channel.writeAndFlush(Handshake.proof(channel.alloc(), own));
        return true;
    }

    private boolean dialerProof(ChannelHandlerContext ctx, byte[] found) {
        NetSettings s = cluster.settings();
        byte[] expected = Handshake.mac(cluster.token(), Handshake.ACCEPTOR_LABEL, peer, nonce, peerHello.nonce(),
                s.identity().job(), s.identity().attempt());
        if (!Handshake.proofMatches(expected, found)) {
            finishDialer(ctx, cluster.describeDialed(peer) + " could not prove the job token (a wrong token on one"
                    + " side?)", true);
            return false;
        }
        timeout.cancel(false);
        if (peer == 0) {
            state = State.TABLE;
            ctx.writeAndFlush(Handshake.register(ctx.alloc(), cluster.advertisedHost(ctx.channel()),
                    cluster.boundPort()));
            return false;
        }
        state = State.DONE;
        String reason = cluster.linkUp(peer, ctx.channel(), this);
        if (reason != null) {
            finishDialer(ctx, reason, true);
            return false;
        }
        return true;
    }

    /** Endpoint 0, once every endpoint registered: frames from now on, then the table. Runs on the event loop. */
    void activate(ByteBuf table) {
        Channel channel = context.channel();
        state = State.DONE;
        String reason = cluster.linkUp(peer, channel, this);
        if (reason != null) {
            table.release();
            channel.close();
            return;
        }
        channel.writeAndFlush(table);
    }

    /**
     * Endpoint 0 gave up the rendezvous: tells this registered dialer why (a REFUSED), then half-closes. Runs on the
     * event loop; the future completes once the reason is written.
     */
    ChannelFuture giveUp(String reason) {
        Channel channel = context.channel();
        state = State.DONE;
        if (timeout != null) {
            timeout.cancel(false);
        }
        return channel.writeAndFlush(Handshake.refused(channel.alloc(), reason)).addListener(
                (ChannelFutureListener) f -> {
                    if (f.channel() instanceof DuplexChannel duplex && f.channel().isActive()) {
                        duplex.shutdownOutput();
                    }
                });
    }

    /** The connection this handler runs on. */
    Channel channel() {
        return context.channel();
    }

    /** Removes this handler after the frame handlers were added behind it. */
    void leave() {
        context.pipeline().remove(this);
    }

    private void timedOut(ChannelHandlerContext ctx, long ms) {
        if (state == State.DONE || state == State.REGISTERED || state == State.TABLE) {
            return;
        }
        String what = state == State.REGISTER ? "no registration" : "no handshake";
        if (role == Role.ACCEPTOR) {
            refuse(ctx, peer, what + " within " + ms + " ms");
        } else if (complaint != null) {
            finishDialer(ctx, complaint.reason(), true);
        } else {
            finishDialer(ctx, what + " from " + cluster.describeDialed(peer) + " within " + ms + " ms", false);
        }
    }

    private void malformed(ChannelHandlerContext ctx, String what) {
        if (role == Role.ACCEPTOR) {
            refuse(ctx, peer, "malformed handshake: " + what);
        } else {
            finishDialer(ctx, "malformed handshake from " + cluster.describeDialed(peer) + ": " + what, true);
        }
    }

    /** Acceptor: one log line, the reason to the peer, then the connection closes. */
    private void refuse(ChannelHandlerContext ctx, int claimed, String reason) {
        if (state == State.DONE) {
            return;
        }
        state = State.DONE;
        if (timeout != null) {
            timeout.cancel(false);
        }
        Channel channel = ctx.channel();
        cluster.refused(channel, claimed, reason);
        // Half-close after the reason and read on until the peer closes: closing with its bytes unread would reset
        // the connection and could destroy the reason before the peer reads it.
        channel.writeAndFlush(Handshake.refused(ctx.alloc(), reason)).addListener((ChannelFutureListener) f -> {
            if (f.channel() instanceof DuplexChannel duplex && f.channel().isActive()) {
                duplex.shutdownOutput();
            } else {
                f.channel().close();
            }
        });
        channel.eventLoop().schedule(() -> channel.close(), 2, TimeUnit.SECONDS);
    }

    /** Dialer: the attempt is over; a fatal failure ends the join, another is retried. */
    private void finishDialer(ChannelHandlerContext ctx, String message, boolean fatal) {
        if (state == State.DONE) {
            return;
        }
        state = State.DONE;
        if (timeout != null) {
            timeout.cancel(false);
        }
        cluster.dialFailed(peer, message, fatal);
        ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (role == Role.DIALER) {
            if (complaint != null) {
                finishDialer(ctx, complaint.reason(), true);
            } else {
                finishDialer(ctx, "the connection to " + cluster.describeDialed(peer) + " closed during the "
                        + (state == State.TABLE ? "rendezvous (before the endpoint table came)" : "handshake"), false);
            }
        } else if (state == State.REGISTER || state == State.REGISTERED) {
            cluster.unclaim(peer, ctx.channel());
        }
        if (timeout != null) {
            timeout.cancel(false);
        }
        state = State.DONE;
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        fail(ctx, cause);
    }

    /**
     * The TLS handshake under this one failed. Ignored when the connection never came up (a failed connect also
     * fails the TLS handshake: "SslHandler removed before handshake completed") or this handshake is over.
     */
    void tlsFailed(Throwable cause) {
        if (started && context != null) {
            fail(context, cause);
        }
    }

    private void fail(ChannelHandlerContext ctx, Throwable cause) {
        Throwable root = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        boolean tls = root instanceof javax.net.ssl.SSLException;
        if (role == Role.ACCEPTOR) {
            if (state != State.DONE) {
                state = State.DONE;
                cluster.refused(ctx.channel(), peer, (tls ? "TLS handshake failed: " : "connection broken: ")
                        + root.getMessage());
            }
        } else {
            // With TLS 1.3 a client learns that the server refused its certificate only after its own handshake
            // completed: that is as final as a refusal.
            finishDialer(ctx, (tls ? "TLS handshake" : "connection") + " with " + cluster.describeDialed(peer)
                    + " failed: " + root.getMessage(), tls);
        }
        ctx.close();
    }
}

package io.lgc4j.net;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.TrafficKind;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;

import java.util.concurrent.TimeUnit;

import static io.lgc4j.core.comm.FrameDescriptor.*;

/**
 * Reads the frames of one link: the 24-byte header first, checked (magic, version, length at most
 * {@link io.lgc4j.core.comm.FrameDescriptor#MAX_PAYLOAD_LENGTH}) before anything is allocated, then the frame's
 * {@code byte[]} allocated once and filled as bytes arrive, then {@link FrameCodec#decode} (the CRC) and the stamp:
 * sender the link's authenticated peer, job this job. LINK frames go to the transport as link messages; a frame
 * that fails any check loses the link, naming what was wrong. Also turns the link's events (idle timers, EOF,
 * errors, writability) into the transport's.
 */
final class FrameReader extends ChannelInboundHandlerAdapter {
    private final NetTransport transport;
    private final Link link;
    private final int job;
    private final long idleNanos;
    private final byte[] header = new byte[HEADER_LENGTH];
    private int headerFilled;
    private byte[] frame;
    private int filled;
    private long lastReadNanos = System.nanoTime();
    private boolean failed;

    FrameReader(NetTransport transport, Link link, int job, long idleNanos) {
        this.transport = transport;
        this.link = link;
        this.job = job;
        this.idleNanos = idleNanos;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        try {
            lastReadNanos = System.nanoTime();
            while (in.isReadable() && !failed) {
                if (frame == null && !readHeader(in)) {
                    return;
                }
                int n = Math.min(frame.length - filled, in.readableBytes());
                in.readBytes(frame, filled, n);
                filled += n;
                if (filled == frame.length) {
                    byte[] done = frame;
                    frame = null;
                    complete(done);
                }
            }
        } finally {
            in.release();
        }
    }

    /** Fills the header; once whole and sane, allocates the frame. False while the header is incomplete or bad. */
    private boolean readHeader(ByteBuf in) {
        int n = Math.min(HEADER_LENGTH - headerFilled, in.readableBytes());
        in.readBytes(header, headerFilled, n);
        headerFilled += n;
        if (headerFilled < HEADER_LENGTH) {
            return false;
        }
        headerFilled = 0;
        int magic = intAt(MAGIC_OFFSET);
        if (magic != MAGIC) {
            fail(String.format("corrupt frame: bad frame magic: expected 0x%08X, found 0x%08X", MAGIC, magic));
            return false;
        }
        int version = header[VERSION_OFFSET] & 0xFF;
        if (version != VERSION) {
            fail("corrupt frame: unsupported frame version: expected " + VERSION + ", found " + version);
            return false;
        }
        int length = intAt(LENGTH_OFFSET);
        if (length < 0 || length > MAX_PAYLOAD_LENGTH) {
            fail("corrupt frame: frame payload length out of range: expected 0.." + MAX_PAYLOAD_LENGTH + ", found "
                    + Integer.toUnsignedString(length));
            return false;
        }
        frame = new byte[frameLength(length)];
        System.arraycopy(header, 0, frame, 0, HEADER_LENGTH);
        filled = HEADER_LENGTH;
        return true;
    }

    private void complete(byte[] bytes) {
        Frame decoded;
        try {
            decoded = FrameCodec.decode(bytes);
        } catch (FrameException e) {
            fail("corrupt frame: " + e.getMessage());
            return;
        }
        if (decoded.sender() != link.peer || decoded.job() != job) {
            fail("frame stamped by endpoint " + decoded.sender() + " of job "
                    + Integer.toUnsignedString(decoded.job()) + ", expected endpoint " + link.peer + " of job "
                    + Integer.toUnsignedString(job));
            return;
        }
        if (decoded.kind() == TrafficKind.LINK) {
            LinkMessage message;
            try {
                message = LinkMessage.decode(decoded);
            } catch (FrameException e) {
                fail("corrupt frame: " + e.getMessage());
                return;
            }
            transport.linkMessage(link, message);
            return;
        }
        transport.deliver(link, decoded);
    }

    private void fail(String what) {
        failed = true;
        frame = null;
        transport.lose(link, what);
    }

    private int intAt(int offset) {
        return (header[offset] & 0xFF) | (header[offset + 1] & 0xFF) << 8 | (header[offset + 2] & 0xFF) << 16
                | (header[offset + 3] & 0xFF) << 24;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent idle) {
            if (idle.state() == IdleState.WRITER_IDLE) {
                transport.heartbeatDue(link);
            } else if (idle.state() == IdleState.READER_IDLE && !link.paused && !failed) {
                // Reading paused by this side's full queue is not the peer's silence; count from the resume.
                long silentSince = Math.max(lastReadNanos, link.resumedNanos);
                if (System.nanoTime() - silentSince >= idleNanos) {
                    fail("nothing received for " + TimeUnit.NANOSECONDS.toMillis(idleNanos)
                            + " ms (stalled or stopped?)");
                }
            }
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        transport.writabilityChanged();
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        transport.inactive(link);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        failed = true;
        transport.lose(link, "connection broken: " + cause.getMessage());
    }
}

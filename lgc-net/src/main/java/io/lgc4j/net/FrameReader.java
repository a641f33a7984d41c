package io.lgc4j.net;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.comm.FrameException;
import io.lgc4j.core.comm.TrafficKind;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import static io.lgc4j.core.comm.FrameDescriptor.*;

/**
 * Reads the frames of one link: the 24-byte header first, checked (magic, version, length at most
 * {@link io.lgc4j.core.comm.FrameDescriptor#MAX_PAYLOAD_LENGTH}) before anything is allocated, then the frame's
 * bytes, then {@link FrameCodec#decode} (the CRC) and the stamp: sender the link's authenticated peer, job this job.
 * LINK frames go to the transport as link messages; a frame that fails any check loses the link, naming what was
 * wrong. Also turns the link's events (idle timers, EOF, errors, writability) into the transport's.
 *
 * <p>Without a copy where it can: a frame that arrived whole in one read buffer is a slice of it; a larger frame
 * gets a pooled direct buffer of its own, and on a plaintext link the rest of it is read by the socket straight into
 * that buffer ({@link #readTarget}, asked by {@link FrameReadAllocator}), so its payload is copied once, from there
 * into the gradient. Only the bytes that came in the same read as the header are copied on the way.
 */
final class FrameReader extends ChannelInboundHandlerAdapter {
    private final NetTransport transport;
    private final Link link;
    private final int job;
    private final long idleNanos;
    private final byte[] header = new byte[HEADER_LENGTH];
    private int headerFilled;
    /** The pooled memory of the frame being assembled, its length, and how many of its bytes are in. */
    private ByteBuffer memory;
    private int length;
    private int filled;
    /** Of the frame's bytes in so far: how many the socket put in place, how many were copied there. */
    private long inPlace;
    private long copied;
    /** On a plaintext link, the socket's view of {@link #memory}: reads land in the frame. */
    private ByteBuf target;
    private final boolean readIntoFrames;
    private long lastReadNanos = System.nanoTime();
    private boolean failed;

    /**
     * @param readIntoFrames whether the socket may read straight into frame buffers (plaintext links: the bytes
     *                       that arrive are the frame's)
     */
    FrameReader(NetTransport transport, Link link, int job, long idleNanos, boolean readIntoFrames) {
        this.transport = transport;
        this.link = link;
        this.job = job;
        this.idleNanos = idleNanos;
        this.readIntoFrames = readIntoFrames;
    }

    /**
     * The buffer the next socket read goes into, or null for an ordinary read buffer: the rest of the frame being
     * assembled, one more reference taken (given back by {@link #channelRead}, or by the event loop after an empty
     * read). On the event loop.
     */
    ByteBuf readTarget() {
        if (target == null || failed) {
            return null;
        }
        target.setIndex(filled, filled);
        return target.retain();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        lastReadNanos = System.nanoTime();
        if (in == target) {
            int n = in.readableBytes();
            in.release();
            if (!failed) {
                filled += n;
                inPlace += n;
                if (filled == length) {
                    completePooled();
                }
            }
            return;
        }
        try {
            while (in.isReadable() && !failed) {
                if (memory == null) {
                    readFrameStart(in);
                    continue;
                }
                int n = Math.min(length - filled, in.readableBytes());
                in.readBytes(memory.duplicate().limit(filled + n).position(filled));
                filled += n;
                copied += n;
                if (filled == length) {
                    completePooled();
                }
            }
        } finally {
            in.release();
        }
        if (memory != null && readIntoFrames && target == null && !failed) {
            target = Unpooled.wrappedBuffer(memory.duplicate().clear().limit(length));
        }
    }

    /**
     * Reads a header from {@code in} (across reads if it must). A frame that is whole in {@code in} becomes a slice
     * of it; otherwise a pooled buffer is leased and the header and whatever followed it are copied in.
     */
    private void readFrameStart(ByteBuf in) {
        if (headerFilled == 0 && in.readableBytes() >= HEADER_LENGTH) {
            in.getBytes(in.readerIndex(), header);
            int frameLength = checkHeader();
            if (frameLength < 0) {
                return;
            }
            if (in.readableBytes() >= frameLength) {
                ByteBuf slice = in.retainedSlice(in.readerIndex(), frameLength);
                in.skipBytes(frameLength);
                inPlace = frameLength;
                copied = 0;
                complete(slice.nioBuffer(), slice::release);
                return;
            }
            in.skipBytes(HEADER_LENGTH);
            headerFilled = HEADER_LENGTH;
        } else {
            int n = Math.min(HEADER_LENGTH - headerFilled, in.readableBytes());
            in.readBytes(header, headerFilled, n);
            headerFilled += n;
            if (headerFilled < HEADER_LENGTH) {
                return;
            }
        }
        headerFilled = 0;
        int frameLength = checkHeader();
        if (frameLength < 0) {
            return;
        }
        length = frameLength;
        memory = transport.pool().take(frameLength);
        memory.put(0, header);
        filled = HEADER_LENGTH;
        inPlace = 0;
        copied = HEADER_LENGTH;
    }

    /** The whole frame's length from a sane header, or -1 after failing the link. */
    private int checkHeader() {
        int magic = intAt(MAGIC_OFFSET);
        if (magic != MAGIC) {
            fail(String.format("corrupt frame: bad frame magic: expected 0x%08X, found 0x%08X", MAGIC, magic));
            return -1;
        }
        int version = header[VERSION_OFFSET] & 0xFF;
        if (version != VERSION) {
            fail("corrupt frame: unsupported frame version: expected " + VERSION + ", found " + version);
            return -1;
        }
        int payloadLength = intAt(LENGTH_OFFSET);
        if (payloadLength < 0 || payloadLength > MAX_PAYLOAD_LENGTH) {
            fail("corrupt frame: frame payload length out of range: expected 0.." + MAX_PAYLOAD_LENGTH + ", found "
                    + Integer.toUnsignedString(payloadLength));
            return -1;
        }
        return frameLength(payloadLength);
    }

    private void completePooled() {
        ByteBuffer done = memory;
        ByteBuffer bytes = done.duplicate().clear().limit(length);
        memory = null;
        if (target != null) {
            target.release();
            target = null;
        }
        FramePool pool = transport.pool();
        complete(bytes, () -> pool.give(done));
    }

    /** Checks the frame in {@code bytes} and hands it on; {@code release} gives its memory back once it is read. */
    private void complete(ByteBuffer bytes, Runnable release) {
        Frame decoded;
        try {
            decoded = FrameCodec.decode(bytes);
        } catch (FrameException e) {
            release.run();
            fail("corrupt frame: " + e.getMessage());
            return;
        }
        if (decoded.sender() != link.peer || decoded.job() != job) {
            release.run();
            fail("frame stamped by endpoint " + decoded.sender() + " of job "
                    + Integer.toUnsignedString(decoded.job()) + ", expected endpoint " + link.peer + " of job "
                    + Integer.toUnsignedString(job));
            return;
        }
        if (decoded.kind() == TrafficKind.LINK) { // the transport's own: not counted
            LinkMessage message;
            try {
                message = LinkMessage.decode(decoded);
            } catch (FrameException e) {
                fail("corrupt frame: " + e.getMessage());
                return;
            } finally {
                release.run();
            }
            transport.linkMessage(link, message);
            return;
        }
        transport.counted(inPlace, copied);
        transport.deliver(link, decoded, release);
    }

    private void fail(String what) {
        failed = true;
        memory = null; // left to the collector: a read may still be in flight
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

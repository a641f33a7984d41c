package io.lgc4j.bench;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
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
import io.netty.util.concurrent.DefaultThreadFactory;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The ceiling lgc-net is measured against: one loopback TCP connection between two Netty channels of this JVM, with
 * lgc-net's channel options (epoll when it loads, TCP_NODELAY, the pooled allocator, water marks 1 MiB / 4 MiB), one
 * way. A message is a retained duplicate of one pooled direct {@code ByteBuf} of the message size, written and flushed
 * once the channel is writable: no user-space copy on either side (the kernel's copies only); the receiver counts
 * bytes and releases what it reads, noting the time each message's last byte arrived.
 *
 * <pre>{@code
 * try (RawNettyStream stream = RawNettyStream.open(1 << 20, 1000)) {
 *     Lockstep.run("raw", List.of(stream.sender(), stream.receiver()), 1, budget, stream::close);
 * }
 * }</pre>
 */
final class RawNettyStream implements AutoCloseable {
    /** lgc-net's water marks (TcpCluster). */
    private static final int LOW_WATER_MARK = 1 << 20;
    private static final int HIGH_WATER_MARK = 4 << 20;
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(120);

    private final boolean epoll;
    private final EventLoopGroup serverGroup;
    private final EventLoopGroup clientGroup;
    private final Channel server;
    private final Channel client;
    private final ByteBuf payload;
    private final int size;
    private final Receiver receiver;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition writable = lock.newCondition();

    private RawNettyStream(int size, int maxMessages) throws InterruptedException {
        this.size = size;
        this.epoll = Epoll.isAvailable();
        this.serverGroup = group("raw-netty-server");
        this.clientGroup = group("raw-netty-client");
        this.receiver = new Receiver(size, maxMessages);
        this.server = new ServerBootstrap().group(serverGroup)
                .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(receiver);
                    }
                })
                .bind("127.0.0.1", 0).sync().channel();
        this.client = new Bootstrap().group(clientGroup)
                .channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(LOW_WATER_MARK, HIGH_WATER_MARK))
                .handler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                        lock.lock();
                        try {
                            writable.signalAll();
                        } finally {
                            lock.unlock();
                        }
                        ctx.fireChannelWritabilityChanged();
                    }
                })
                .connect(server.localAddress()).sync().channel();
        this.payload = PooledByteBufAllocator.DEFAULT.directBuffer(size, size);
        for (int i = 0; i < size; i++) {
            payload.writeByte(i * 7);
        }
    }

    /**
     * A connected stream of messages of {@code size} bytes; the receiver notes the arrival times of the first
     * {@code maxMessages}.
     */
    static RawNettyStream open(int size, int maxMessages) {
        try {
            return new RawNettyStream(size, maxMessages);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while connecting the raw Netty stream", e);
        }
    }

    private EventLoopGroup group(String name) {
        DefaultThreadFactory threads = new DefaultThreadFactory(name, true);
        return epoll ? new EpollEventLoopGroup(1, threads) : new NioEventLoopGroup(1, threads);
    }

    /** Whether native epoll is in use (else NIO). */
    boolean epoll() {
        return epoll;
    }

    /** The sending party: one message per step, each after the channel is writable. */
    Lockstep.Party sender() {
        return (first, count, ends) -> {
            for (int i = 0; i < count; i++) {
                awaitWritable();
                client.writeAndFlush(payload.retainedDuplicate(), client.voidPromise());
                if (ends != null) {
                    ends[i] = System.nanoTime();
                }
            }
        };
    }

    /** The receiving party: a step is done when its message's last byte has been read. */
    Lockstep.Party receiver() {
        return receiver::await;
    }

    private void awaitWritable() throws InterruptedException {
        if (client.isWritable()) {
            return;
        }
        lock.lock();
        try {
            long deadline = System.nanoTime() + WAIT_NANOS;
            while (!client.isWritable()) {
                if (!client.isActive()) {
                    throw new IllegalStateException("raw Netty stream: the connection closed");
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new IllegalStateException("raw Netty stream: not writable for 120 s");
                }
                writable.awaitNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        client.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        server.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        clientGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        serverGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        if (payload.refCnt() > 0) {
            payload.release(payload.refCnt());
        }
        receiver.close();
    }

    /** Counts bytes on the event loop; a waiting party is woken when the messages it waits for are complete. */
    @ChannelHandler.Sharable
    private static final class Receiver extends ChannelInboundHandlerAdapter {
        private final int size;
        private final long[] arrivals;
        private final ReentrantLock lock = new ReentrantLock();
        private final Condition progressed = lock.newCondition();
        private long received;
        private long nextBoundary;
        private volatile int completed;
        private volatile int waitingFor = Integer.MAX_VALUE;
        private volatile boolean closed;

        Receiver(int size, int maxMessages) {
            this.size = size;
            this.arrivals = new long[maxMessages];
            this.nextBoundary = size;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            received += in.readableBytes();
            in.release();
            if (received < nextBoundary) {
                return;
            }
            long now = System.nanoTime();
            int done = completed;
            while (received >= nextBoundary) {
                if (done < arrivals.length) {
                    arrivals[done] = now;
                }
                done++;
                nextBoundary += size;
            }
            completed = done;
            if (done >= waitingFor) {
                signal();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            close();
        }

        private void signal() {
            lock.lock();
            try {
                progressed.signalAll();
            } finally {
                lock.unlock();
            }
        }

        void close() {
            closed = true;
            signal();
        }

        /** Waits until messages {@code first .. first+count-1} have arrived; copies their arrival times. */
        void await(int first, int count, long[] ends) throws InterruptedException {
            int target = first + count;
            if (completed < target) {
                lock.lock();
                try {
                    waitingFor = target;
                    long deadline = System.nanoTime() + WAIT_NANOS;
                    while (completed < target) {
                        if (closed) {
                            throw new IllegalStateException("raw Netty stream: closed after " + completed
                                    + " of " + target + " messages");
                        }
                        long left = deadline - System.nanoTime();
                        if (left <= 0) {
                            throw new IllegalStateException("raw Netty stream: " + completed + " of " + target
                                    + " messages after 120 s");
                        }
                        progressed.awaitNanos(left);
                    }
                    waitingFor = Integer.MAX_VALUE;
                } finally {
                    lock.unlock();
                }
            }
            if (ends != null) {
                for (int i = 0; i < count; i++) {
                    int m = first + i;
                    ends[i] = m < arrivals.length ? arrivals[m] : 0;
                }
            }
        }
    }
}

package io.lgc4j.net;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.stage.Stage;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Measurements for the notes (run by hand, never by the build):
 * {@code java -cp <test classpath> io.lgc4j.net.LoopbackProbe}. Prints (1) how much pooled direct memory Netty
 * takes when a heap {@code ByteBuf} of 64 MB is written on epoll and on NIO, whole and as 256 KiB slices, and
 * (2) loopback MB/s of 64 MB frames through {@link TcpCluster}, with the peak pooled direct memory meanwhile.
 */
public final class LoopbackProbe {
    public static void main(String[] args) throws Exception {
        for (boolean epoll : new boolean[]{true, false}) {
            heapWrite(epoll, false);
            heapWrite(epoll, true);
        }
        throughput(64 << 20, 16);
    }

    private static long usedDirect() {
        return PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory();
    }

    /** Writes 64 MB of heap bytes on a connected channel and reports the direct memory held before any flush. */
    private static void heapWrite(boolean epoll, boolean sliced) throws Exception {
        EventLoopGroup group = epoll ? new EpollEventLoopGroup(1) : new NioEventLoopGroup(1);
        try {
            Channel server = new ServerBootstrap().group(group)
                    .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
                    .childHandler(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            ((ByteBuf) msg).release();
                        }
                    })
                    .bind("127.0.0.1", 0).sync().channel();
            Channel client = new Bootstrap().group(group)
                    .channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
                    .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                    .handler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                        }
                    })
                    .connect(server.localAddress()).sync().channel();
            byte[] heap = new byte[64 << 20];
            long[] held = new long[2];
            client.eventLoop().submit(() -> {
                long before = usedDirect();
                if (sliced) {
                    for (int at = 0; at < heap.length; at += 256 << 10) {
                        client.write(Unpooled.wrappedBuffer(heap, at, 256 << 10));
                    }
                } else {
                    client.write(Unpooled.wrappedBuffer(heap));
                }
                held[0] = usedDirect() - before;
                long start = System.nanoTime();
                client.flush();
                held[1] = System.nanoTime() - start;
            }).sync();
            System.out.printf("%s, 64 MB heap buffer written %s: pooled direct memory taken at write() = %.1f MB%n",
                    epoll ? "epoll" : "NIO", sliced ? "as 256 KiB slices" : "whole", held[0] / 1e6);
            client.close().sync();
            server.close().sync();
        } finally {
            group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).sync();
        }
    }

    private static void throughput(int length, int frames) throws Exception {
        InetSocketAddress master = NetFixtures.freeMaster();
        List<TcpCluster> clusters = NetFixtures.joinAll(2, master, new NetFixtures.RecordingLog());
        try {
            ByteBuffer payload = FrameCodec.allocate(length);
            byte[] frame = FrameCodec.seal(payload, TrafficKind.VALUES, Stage.FULL, 0);
            AtomicLong peak = new AtomicLong();
            Thread sampler = new Thread(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    peak.accumulateAndGet(usedDirect(), Math::max);
                    Thread.onSpinWait();
                }
            });
            sampler.setDaemon(true);
            long base = usedDirect();
            sampler.start();
            Future<Long> reader = NetFixtures.async(() -> {
                long bytes = 0;
                for (int i = 0; i < frames; i++) {
                    Frame f = clusters.get(1).transport().receive(0);
                    bytes += f.wireLength();
                }
                return bytes;
            });
            for (int warm = 0; warm < 2; warm++) {
                clusters.get(0).transport().send(1, frame);
            }
            long start = System.nanoTime();
            for (int i = 2; i < frames; i++) {
                clusters.get(0).transport().send(1, frame);
            }
            reader.get();
            double seconds = (System.nanoTime() - start) / 1e9;
            sampler.interrupt();
            System.out.printf("%s: %d frames of %d MB one way: %.0f MB/s (after 2 warm-up frames); peak pooled direct"
                            + " memory above the start: %.1f MB%n", clusters.get(0).nativeTransport() ? "epoll" : "NIO",
                    frames - 2, length >> 20, (double) (frames - 2) * frame.length / 1e6 / seconds,
                    (peak.get() - base) / 1e6);
        } finally {
            NetFixtures.closeAll(clusters);
        }
    }
}

package io.lgc4j.net;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameBuffer;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.core.comm.FrameDescriptor;
import io.lgc4j.core.comm.PeerLostException;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.comm.TransportClosedException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.socket.DuplexChannel;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The {@link Transport} of one endpoint of a {@link TcpCluster}: one {@link Link} per peer, frames written in chunks
 * that honour the channel's writability, frames read into per-peer bounded queues.
 *
 * <p>One lock guards every link's queue and state and the abort; one condition is signalled on any change (a frame,
 * a loss, an abort, writability, close). The endpoint's thread is the only one that waits on it in steady state, so
 * signalling all costs nothing.
 *
 * <p>Every endpoint of a job is needed to the end, so the first link lost without goodbye fails every receive that
 * follows, whichever peer it waits on: a worker blocked on the server names the killed rank it lost, not the server
 * that a launcher stops later because it noticed nothing (it was training its autoencoder).
 *
 * <p>Frames live in direct buffers of one {@link FramePool}: {@link #allocate} leases one for the caller to fill, the
 * socket writes from it and the pool has it back once the last chunk is written; received frames are views of
 * pooled memory until {@link #releaseReceived()}. A frame on the heap ({@code send(int, byte[])}) still works: Netty
 * copies it into direct memory a chunk at a time. {@link #copies()} counts which bytes took which path.
 */
final class NetTransport implements Transport {
    /**
     * Bytes of a frame handed to Netty at once, each after the channel is writable again: Netty copies a heap frame
     * into direct memory of this size; a pooled frame is written from where it is.
     */
    static final int WRITE_CHUNK = 256 * 1024;
    /** Frame memory the pool keeps for reuse at most (beyond it, given-back buffers go to the collector). */
    static final long POOL_IDLE_BYTES = 1L << 30;
    /** Reading from a peer pauses when its queue holds more frames than this ... */
    static final int PAUSE_FRAMES = 8;
    /** ... or more bytes than this, and resumes below half of both. */
    static final long PAUSE_BYTES = 64L << 20;

    private final NetSettings settings;
    private final int endpoint;
    private final int endpoints;
    private final Link[] links;
    /** This endpoint's heartbeat, stamped once: every link writes the same bytes. */
    private final byte[] heartbeat;
    final ReentrantLock lock = new ReentrantLock();
    final Condition changed = lock.newCondition();

    // guarded by lock
    private boolean closed;
    private int abortLost = -1;
    private String abortMessage;
    /** The first link lost without goodbye, and why: every receive fails with it (any loss ends the job). */
    private int firstLost = -1;
    private String firstLostMessage;
    private List<InetSocketAddress> table;
    private final Log log;
    private final FramePool pool = new FramePool(POOL_IDLE_BYTES);
    /** Releases of the frames handed to the endpoint's thread since its last {@link #releaseReceived()}. */
    private final ArrayList<Runnable> handedOut = new ArrayList<>();
    private final LongAdder sentInPlace = new LongAdder();
    private final LongAdder sentCopied = new LongAdder();
    private final LongAdder receivedInPlace = new LongAdder();
    private final LongAdder receivedCopied = new LongAdder();

    NetTransport(NetSettings settings, Log log) {
        this.settings = settings;
        this.endpoint = settings.identity().endpoint();
        this.endpoints = settings.identity().endpoints();
        this.links = new Link[endpoints];
        this.log = log;
        this.heartbeat = stamped(new LinkMessage.Heartbeat());
    }

    @Override
    public int endpoint() {
        return endpoint;
    }

    @Override
    public int endpointCount() {
        return endpoints;
    }

    @Override
    public FrameBuffer allocate(int payloadLength) {
        if (payloadLength < 0 || payloadLength > FrameDescriptor.MAX_PAYLOAD_LENGTH) {
            throw new IllegalArgumentException("payload length must be in [0, " + FrameDescriptor.MAX_PAYLOAD_LENGTH
                    + "], found " + payloadLength);
        }
        ByteBuffer memory = pool.take(FrameDescriptor.frameLength(payloadLength));
        return FrameBuffer.lease(memory, payloadLength, () -> pool.give(memory));
    }

    @Override
    public void send(int peer, FrameBuffer frame) {
        Link link;
        try {
            checkPeer(peer);
            if (frame.bytes().get(FrameDescriptor.KIND_OFFSET) == TrafficKind.LINK.wireId()) {
                throw new IllegalArgumentException(settings.name(endpoint) + " cannot send a LINK frame to "
                        + settings.name(peer) + ": LINK frames are the transport's own");
            }
            link = link(peer, "send to");
            frame.stamp(endpoint, settings.identity().job());
        } catch (RuntimeException e) {
            frame.releaseIfHeld();
            throw e;
        }
        link.writeLock.lock();
        try {
            write(link, frame, true);
        } finally {
            link.writeLock.unlock();
        }
    }

    @Override
    public Frame receive(int peer) {
        checkPeer(peer);
        Link link = link(peer, "receive from");
        lock.lock();
        try {
            boolean patient = !link.firstReceived || link.extendNextReceive;
            link.extendNextReceive = false;
            NetSettings.Deadlines deadlines = settings.deadlines();
            long timeout = (patient ? deadlines.firstReceiveTimeout() : deadlines.receiveTimeout()).toNanos();
            long deadline = System.nanoTime() + timeout;
            while (true) {
                if (closed) {
                    throw new TransportClosedException(settings.name(endpoint) + " was receiving from "
                            + settings.name(peer) + " when the cluster closed");
                }
                if (abortMessage != null) {
                    throw new PeerLostException(abortLost, abortMessage);
                }
                Link.Arrival arrival = link.inbound.poll();
                if (arrival != null) {
                    Frame frame = arrival.frame();
                    handedOut.add(arrival.release());
                    link.inboundBytes -= frame.wireLength();
                    link.firstReceived = true;
                    if (link.paused && link.inbound.size() <= PAUSE_FRAMES / 2 && link.inboundBytes <= PAUSE_BYTES / 2) {
                        link.paused = false;
                        link.resumedNanos = System.nanoTime();
                        link.channel.config().setAutoRead(true);
                    }
                    return frame;
                }
                if (firstLost >= 0) {
                    // the first link lost, this one or another: waiting on a live peer could end in a loss the first
                    // one caused (a peer the launcher kills later, a ring neighbour that lost it too), which would
                    // name the wrong endpoint
                    throw new PeerLostException(firstLost, firstLostMessage);
                }
                if (link.lost != null) {
                    throw new PeerLostException(peer, link.lost);
                }
                if (link.goodbye) {
                    throw new PeerLostException(peer, left(peer));
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    throw new PeerLostException(peer, "lost " + describe(peer) + ": no frame within the receive"
                            + " deadline of " + TimeUnit.NANOSECONDS.toMillis(timeout) + " ms");
                }
                changed.awaitNanos(remaining);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TransportClosedException(settings.name(endpoint) + " was interrupted while receiving from "
                    + settings.name(peer));
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void extendNextReceive(int peer) {
        checkPeer(peer);
        Link link = link(peer, "receive from");
        lock.lock();
        try {
            link.extendNextReceive = true;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void releaseReceived() {
        for (Runnable release : handedOut) {
            release.run();
        }
        handedOut.clear();
    }

    /** The frame memory of this endpoint. */
    FramePool pool() {
        return pool;
    }

    /** Counts received bytes: {@code inPlace} landed where the frame is read from, {@code copied} were copied there. */
    void counted(long inPlace, long copied) {
        receivedInPlace.add(inPlace);
        receivedCopied.add(copied);
    }

    /** Which bytes took which path so far, and what the frame pool allocated. */
    TcpCluster.Copies copies() {
        FramePool.Usage usage = pool.usage();
        return new TcpCluster.Copies(sentInPlace.sum(), sentCopied.sum(), receivedInPlace.sum(),
                receivedCopied.sum(), usage.leases(), usage.allocations(), usage.allocatedBytes());
    }

    // ---------------------------------------------------------------- writing

    /**
     * Writes a stamped frame in chunks, each after the channel is writable again: Netty's outbound buffer holds at
     * most the high water mark plus one chunk. A pooled frame goes back to the pool when its last chunk is written; a
     * frame whose link fails half-way is left to the collector (Netty may still hold chunks of it). The caller holds
     * the link's write lock.
     */
    private void write(Link link, FrameBuffer frame, boolean user) {
        link.framesInWrite.incrementAndGet();
        byte[] array = frame.arrayOrNull();
        ByteBuf whole = array != null ? Unpooled.wrappedBuffer(array) : Unpooled.wrappedBuffer(frame.bytes());
        boolean written = false;
        try {
            int length = frame.length();
            int offset = 0;
            while (offset < length) {
                if (!awaitWritable(link, user)) {
                    return;
                }
                int n = Math.min(WRITE_CHUNK, length - offset);
                offset += n;
                ChannelFuture future = link.channel.writeAndFlush(whole.retainedSlice(offset - n, n));
                boolean last = offset == length;
                future.addListener(f -> {
                    if (!f.isSuccess()) {
                        lose(link, "write failed: " + String.valueOf(f.cause()));
                    } else if (last) {
                        frame.release();
                    }
                });
            }
            written = true;
            if (user) { // the transport's own LINK frames are not counted
                (array != null ? sentCopied : sentInPlace).add(length);
            }
        } finally {
            whole.release();
            if (!written && array != null) {
                frame.release(); // heap: nothing to reuse, nothing to protect
            }
            // Runs after the last chunk's write task on the event loop: only then may a heartbeat follow.
            try {
                link.channel.eventLoop().execute(link.framesInWrite::decrementAndGet);
            } catch (RejectedExecutionException e) {
                link.framesInWrite.decrementAndGet();
            }
        }
    }

    /**
     * Waits until the link's channel takes more bytes. A user's send throws when the link is lost, gone or stuck
     * for the deadline; an internal write (abort, goodbye) returns false instead.
     */
    private boolean awaitWritable(Link link, boolean user) {
        // A goodbye or abort must not hold up close() for a send deadline of minutes.
        long timeout = !user ? TimeUnit.MILLISECONDS.toNanos(TcpCluster.CLOSE_TIMEOUT_MS)
                : (link.firstReceived ? settings.deadlines().receiveTimeout()
                : settings.deadlines().firstReceiveTimeout()).toNanos();
        String stuck = null;
        lock.lock();
        try {
            long deadline = System.nanoTime() + timeout;
            while (true) {
                if (user && closed) {
                    throw closed("send to", link.peer);
                }
                if (link.lost != null || link.goodbye) {
                    if (!user) {
                        return false;
                    }
                    throw new PeerLostException(link.peer, link.lost != null ? link.lost : left(link.peer));
                }
                if (link.channel.isWritable()) {
                    return true;
                }
                if (!user && !link.channel.isActive()) {
                    return false;
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    stuck = "could not send for " + TimeUnit.NANOSECONDS.toMillis(timeout) + " ms: it reads nothing"
                            + " (stalled or stopped?)";
                    break;
                }
                changed.awaitNanos(remaining);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TransportClosedException(settings.name(endpoint) + " was interrupted while sending to "
                    + settings.name(link.peer));
        } finally {
            lock.unlock();
        }
        String message = lose(link, stuck);
        if (!user) {
            return false;
        }
        throw new PeerLostException(link.peer, message);
    }

    // ---------------------------------------------------------------- events from the event loop

    /** A checked frame arrived from {@code link}'s peer. */
    void deliver(Link link, Frame frame, Runnable release) {
        lock.lock();
        try {
            if (link.lost != null || closed) {
                release.run(); // a frame after the link was lost or the endpoint closed is never received
                return;
            }
            link.inbound.add(new Link.Arrival(frame, release));
            link.inboundBytes += frame.wireLength();
            if (!link.paused && (link.inbound.size() > PAUSE_FRAMES || link.inboundBytes > PAUSE_BYTES)) {
                link.paused = true;
                link.channel.config().setAutoRead(false);
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** A LINK message arrived from {@code link}'s peer. */
    void linkMessage(Link link, LinkMessage message) {
        if (message instanceof LinkMessage.Heartbeat) {
            return;
        }
        lock.lock();
        try {
            if (message instanceof LinkMessage.Goodbye) {
                link.goodbye = true;
            } else if (message instanceof LinkMessage.Abort abort && abortMessage == null) {
                abortLost = abort.lost();
                abortMessage = settings.name(link.peer) + " reports: " + abort.reason();
                log.warning(settings.name(endpoint) + ": " + abortMessage + " (lost " + settings.name(abort.lost())
                        + ")");
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** The link's channel closed. */
    void inactive(Link link) {
        lock.lock();
        try {
            if (!link.goodbye) {
                loseLocked(link, "connection closed without goodbye");
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** The link's channel can take more bytes, or cannot any more. */
    void writabilityChanged() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** A heartbeat is due on an idle writer: only between frames. */
    void heartbeatDue(Link link) {
        if (link.framesInWrite.get() == 0 && link.channel.isActive()) {
            link.channel.writeAndFlush(Unpooled.wrappedBuffer(heartbeat));
        }
    }

    /**
     * Marks the link lost (the first reason wins), wakes every waiter and closes the channel; returns the loss's
     * message. Nothing happens after this endpoint closed.
     */
    String lose(Link link, String what) {
        String message;
        lock.lock();
        try {
            message = loseLocked(link, what);
        } finally {
            lock.unlock();
        }
        link.channel.close();
        return message;
    }

    private String loseLocked(Link link, String what) {
        if (link.lost == null && !closed) {
            link.lost = "lost " + describe(link.peer) + ": " + what;
            log.warning(settings.name(endpoint) + " " + link.lost);
            if (firstLost < 0 && !link.goodbye) {
                firstLost = link.peer;
                firstLostMessage = link.lost;
            }
            changed.signalAll();
        }
        return link.lost;
    }

    // ---------------------------------------------------------------- links and shutdown

    /** Adds the authenticated link to {@code peer}; false when there is one already. */
    boolean addLink(Link link) {
        lock.lock();
        try {
            if (links[link.peer] != null || closed) {
                return false;
            }
            links[link.peer] = link;
            changed.signalAll();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** The link to {@code peer}, or null (no lock: for the rendezvous's checks, under its own lock). */
    Link linkOrNull(int peer) {
        lock.lock();
        try {
            return links[peer];
        } finally {
            lock.unlock();
        }
    }

    /** Endpoints without a link yet, in order. */
    List<Integer> missingLinks() {
        lock.lock();
        try {
            ArrayList<Integer> missing = new ArrayList<>();
            for (int e = 0; e < endpoints; e++) {
                if (e != endpoint && links[e] == null) {
                    missing.add(e);
                }
            }
            return missing;
        } finally {
            lock.unlock();
        }
    }

    void table(List<InetSocketAddress> endpointTable) {
        lock.lock();
        try {
            this.table = endpointTable;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Stops the transport: every waiter wakes with {@link TransportClosedException}; {@code last} (a goodbye or an
     * abort, or null) goes on every live link after what was already sent; every link's output is shut, and each
     * channel closes when its peer closes too or at {@code deadlineNanos}.
     *
     * @return the close futures to wait for
     */
    List<ChannelFuture> shutdown(byte[] last) {
        Link[] snapshot;
        lock.lock();
        try {
            closed = true;
            snapshot = links.clone();
            // no receive hands a frame out once closed: the frames still queued give their memory back now
            for (Link link : snapshot) {
                if (link != null) {
                    for (Link.Arrival arrival; (arrival = link.inbound.poll()) != null; ) {
                        arrival.release().run();
                    }
                    link.inboundBytes = 0;
                }
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        ArrayList<ChannelFuture> closing = new ArrayList<>();
        for (Link link : snapshot) {
            if (link == null) {
                continue;
            }
            closing.add(link.channel.closeFuture());
            if (!link.channel.isActive()) {
                continue;
            }
            // Drain what the peer still sends, so that our close does not reset the connection under its reader.
            link.channel.config().setAutoRead(true);
            boolean locked = false;
            try {
                locked = link.writeLock.tryLock(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (!locked) {
                link.channel.close(); // a send is stuck mid-frame: nothing else can go on this link
                continue;
            }
            try {
                if (last != null) {
                    write(link, FrameBuffer.of(last), false);
                }
            } finally {
                link.writeLock.unlock();
            }
            // Half-close after the last bytes: the peer reads to the end, then closes its side, which closes ours.
            link.channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener((ChannelFutureListener) f -> {
                if (f.channel() instanceof DuplexChannel duplex && f.channel().isActive()) {
                    duplex.shutdownOutput();
                } else {
                    f.channel().close();
                }
            });
        }
        return closing;
    }

    /** A stamped LINK message of this endpoint. */
    byte[] stamped(LinkMessage message) {
        byte[] bytes = LinkMessage.encode(message);
        FrameCodec.stamp(bytes, endpoint, settings.identity().job());
        return bytes;
    }

    /** "rank 2 (127.0.0.1:40123)": the peer's name and the address it listens on (or it connected from). */
    String describe(int peer) {
        InetSocketAddress address = null;
        if (table != null) {
            address = table.get(peer);
        } else if (links[peer] != null && links[peer].channel.remoteAddress() instanceof InetSocketAddress remote) {
            address = remote;
        }
        return settings.name(peer) + (address == null ? "" : " (" + Addresses.show(address) + ")");
    }

    private String left(int peer) {
        return describe(peer) + " left: it said goodbye after its last frame";
    }

    private Link link(int peer, String operation) {
        lock.lock();
        try {
            if (closed) {
                throw closed(operation, peer);
            }
            Link link = links[peer];
            if (link == null) {
                throw new IllegalStateException(settings.name(endpoint) + " has no link to " + settings.name(peer));
            }
            return link;
        } finally {
            lock.unlock();
        }
    }

    private TransportClosedException closed(String operation, int peer) {
        return new TransportClosedException(settings.name(endpoint) + " cannot " + operation + " "
                + settings.name(peer) + ": the cluster is closed");
    }

    private void checkPeer(int peer) {
        if (peer < 0 || peer >= endpoints || peer == endpoint) {
            throw new IllegalArgumentException("endpoint " + endpoint + ": peer must be another endpoint in 0.."
                    + (endpoints - 1) + ", found " + peer);
        }
    }

    /** Where the transport's and the rendezvous's messages go (a field, so tests can watch it). */
    interface Log {
        void info(String message);

        void warning(String message);
    }
}

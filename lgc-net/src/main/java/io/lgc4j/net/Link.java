package io.lgc4j.net;

import io.lgc4j.core.comm.Frame;
import io.netty.channel.Channel;

import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One authenticated connection to one peer and what arrived on it. The fields marked "guarded" are read and written
 * under the {@link NetTransport}'s lock; the event loop fills them, the endpoint's thread drains them.
 */
final class Link {
    final int peer;
    final Channel channel;

    /** Serialises whole frames on the wire between the endpoint's thread and an abort or close. */
    final ReentrantLock writeLock = new ReentrantLock();
    /**
     * Frames whose chunks are not all in the channel's outbound buffer yet; the event loop writes a heartbeat only
     * when this is 0, so a heartbeat never lands inside a frame.
     */
    final AtomicInteger framesInWrite = new AtomicInteger();

    // guarded by NetTransport.lock
    final ArrayDeque<Arrival> inbound = new ArrayDeque<>();
    long inboundBytes;
    /** Why the link is lost ("lost rank 2 (host:port): ..."), null while it is not. */
    String lost;
    /** The peer said GOODBYE: what is queued is all it will send. */
    boolean goodbye;
    /** A frame from this peer was received (the steady-state deadline applies from now on). */
    boolean firstReceived;
    /** The next receive waits up to the first-receive deadline ({@link NetTransport#extendNextReceive}). */
    boolean extendNextReceive;
    /** Reading paused because the inbound queue is full (the idle timer does not count this as the peer's silence). */
    volatile boolean paused;
    /** When reading last resumed after a pause ({@link System#nanoTime()}): silence is counted from here at most. */
    volatile long resumedNanos = System.nanoTime();

    /** A checked frame and how to give its receive buffer back once it was read. */
    record Arrival(Frame frame, Runnable release) {
    }

    Link(int peer, Channel channel) {
        this.peer = peer;
        this.channel = channel;
    }
}

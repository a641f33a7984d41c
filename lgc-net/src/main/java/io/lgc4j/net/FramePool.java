package io.lgc4j.net;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * Direct buffers for whole frames, kept for reuse: a training step sends and receives the same frame sizes every
 * step, so after the first steps a transport allocates nothing. Sizes are rounded up to classes of eighths of a power
 * of two (at most 12.5% unused), at least {@link #MIN_CLASS}. Buffers given back beyond {@code maxIdleBytes} are
 * left to the garbage collector, so a burst of large frames does not pin its memory for the rest of the run.
 *
 * <p>Used from the endpoint's thread (sends, releases of received frames) and the event loop (receives, writes
 * done): every method is synchronized; a frame takes one lock to lease and one to give back.
 */
final class FramePool {
    /** The smallest class. */
    static final int MIN_CLASS = 4096;

    private final long maxIdleBytes;
    private final Map<Integer, ArrayDeque<ByteBuffer>> idle = new HashMap<>();
    private long idleBytes;
    private long allocatedBytes;
    private long allocations;
    private long leases;

    FramePool(long maxIdleBytes) {
        if (maxIdleBytes < 0) {
            throw new IllegalArgumentException("maxIdleBytes must be >= 0, found " + maxIdleBytes);
        }
        this.maxIdleBytes = maxIdleBytes;
    }

    /** The class (capacity) that holds {@code length} bytes. */
    static int classOf(int length) {
        if (length <= MIN_CLASS) {
            return MIN_CLASS;
        }
        int high = 31 - Integer.numberOfLeadingZeros(length - 1); // 2^high < length <= 2^(high+1)
        long step = 1L << (high - 2);                              // an eighth of 2^(high+1)
        long size = (length + step - 1) / step * step;
        if (size > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("a frame of " + length + " bytes is too large to pool");
        }
        return (int) size;
    }

    /** A buffer of at least {@code length} bytes: position 0, limit {@code length}, contents undefined. */
    synchronized ByteBuffer take(int length) {
        int size = classOf(length);
        leases++;
        ArrayDeque<ByteBuffer> free = idle.get(size);
        ByteBuffer buffer = free == null ? null : free.poll();
        if (buffer != null) {
            idleBytes -= size;
        } else {
            buffer = ByteBuffer.allocateDirect(size);
            allocations++;
            allocatedBytes += size;
        }
        buffer.clear().limit(length);
        return buffer;
    }

    /** Gives back a buffer from {@link #take}; nothing may read or write it any more. */
    synchronized void give(ByteBuffer buffer) {
        int size = buffer.capacity();
        if (idleBytes + size > maxIdleBytes) {
            return;
        }
        idle.computeIfAbsent(size, s -> new ArrayDeque<>()).push(buffer);
        idleBytes += size;
    }

    /** What the pool did so far. */
    synchronized Usage usage() {
        return new Usage(leases, allocations, allocatedBytes, idleBytes);
    }

    /**
     * @param leases         buffers handed out
     * @param allocations    of those, buffers allocated (the rest were reused)
     * @param allocatedBytes direct bytes allocated
     * @param idleBytes      bytes held for reuse now
     */
    record Usage(long leases, long allocations, long allocatedBytes, long idleBytes) {
    }
}

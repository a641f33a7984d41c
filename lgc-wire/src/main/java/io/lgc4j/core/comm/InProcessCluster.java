package io.lgc4j.core.comm;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The embedded default cluster: endpoints on threads of one JVM exchanging real, encoded frames through one queue
 * per ordered pair of endpoints. Every frame is checked on receipt exactly as a network transport would check it,
 * and counted by the {@link TrafficMeter} at the sender and the receiver (each {@link #transport} is a
 * {@link MeteredTransport} over the endpoint's plain link, which {@link #unmetered} gives).
 *
 * <pre>{@code
 * try (InProcessCluster cluster = new InProcessCluster(4)) {
 *     Transport rank0 = cluster.transport(0);   // hand each transport to its own thread
 *     ...
 * }
 * }</pre>
 *
 * <p>{@link #close()} wakes every blocked receiver with a {@link TransportClosedException}; a trainer calls it when
 * any endpoint fails so that no thread waits forever for a peer that died.
 */
public final class InProcessCluster implements AutoCloseable {
    private static final byte[] POISON = new byte[0];

    private final int endpoints;
    private final int job;
    private final TrafficMeter meter;
    private final TrafficMeter controlMeter;
    private final List<BlockingQueue<byte[]>> links;
    private final List<Transport> raw;
    private final List<Transport> transports;
    private volatile boolean closed;

    /** A cluster of {@code endpoints} endpoints with a fresh meter. */
    public InProcessCluster(int endpoints) {
        this(endpoints, new TrafficMeter(endpoints));
    }

    /** A cluster of {@code endpoints} endpoints counting on {@code meter}, with a job id of its own. */
    public InProcessCluster(int endpoints, TrafficMeter meter) {
        this(endpoints, meter, ThreadLocalRandom.current().nextInt());
    }

    /**
     * A cluster of {@code endpoints} endpoints counting on {@code meter}, whose transports stamp {@code job} on
     * every frame they send and accept only frames of that job.
     */
    public InProcessCluster(int endpoints, TrafficMeter meter, int job) {
        if (endpoints < 1 || endpoints > FrameDescriptor.MAX_ENDPOINT + 1) {
            throw new IllegalArgumentException("endpoints must be in [1, " + (FrameDescriptor.MAX_ENDPOINT + 1)
                    + "], found " + endpoints);
        }
        if (meter.endpoints() != endpoints) {
            throw new IllegalArgumentException("meter counts " + meter.endpoints() + " endpoints, cluster has "
                    + endpoints);
        }
        this.endpoints = endpoints;
        this.job = job;
        this.meter = meter;
        this.links = new ArrayList<>(endpoints * endpoints);
        for (int i = 0; i < endpoints * endpoints; i++) {
            links.add(new LinkedBlockingQueue<>());
        }
        this.controlMeter = new TrafficMeter(endpoints);
        List<Transport> plain = new ArrayList<>(endpoints);
        List<Transport> metered = new ArrayList<>(endpoints);
        for (int e = 0; e < endpoints; e++) {
            Endpoint endpoint = new Endpoint(e);
            plain.add(endpoint);
            metered.add(new MeteredTransport(endpoint, meter, controlMeter));
        }
        this.raw = List.copyOf(plain);
        this.transports = List.copyOf(metered);
    }

    /** The transport of one endpoint, counting on {@link #meter()}. */
    public Transport transport(int endpoint) {
        return transports.get(endpoint);
    }

    /** The transport of one endpoint without a meter, for a runtime that stacks its own {@link MeteredTransport}. */
    public Transport unmetered(int endpoint) {
        return raw.get(endpoint);
    }

    /** The meter of the REPORT frames sent through {@link #transport}. */
    public TrafficMeter controlMeter() {
        return controlMeter;
    }

    /** The meter every transport of this cluster counts on. */
    public TrafficMeter meter() {
        return meter;
    }

    /** The job id every frame of this cluster carries. */
    public int job() {
        return job;
    }

    /** Number of endpoints. */
    public int endpoints() {
        return endpoints;
    }

    /** Frames sent to {@code endpoint} that it has not received yet, from every peer. */
    public int pending(int endpoint) {
        int n = 0;
        for (int from = 0; from < endpoints; from++) {
            n += link(from, endpoint).size();
        }
        return n;
    }

    /** Shuts the cluster down and wakes every blocked receiver. Idempotent. */
    @Override
    public void close() {
        closed = true;
        for (BlockingQueue<byte[]> link : links) {
            link.offer(POISON);
        }
    }

    private BlockingQueue<byte[]> link(int from, int to) {
        return links.get(from * endpoints + to);
    }

    private final class Endpoint implements Transport {
        private final int id;

        Endpoint(int id) {
            this.id = id;
        }

        @Override
        public int endpoint() {
            return id;
        }

        @Override
        public int endpointCount() {
            return endpoints;
        }

        @Override
        public void send(int peer, FrameBuffer frame) {
            try {
                checkPeer(peer);
                if (closed) {
                    throw new TransportClosedException("endpoint " + id + " cannot send to " + peer
                            + ": the cluster is closed");
                }
                // a heap frame's array goes to the peer as it is (a broadcast shares it); anything else is copied
                byte[] bytes = frame.arrayOrNull();
                if (bytes == null) {
                    bytes = new byte[frame.length()];
                    frame.bytes().get(bytes);
                }
                FrameCodec.stamp(bytes, id, job);
                link(id, peer).add(bytes);
            } finally {
                frame.releaseIfHeld(); // the queue holds the bytes (a heap frame's array, or a copy)
            }
        }

        @Override
        public Frame receive(int peer) {
            checkPeer(peer);
            byte[] bytes;
            try {
                bytes = link(peer, id).take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new TransportClosedException("endpoint " + id + " interrupted while receiving from " + peer);
            }
            if (bytes == POISON) {
                link(peer, id).offer(POISON); // stay closed for any later receive
                throw new TransportClosedException("endpoint " + id + " was receiving from " + peer
                        + " when the cluster closed");
            }
            Frame frame = FrameCodec.decode(bytes);
            if (frame.sender() != peer || frame.job() != job) {
                throw new FrameException("endpoint " + id + " received from endpoint " + peer + " a frame stamped by"
                        + " endpoint " + frame.sender() + " of job " + Integer.toUnsignedString(frame.job())
                        + "; expected endpoint " + peer + " of job " + Integer.toUnsignedString(job));
            }
            return frame;
        }

        private void checkPeer(int peer) {
            if (peer < 0 || peer >= endpoints || peer == id) {
                throw new IllegalArgumentException("endpoint " + id + ": peer must be another endpoint in 0.."
                        + (endpoints - 1) + ", found " + peer);
            }
        }
    }
}

package io.lgc4j.core.comm;

import java.util.Objects;

/**
 * A {@link Transport} that forwards every call to another: the base of the decorators a runtime stacks on an
 * endpoint's plain transport (metering, the control plane, a service's step reports). A subclass overrides what it
 * adds to and calls {@code inner} for the rest.
 *
 * <pre>{@code
 * final class Counting extends ForwardingTransport {
 *     Counting(Transport inner) { super(inner); }
 *     @Override public void send(int peer, FrameBuffer frame) { count++; inner.send(peer, frame); }
 * }
 * }</pre>
 */
public abstract class ForwardingTransport implements Transport {
    /** The transport underneath. */
    protected final Transport inner;

    /** Forwards to {@code inner}. */
    protected ForwardingTransport(Transport inner) {
        this.inner = Objects.requireNonNull(inner, "inner");
    }

    @Override
    public int endpoint() {
        return inner.endpoint();
    }

    @Override
    public int endpointCount() {
        return inner.endpointCount();
    }

    @Override
    public FrameBuffer allocate(int payloadLength) {
        return inner.allocate(payloadLength);
    }

    @Override
    public void send(int peer, FrameBuffer frame) {
        inner.send(peer, frame);
    }

    @Override
    public void releaseReceived() {
        inner.releaseReceived();
    }

    @Override
    public Frame receive(int peer) {
        return inner.receive(peer);
    }

    @Override
    public void extendNextReceive(int peer) {
        inner.extendNextReceive(peer);
    }
}

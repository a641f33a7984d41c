package io.lgc4j.core.comm;

/** Which way bytes crossed an endpoint's boundary. */
public enum Direction {
    /** Bytes the endpoint put on a link. */
    SENT,
    /** Bytes the endpoint took off a link. */
    RECEIVED
}

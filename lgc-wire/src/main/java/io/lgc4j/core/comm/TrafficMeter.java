package io.lgc4j.core.comm;

import io.lgc4j.core.stage.Stage;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counts every byte that crosses an endpoint, per endpoint, direction, stage and kind. A frame's payload is
 * counted under its kind and its header and trailer under {@link TrafficKind#HEADER}. Transports call
 * {@link #record}; nothing else adds bytes, so every figure is a count of bytes that existed.
 *
 * <p>Thread-safe; reads take a consistent-enough {@link Snapshot} (each counter is read atomically).
 */
public final class TrafficMeter {
    private static final int DIRECTIONS = Direction.values().length;
    private static final int STAGES = Stage.values().length;
    private static final int KINDS = TrafficKind.values().length;

    private final int endpoints;
    private final AtomicLongArray bytes;
    private final AtomicLongArray frames;

    /** A meter for {@code endpoints} endpoints, numbered 0..endpoints-1. */
    public TrafficMeter(int endpoints) {
        if (endpoints < 1) {
            throw new IllegalArgumentException("endpoints must be >= 1, found " + endpoints);
        }
        this.endpoints = endpoints;
        this.bytes = new AtomicLongArray(endpoints * DIRECTIONS * STAGES * KINDS);
        this.frames = new AtomicLongArray(endpoints * DIRECTIONS);
    }

    /** Number of endpoints this meter counts for. */
    public int endpoints() {
        return endpoints;
    }

    /** Counts one frame of {@code payloadLength} payload bytes at {@code endpoint}. */
    public void record(int endpoint, Direction direction, Stage stage, TrafficKind kind, int payloadLength) {
        bytes.addAndGet(index(endpoint, direction, stage, kind), payloadLength);
        bytes.addAndGet(index(endpoint, direction, stage, TrafficKind.HEADER), FrameDescriptor.OVERHEAD);
        frames.incrementAndGet(endpoint * DIRECTIONS + direction.ordinal());
    }

    /** Counters in one endpoint's {@linkplain Snapshot#row row}: its bytes by direction, stage and kind, then its frames. */
    public static final int ROW_LENGTH = DIRECTIONS * STAGES * KINDS + DIRECTIONS;

    /**
     * Adds {@code row} (from {@link Snapshot#row}) to endpoint {@code endpoint}'s counters: a resumed run starts from
     * the counts its checkpoint saved.
     */
    public void add(int endpoint, long[] row) {
        if (row.length != ROW_LENGTH) {
            throw new IllegalArgumentException("a row has " + ROW_LENGTH + " counters, found " + row.length);
        }
        int cells = DIRECTIONS * STAGES * KINDS;
        int base = index(endpoint, Direction.values()[0], Stage.values()[0], TrafficKind.values()[0]);
        for (int i = 0; i < cells; i++) {
            bytes.addAndGet(base + i, row[i]);
        }
        for (int d = 0; d < DIRECTIONS; d++) {
            frames.addAndGet(endpoint * DIRECTIONS + d, row[cells + d]);
        }
    }

    /** A copy of all counters now. */
    public Snapshot snapshot() {
        long[] b = new long[bytes.length()];
        for (int i = 0; i < b.length; i++) {
            b[i] = bytes.get(i);
        }
        long[] f = new long[frames.length()];
        for (int i = 0; i < f.length; i++) {
            f[i] = frames.get(i);
        }
        return new Snapshot(endpoints, b, f);
    }

    private int index(int endpoint, Direction direction, Stage stage, TrafficKind kind) {
        if (endpoint < 0 || endpoint >= endpoints) {
            throw new IndexOutOfBoundsException("endpoint " + endpoint + " outside 0.." + (endpoints - 1));
        }
        return ((endpoint * DIRECTIONS + direction.ordinal()) * STAGES + stage.ordinal()) * KINDS + kind.ordinal();
    }

    /** Immutable counters at one moment; {@link #minus} gives the traffic between two snapshots. */
    public static final class Snapshot {
        private final int endpoints;
        private final long[] bytes;
        private final long[] frames;

        private Snapshot(int endpoints, long[] bytes, long[] frames) {
            this.endpoints = endpoints;
            this.bytes = bytes;
            this.frames = frames;
        }

        /** Number of endpoints counted. */
        public int endpoints() {
            return endpoints;
        }

        /** Bytes of one kind in one stage. */
        public long bytes(int endpoint, Direction direction, Stage stage, TrafficKind kind) {
            return bytes[((endpoint * DIRECTIONS + direction.ordinal()) * STAGES + stage.ordinal()) * KINDS
                    + kind.ordinal()];
        }

        /** Bytes of one kind over all stages. */
        public long bytes(int endpoint, Direction direction, TrafficKind kind) {
            long sum = 0;
            for (Stage s : Stage.values()) {
                sum += bytes(endpoint, direction, s, kind);
            }
            return sum;
        }

        /** Bytes of every kind, headers included, in one stage. */
        public long bytes(int endpoint, Direction direction, Stage stage) {
            long sum = 0;
            for (TrafficKind k : TrafficKind.values()) {
                sum += bytes(endpoint, direction, stage, k);
            }
            return sum;
        }

        /** All bytes, headers included, over all stages. */
        public long bytes(int endpoint, Direction direction) {
            long sum = 0;
            for (Stage s : Stage.values()) {
                sum += bytes(endpoint, direction, s);
            }
            return sum;
        }

        /** Frames that crossed {@code endpoint} in {@code direction}. */
        public long frames(int endpoint, Direction direction) {
            return frames[endpoint * DIRECTIONS + direction.ordinal()];
        }

        /**
         * One endpoint's counters as {@link #ROW_LENGTH} numbers (its bytes by direction, stage and kind, then its frames
         * by direction): what a process reports about its own endpoint, and {@link #ofRows} assembles.
         */
        public long[] row(int endpoint) {
            if (endpoint < 0 || endpoint >= endpoints) {
                throw new IndexOutOfBoundsException("endpoint " + endpoint + " outside 0.." + (endpoints - 1));
            }
            int cells = DIRECTIONS * STAGES * KINDS;
            long[] row = new long[ROW_LENGTH];
            System.arraycopy(bytes, endpoint * cells, row, 0, cells);
            System.arraycopy(frames, endpoint * DIRECTIONS, row, cells, DIRECTIONS);
            return row;
        }

        /** A snapshot holding {@code rows[e]} (from {@link #row}) as endpoint e's counters. */
        public static Snapshot ofRows(long[][] rows) {
            int cells = DIRECTIONS * STAGES * KINDS;
            long[] b = new long[rows.length * cells];
            long[] f = new long[rows.length * DIRECTIONS];
            for (int e = 0; e < rows.length; e++) {
                if (rows[e].length != ROW_LENGTH) {
                    throw new IllegalArgumentException("row of endpoint " + e + " has " + rows[e].length
                            + " counters, expected " + ROW_LENGTH);
                }
                System.arraycopy(rows[e], 0, b, e * cells, cells);
                System.arraycopy(rows[e], cells, f, e * DIRECTIONS, DIRECTIONS);
            }
            return new Snapshot(rows.length, b, f);
        }

        /** The traffic counted after {@code earlier} and up to this snapshot. */
        public Snapshot minus(Snapshot earlier) {
            if (earlier.endpoints != endpoints) {
                throw new IllegalArgumentException("snapshots of different meters: " + endpoints + " vs "
                        + earlier.endpoints + " endpoints");
            }
            long[] b = new long[bytes.length];
            for (int i = 0; i < b.length; i++) {
                b[i] = bytes[i] - earlier.bytes[i];
            }
            long[] f = new long[frames.length];
            for (int i = 0; i < f.length; i++) {
                f[i] = frames[i] - earlier.frames[i];
            }
            return new Snapshot(endpoints, b, f);
        }
    }
}

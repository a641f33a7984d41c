package io.lgc4j.bench;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The versioned binary form of recorded compact vectors (what the LGC autoencoder trains on), as
 * {@link CompactVectorRecorder} writes them: little-endian, a 20-byte header ({@code "LGCV"}, version 1 and a reserved
 * 0 as int16, then K, μ and steps as int32), then per step the leader (int32) and the K·μ float32 values, rank 0's
 * vector first (layout and bounds: {@code docs/architecture/lgc.md}). {@link #open} checks the length the header
 * fixes, {@code 20 + steps · (4 + 4·K·μ)} bytes, before reading or allocating, naming what was expected and found;
 * bad leaders and non-finite values are rejected where they are read.
 *
 * <pre>{@code
 * try (CompactVectorFile.Writer w = CompactVectorFile.create(path, 4, mu, 300)) {
 *     w.append(leader, compacts);                  // 300 times
 * }
 * try (CompactVectorFile.Reader r = CompactVectorFile.open(path)) {
 *     for (CompactVectorFile.Step s = r.next(); s != null; s = r.next()) { ... }
 * }
 * }</pre>
 */
public final class CompactVectorFile {

    /** The version this build writes and reads. */
    public static final int VERSION = 1;
    /** Largest K accepted. */
    public static final int MAX_RANKS = 1 << 16;
    /** Largest μ accepted. */
    public static final int MAX_MU = 1 << 28;
    /** Bytes before the first step. */
    public static final int HEADER_BYTES = 20;

    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 4;
    static final int RESERVED_OFFSET = 6;
    static final int RANKS_OFFSET = 8;
    static final int MU_OFFSET = 12;
    static final int STEPS_OFFSET = 16;
    private static final byte[] MAGIC = {'L', 'G', 'C', 'V'};

    private CompactVectorFile() {
    }

    /**
     * What the header says.
     *
     * @param ranks K, compact vectors per step
     * @param mu    floats per compact vector
     * @param steps records in the file
     */
    public record Header(int ranks, int mu, int steps) {

        /** Checks the counts against the format's bounds. */
        public Header {
            if (ranks < 1 || ranks > MAX_RANKS) {
                throw new IllegalArgumentException("K must be in [1, " + MAX_RANKS + "], got " + ranks);
            }
            if (mu < 1 || mu > MAX_MU) {
                throw new IllegalArgumentException("μ must be in [1, " + MAX_MU + "], got " + mu);
            }
            if (steps < 0) {
                throw new IllegalArgumentException("steps must be >= 0, got " + steps);
            }
            if ((long) ranks * mu > Integer.MAX_VALUE / 4) {
                throw new IllegalArgumentException("K·μ = " + ranks + "·" + mu + " floats do not fit one step record");
            }
        }

        /** Bytes of one step's record: the leader and K·μ floats. */
        public long stepBytes() {
            return 4L + 4L * ranks * mu;
        }

        /** Bytes of the whole file. */
        public long fileBytes() {
            return HEADER_BYTES + steps * stepBytes();
        }
    }

    /**
     * One step: the leader rank and the K compact vectors.
     *
     * @param leader   the rank whose top-k chose the support
     * @param compacts one vector of length μ per rank, in rank order
     */
    public record Step(int leader, float[][] compacts) {
    }

    /** A whole file in memory. */
    public record Recording(Header header, List<Step> steps) {
    }

    /** Reads a whole file into memory (see {@link #open} for what is checked). */
    public static Recording readAll(Path file) throws IOException {
        try (Reader reader = open(file)) {
            List<Step> steps = new ArrayList<>(reader.header().steps());
            for (Step s = reader.next(); s != null; s = reader.next()) {
                steps.add(s);
            }
            return new Recording(reader.header(), List.copyOf(steps));
        }
    }

    /**
     * Opens {@code file} and checks its header and length.
     *
     * @throws CompactVectorFormatException for a wrong magic or version, counts out of bounds, or a length other
     *                                      than the header's
     */
    public static Reader open(Path file) throws IOException {
        long size = Files.size(file);
        InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16);
        try {
            Header header = readHeader(file, in, size);
            return new Reader(file, in, header);
        } catch (IOException | RuntimeException e) {
            in.close();
            throw e;
        }
    }

    private static Header readHeader(Path file, InputStream in, long size) throws IOException {
        if (size < HEADER_BYTES) {
            throw new CompactVectorFormatException(file, "truncated header: expected at least " + HEADER_BYTES
                    + " bytes, found " + size);
        }
        ByteBuffer b = ByteBuffer.wrap(in.readNBytes(HEADER_BYTES)).order(ByteOrder.LITTLE_ENDIAN);
        if (b.limit() < HEADER_BYTES) {
            throw new CompactVectorFormatException(file, "truncated header: expected " + HEADER_BYTES
                    + " bytes, found " + b.limit());
        }
        byte[] magic = new byte[MAGIC.length];
        b.get(MAGIC_OFFSET, magic);
        if (!Arrays.equals(magic, MAGIC)) {
            throw new CompactVectorFormatException(file, "expected magic \"LGCV\" (" + Arrays.toString(MAGIC)
                    + "), found " + Arrays.toString(magic));
        }
        int version = Short.toUnsignedInt(b.getShort(VERSION_OFFSET));
        if (version != VERSION) {
            throw new CompactVectorFormatException(file, "expected version " + VERSION + ", found version "
                    + version);
        }
        int reserved = Short.toUnsignedInt(b.getShort(RESERVED_OFFSET));
        if (reserved != 0) {
            throw new CompactVectorFormatException(file, "expected reserved field 0, found " + reserved);
        }
        long ranks = Integer.toUnsignedLong(b.getInt(RANKS_OFFSET));
        long mu = Integer.toUnsignedLong(b.getInt(MU_OFFSET));
        long steps = Integer.toUnsignedLong(b.getInt(STEPS_OFFSET));
        if (ranks < 1 || ranks > MAX_RANKS) {
            throw new CompactVectorFormatException(file, "expected K in [1, " + MAX_RANKS + "], found " + ranks);
        }
        if (mu < 1 || mu > MAX_MU) {
            throw new CompactVectorFormatException(file, "expected μ in [1, " + MAX_MU + "], found " + mu);
        }
        if (steps > Integer.MAX_VALUE) {
            throw new CompactVectorFormatException(file, "expected steps in [0, " + Integer.MAX_VALUE + "], found "
                    + steps);
        }
        if (ranks * mu > Integer.MAX_VALUE / 4) {
            throw new CompactVectorFormatException(file, "expected at most " + Integer.MAX_VALUE / 4
                    + " floats per step, found K·μ = " + ranks + "·" + mu + " = " + ranks * mu);
        }
        Header header = new Header((int) ranks, (int) mu, (int) steps);
        if (header.fileBytes() != size) {
            throw new CompactVectorFormatException(file, String.format(Locale.ROOT,
                    "expected %d + %d steps × (4 + 4·%d·%d) = %d bytes for K = %d, μ = %d, steps = %d; found %d "
                            + "bytes (%s)", HEADER_BYTES, steps, ranks, mu, header.fileBytes(), ranks, mu, steps,
                    size, size < header.fileBytes() ? "truncated" : "trailing bytes"));
        }
        return header;
    }

    /**
     * Creates {@code file} for {@code steps} steps of K = {@code ranks} vectors of length {@code mu}. The steps go
     * to {@code file.part} first; {@link Writer#close()} moves it into place once every declared step is written,
     * so an interrupted recording never leaves a file that claims more than it holds.
     */
    public static Writer create(Path file, int ranks, int mu, int steps) throws IOException {
        return new Writer(file, new Header(ranks, mu, steps));
    }

    /** Streams steps out of a file whose header and length have been checked. Not thread-safe. */
    public static final class Reader implements Closeable {
        private final Path file;
        private final InputStream in;
        private final Header header;
        private final byte[] record;
        private int read;

        private Reader(Path file, InputStream in, Header header) {
            this.file = file;
            this.in = in;
            this.header = header;
            this.record = new byte[Math.toIntExact(header.stepBytes())];
        }

        /** The checked header. */
        public Header header() {
            return header;
        }

        /**
         * The next step, or null after the last.
         *
         * @throws CompactVectorFormatException for a leader outside {@code [0, K)} or a non-finite value
         */
        public Step next() throws IOException {
            if (read == header.steps()) {
                return null;
            }
            int n = in.readNBytes(record, 0, record.length);
            if (n != record.length) {
                throw new EOFException(file + ": step " + read + " ends after " + n + " of its " + record.length
                        + " bytes (the file changed while it was read)");
            }
            ByteBuffer b = ByteBuffer.wrap(record).order(ByteOrder.LITTLE_ENDIAN);
            int leader = b.getInt();
            if (leader < 0 || leader >= header.ranks()) {
                throw new CompactVectorFormatException(file, "step " + read + ": expected a leader in [0, "
                        + header.ranks() + "), found " + leader);
            }
            float[][] compacts = new float[header.ranks()][header.mu()];
            for (int k = 0; k < compacts.length; k++) {
                b.asFloatBuffer().get(compacts[k]);
                b.position(b.position() + 4 * header.mu());
                for (int i = 0; i < compacts[k].length; i++) {
                    if (!Float.isFinite(compacts[k][i])) {
                        throw new CompactVectorFormatException(file, "step " + read + ", rank " + k + ", position "
                                + i + ": expected a finite value, found " + compacts[k][i]);
                    }
                }
            }
            read++;
            return new Step(leader, compacts);
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }

    /** Writes the declared number of steps, then moves the file into place. Not thread-safe. */
    public static final class Writer implements Closeable {
        private final Path file;
        private final Path part;
        private final Header header;
        private final OutputStream out;
        private final ByteBuffer record;
        private int written;
        private boolean closed;

        private Writer(Path file, Header header) throws IOException {
            this.file = file;
            this.part = file.resolveSibling(file.getFileName() + ".part");
            this.header = header;
            this.out = new BufferedOutputStream(Files.newOutputStream(part), 1 << 16);
            this.record = ByteBuffer.allocate(Math.toIntExact(header.stepBytes())).order(ByteOrder.LITTLE_ENDIAN);
            ByteBuffer h = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
            h.put(MAGIC).putShort((short) VERSION).putShort((short) 0).putInt(header.ranks()).putInt(header.mu())
                    .putInt(header.steps());
            out.write(h.array());
        }

        /** The header being written. */
        public Header header() {
            return header;
        }

        /** Steps written so far. */
        public int written() {
            return written;
        }

        /**
         * Appends one step.
         *
         * @throws IllegalArgumentException for a leader outside {@code [0, K)}, vectors of the wrong count or length,
         *                                  a non-finite value, or a step beyond the declared count
         */
        public void append(int leader, float[][] compacts) throws IOException {
            if (written == header.steps()) {
                throw new IllegalStateException("all " + header.steps() + " declared steps are written");
            }
            if (leader < 0 || leader >= header.ranks()) {
                throw new IllegalArgumentException("leader must be in [0, " + header.ranks() + "), got " + leader);
            }
            Objects.requireNonNull(compacts, "compacts");
            if (compacts.length != header.ranks()) {
                throw new IllegalArgumentException("expected " + header.ranks() + " compact vectors, got "
                        + compacts.length);
            }
            record.clear();
            record.putInt(leader);
            for (int k = 0; k < compacts.length; k++) {
                if (compacts[k].length != header.mu()) {
                    throw new IllegalArgumentException("rank " + k + "'s compact vector must hold μ = " + header.mu()
                            + " floats, got " + compacts[k].length);
                }
                for (int i = 0; i < compacts[k].length; i++) {
                    if (!Float.isFinite(compacts[k][i])) {
                        throw new IllegalArgumentException("rank " + k + ", position " + i + ": " + compacts[k][i]
                                + " is not finite");
                    }
                    record.putFloat(compacts[k][i]);
                }
            }
            out.write(record.array(), 0, record.position());
            written++;
        }

        /**
         * Closes the file; when every declared step was written, moves it to its name.
         *
         * @throws IOException if fewer steps were written than declared (the partial file is left as
         *                     {@code <name>.part})
         */
        @Override
        public void close() throws IOException {
            if (closed) {
                return;
            }
            closed = true;
            out.close();
            if (written != header.steps()) {
                throw new IOException(file + ": " + written + " of the " + header.steps() + " declared steps were "
                        + "written; the partial recording is left in " + part);
            }
            Files.move(part, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
    }
}

package io.lgc4j.data;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/**
 * Reads unsigned-byte IDX files (MNIST, Fashion-MNIST), gzip-compressed or plain (told apart by the magic
 * {@code 1f 8b}, not the name): a big-endian header {@code 00 00 08 <ndims>}, one 32-bit size per dimension, then
 * the data row-major; one dimension for labels ({@code 0x00000801}), three for images ({@code 0x00000803}: count,
 * rows, cols). Immutable and thread-safe.
 *
 * <p>It trusts nothing in the file: a bad magic, a wrong dimension count, a declared size above
 * {@link #maxDataBytes()} (checked before allocating), data shorter than declared, bytes after it and a truncated or
 * corrupt gzip stream each throw an {@link IdxFormatException} naming the file, what was expected and what was found.
 * It allocates at most the declared size; with a {@code limit}, only for the items kept (the rest is still checked).
 *
 * <pre>{@code
 * IdxReader reader = new IdxReader();
 * IdxImages images = reader.readImages(dir.resolve("t10k-images-idx3-ubyte.gz"));
 * IdxLabels labels = reader.readLabels(dir.resolve("t10k-labels-idx1-ubyte.gz"), 1000);  // first 1000
 * }</pre>
 */
public final class IdxReader {

    /** Magic of an unsigned-byte, one-dimensional IDX file: labels. */
    public static final int LABELS_MAGIC = 0x00000801;
    /** Magic of an unsigned-byte, three-dimensional IDX file: images. */
    public static final int IMAGES_MAGIC = 0x00000803;
    /**
     * Default upper bound on the declared data size: 1 GiB, twenty times Fashion-MNIST's training images (47 MB), so a
     * corrupt header cannot make the reader allocate gigabytes.
     */
    public static final long DEFAULT_MAX_DATA_BYTES = 1L << 30;
    /** Largest array the JVM reliably allocates. */
    private static final long MAX_ARRAY_BYTES = Integer.MAX_VALUE - 8;

    private static final int UNSIGNED_BYTE_TYPE = 0x08;
    private static final int GZIP_MAGIC_0 = 0x1f;
    private static final int GZIP_MAGIC_1 = 0x8b;
    private static final int BUFFER_BYTES = 1 << 16;

    private final long maxDataBytes;

    /** A reader that accepts files declaring up to {@link #DEFAULT_MAX_DATA_BYTES} bytes of data. */
    public IdxReader() {
        this(DEFAULT_MAX_DATA_BYTES);
    }

    /**
     * @param maxDataBytes the largest declared data size accepted, 1 .. {@code Integer.MAX_VALUE - 8}
     */
    public IdxReader(long maxDataBytes) {
        if (maxDataBytes < 1 || maxDataBytes > MAX_ARRAY_BYTES) {
            throw new IllegalArgumentException("maxDataBytes=" + maxDataBytes + " must be in 1.." + MAX_ARRAY_BYTES);
        }
        this.maxDataBytes = maxDataBytes;
    }

    /** @return the largest declared data size this reader accepts, in bytes */
    public long maxDataBytes() {
        return maxDataBytes;
    }

    /**
     * Reads all images of an IDX images file.
     *
     * @param file the file, gzip-compressed or plain
     * @return the images
     * @throws IdxFormatException if the file is not a well-formed unsigned-byte images file
     * @throws IOException        if the file cannot be read
     */
    public IdxImages readImages(Path file) throws IOException {
        return readImages(file, Integer.MAX_VALUE);
    }

    /**
     * Reads the first {@code limit} images of an IDX images file, checking the whole file.
     *
     * @param file  the file, gzip-compressed or plain
     * @param limit how many images to keep at most, positive
     * @return the first {@code min(limit, declared count)} images
     * @throws IdxFormatException if the file is not a well-formed unsigned-byte images file
     * @throws IOException        if the file cannot be read
     */
    public IdxImages readImages(Path file, int limit) throws IOException {
        Parsed parsed = read(file, Kind.IMAGES, limit);
        return new IdxImages(file, parsed.dims[0], parsed.dims[1], parsed.dims[2], parsed.kept);
    }

    /**
     * Reads all labels of an IDX labels file.
     *
     * @param file the file, gzip-compressed or plain
     * @return the labels
     * @throws IdxFormatException if the file is not a well-formed unsigned-byte labels file
     * @throws IOException        if the file cannot be read
     */
    public IdxLabels readLabels(Path file) throws IOException {
        return readLabels(file, Integer.MAX_VALUE);
    }

    /**
     * Reads the first {@code limit} labels of an IDX labels file, checking the whole file.
     *
     * @param file  the file, gzip-compressed or plain
     * @param limit how many labels to keep at most, positive
     * @return the first {@code min(limit, declared count)} labels
     * @throws IdxFormatException if the file is not a well-formed unsigned-byte labels file
     * @throws IOException        if the file cannot be read
     */
    public IdxLabels readLabels(Path file, int limit) throws IOException {
        Parsed parsed = read(file, Kind.LABELS, limit);
        return new IdxLabels(file, parsed.dims[0], parsed.kept);
    }

    /** What the caller expects the file to be; decides the magic and how sizes are described in messages. */
    private enum Kind {
        LABELS(LABELS_MAGIC, "labels: count") {
            @Override
            String describe(long[] dims, long bytes) {
                return dims[0] + " labels (" + bytes + " bytes)";
            }
        },
        IMAGES(IMAGES_MAGIC, "images: count, rows, cols") {
            @Override
            String describe(long[] dims, long bytes) {
                return dims[0] + " images of " + dims[1] + "x" + dims[2] + " (" + bytes + " bytes)";
            }
        };

        final int magic;
        final String dimensionNames;

        Kind(int magic, String dimensionNames) {
            this.magic = magic;
            this.dimensionNames = dimensionNames;
        }

        int dimensions() {
            return magic & 0xff;
        }

        abstract String describe(long[] dims, long bytes);
    }

    /** The header's sizes and the bytes of the items kept. */
    private record Parsed(int[] dims, byte[] kept) {
    }

    private Parsed read(Path file, Kind kind, int limit) throws IOException {
        if (limit < 1) {
            throw new IllegalArgumentException("limit=" + limit + " must be positive");
        }
        try (InputStream raw = Files.newInputStream(file);
             BufferedInputStream buffered = new BufferedInputStream(raw, BUFFER_BYTES)) {
            boolean gzip = startsWithGzipMagic(buffered);
            InputStream data = gzip ? openGzip(file, buffered) : buffered;
            try (Source source = new Source(file, data, gzip)) {
                return parse(source, kind, limit);
            }
        }
    }

    private static InputStream openGzip(Path file, InputStream in) throws IOException {
        try {
            return new GZIPInputStream(in, BUFFER_BYTES);    // reads and checks the gzip header
        } catch (EOFException e) {
            throw new IdxFormatException(file, "truncated gzip stream: the gzip header is incomplete", e);
        } catch (ZipException e) {
            throw new IdxFormatException(file, "corrupt gzip stream: " + e.getMessage(), e);
        }
    }

    private static boolean startsWithGzipMagic(BufferedInputStream in) throws IOException {
        in.mark(2);
        int first = in.read();
        int second = in.read();
        in.reset();
        return first == GZIP_MAGIC_0 && second == GZIP_MAGIC_1;
    }

    private Parsed parse(Source source, Kind kind, int limit) throws IOException {
        Path file = source.file;
        int headerBytes = 4 + 4 * kind.dimensions();
        byte[] header = new byte[headerBytes];
        int headerRead = source.readFully(header, 0, 4);
        if (headerRead < 4) {
            throw new IdxFormatException(file, "truncated: expected a " + headerBytes + "-byte header (magic 0x"
                    + hex(kind.magic) + " and " + kind.dimensions() + " sizes) but the file ends after "
                    + headerRead + " bytes");
        }
        int magic = readInt(header, 0);
        if ((magic >>> 8) != UNSIGNED_BYTE_TYPE) {
            throw new IdxFormatException(file, "bad magic: expected 0x" + hex(kind.magic) + " (unsigned-byte "
                    + kind.name().toLowerCase(Locale.ROOT) + ") but found 0x" + hex(magic));
        }
        if ((magic & 0xff) != kind.dimensions()) {
            throw new IdxFormatException(file, "wrong dimension count: expected " + kind.dimensions() + " ("
                    + kind.dimensionNames + ", magic 0x" + hex(kind.magic) + ") but found " + (magic & 0xff)
                    + " (magic 0x" + hex(magic) + ")");
        }
        headerRead += source.readFully(header, 4, headerBytes - 4);
        if (headerRead < headerBytes) {
            throw new IdxFormatException(file, "truncated: expected a " + headerBytes + "-byte header (magic and "
                    + kind.dimensions() + " sizes) but the file ends after " + headerRead + " bytes");
        }

        long[] dims = new long[kind.dimensions()];
        for (int d = 0; d < dims.length; d++) {
            dims[d] = Integer.toUnsignedLong(readInt(header, 4 + 4 * d));
        }
        long itemBytes = 1;
        for (int d = 1; d < dims.length; d++) {
            if (dims[d] == 0) {
                throw new IdxFormatException(file, "bad size: header declares " + kind.describe(dims, 0)
                        + " but every dimension after the count must be at least 1");
            }
            itemBytes *= dims[d];    // at most two factors below 2^32: no overflow
        }
        long declaredBytes = multiplyOrMax(dims[0], itemBytes);
        if (declaredBytes > maxDataBytes) {
            throw new IdxFormatException(file, "declared size too large: header declares "
                    + kind.describe(dims, declaredBytes) + " but this reader accepts at most " + maxDataBytes
                    + " bytes");
        }

        long keptItems = Math.min(dims[0], limit);
        byte[] kept = new byte[Math.toIntExact(keptItems * itemBytes)];
        long dataRead = source.readFully(kept, 0, kept.length);
        if (dataRead == kept.length) {
            dataRead += source.skip(declaredBytes - kept.length);
        }
        if (dataRead < declaredBytes) {
            throw new IdxFormatException(file, "truncated: header declares " + kind.describe(dims, declaredBytes)
                    + " but the data ends after " + dataRead + " bytes");
        }
        long trailing = source.skip(Long.MAX_VALUE);
        if (trailing > 0) {
            throw new IdxFormatException(file, "trailing garbage: header declares "
                    + kind.describe(dims, declaredBytes) + " but " + trailing + " more bytes follow the data");
        }
        int[] intDims = new int[dims.length];
        for (int d = 0; d < dims.length; d++) {
            // dims[0] * itemBytes <= maxDataBytes < 2^31 and every dimension after the count is >= 1.
            intDims[d] = Math.toIntExact(dims[d]);
        }
        return new Parsed(intDims, kept);
    }

    private static long multiplyOrMax(long a, long b) {
        try {
            return Math.multiplyExact(a, b);
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    private static int readInt(byte[] bytes, int offset) {
        return ((bytes[offset] & 0xff) << 24) | ((bytes[offset + 1] & 0xff) << 16)
                | ((bytes[offset + 2] & 0xff) << 8) | (bytes[offset + 3] & 0xff);
    }

    private static String hex(int value) {
        return String.format("%08x", value);
    }

    /**
     * The decoded byte stream with a running position, turning the gzip decoder's failures into
     * {@link IdxFormatException}s that say how far the data got.
     */
    private static final class Source implements AutoCloseable {
        private final Path file;
        private final InputStream in;
        private final boolean gzip;
        private long position;

        Source(Path file, InputStream in, boolean gzip) {
            this.file = file;
            this.in = in;
            this.gzip = gzip;
        }

        /** Reads up to {@code length} bytes, fewer only at the end of the data; returns how many were read. */
        int readFully(byte[] target, int offset, int length) throws IOException {
            int total = 0;
            while (total < length) {
                int n = read(target, offset + total, length - total);
                if (n < 0) {
                    break;
                }
                total += n;
            }
            return total;
        }

        /** Reads and discards up to {@code count} bytes, fewer only at the end of the data; returns how many. */
        long skip(long count) throws IOException {
            byte[] scratch = new byte[(int) Math.min(BUFFER_BYTES, Math.max(1, count))];
            long total = 0;
            while (total < count) {
                int n = read(scratch, 0, (int) Math.min(scratch.length, count - total));
                if (n < 0) {
                    break;
                }
                total += n;
            }
            return total;
        }

        private int read(byte[] target, int offset, int length) throws IOException {
            int n;
            try {
                n = in.read(target, offset, length);
            } catch (EOFException e) {
                throw gzipFailure("truncated gzip stream: the compressed data ends after " + position
                        + " decompressed bytes", e);
            } catch (ZipException e) {
                throw gzipFailure("corrupt gzip stream after " + position + " decompressed bytes: "
                        + e.getMessage(), e);
            }
            if (n > 0) {
                position += n;
            }
            return n;
        }

        private IOException gzipFailure(String problem, IOException cause) {
            return gzip ? new IdxFormatException(file, problem, cause) : cause;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}

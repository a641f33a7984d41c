package io.lgc4j.core.codec;

import org.apache.commons.compress.compressors.deflate.DeflateCompressorOutputStream;
import org.apache.commons.compress.compressors.deflate.DeflateParameters;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Locale;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * The default index codec: a {@link Transform} of the indices, then DEFLATE in a standard zlib stream (RFC 1950) that
 * any zlib inflates ({@code zlib.decompress(bytes)}, {@link Inflater}). Inflated content, version
 * {@link #FORMAT_VERSION}: version (1 byte), transform id ({@link Transform#wireId()}, 1 byte), count k (LEB128),
 * for GAPS_BYTE_PLANES a plane count (0..4), then the body: raw int32 indices, or gaps {@code d_i = x_i - x_(i-1) - 1}
 * as int32, LEB128 or byte planes. {@code n} is not written; any instance decodes every transform.
 *
 * <p>Decoding stops inflating at the bytes the declared count can need and rejects trailing bytes, an unknown
 * version, transform or plane count with a message naming what it expected and found.
 *
 * <pre>{@code
 * IndexCodec codec = new DeflateIndexCodec(DeflateIndexCodec.Transform.GAPS_VARINT, 6);
 * int[] back = codec.decode(codec.encode(indices, k, n), n, k);
 * }</pre>
 */
public final class DeflateIndexCodec implements IndexCodec {
    /** The content version this code writes and reads. */
    public static final int FORMAT_VERSION = 1;
    /** The default DEFLATE level. */
    public static final int DEFAULT_LEVEL = 9;
    /** The default transform: the smallest measured (see the class comment). */
    public static final Transform DEFAULT_TRANSFORM = Transform.GAPS_BYTE_PLANES;

    static final int VERSION_OFFSET = 0;
    static final int TRANSFORM_OFFSET = 1;
    static final int COUNT_OFFSET = 2;
    /** Version, transform, the longest count varint and the planes byte. */
    static final int MAX_HEADER_LENGTH = COUNT_OFFSET + Varint.MAX_LENGTH + 1;
    /** Compression method 8 (DEFLATE) in the low nibble of a zlib header's first byte. */
    private static final int ZLIB_METHOD_DEFLATE = 8;
    /** The preset-dictionary flag in a zlib header's second byte. */
    private static final int ZLIB_FDICT = 0x20;

    /** What is done to the indices before DEFLATE. */
    public enum Transform {
        /** Wire id 0: indices as int32 little-endian, the paper's literal choice. */
        RAW_INT32(0, "raw-int32"),
        /**
         * Wire id 1: gaps minus one as int32 little-endian. Slow at high levels on dense sets: the runs of zero bytes
         * give zlib long match chains to walk.
         */
        GAPS_INT32(1, "gaps-int32"),
        /** Wire id 2: gaps minus one as unsigned LEB128 varints. */
        GAPS_VARINT(2, "gaps-varint"),
        /**
         * Wire id 3, the default: gaps minus one split into byte planes, one DEFLATE block per plane, Huffman coding
         * only.
         */
        GAPS_BYTE_PLANES(3, "gaps-byte-planes");

        private final int wireId;
        private final String slug;

        Transform(int wireId, String slug) {
            this.wireId = wireId;
            this.slug = slug;
        }

        /** The byte that names this transform in the content header: 0, 1, 2 or 3, in declaration order. */
        public int wireId() {
            return wireId;
        }

        /** The lower-case name used in codec names, e.g. {@code "gaps-varint"}. */
        public String slug() {
            return slug;
        }

        static Transform ofWireIdOrNull(int wireId) {
            for (Transform t : values()) {
                if (t.wireId == wireId) {
                    return t;
                }
            }
            return null;
        }
    }

    private final Transform transform;
    private final int level;

    /** The default transform at the default level. */
    public DeflateIndexCodec() {
        this(DEFAULT_TRANSFORM, DEFAULT_LEVEL);
    }

    /** {@code transform} at the default level. */
    public DeflateIndexCodec(Transform transform) {
        this(transform, DEFAULT_LEVEL);
    }

    /**
     * {@code transform} at DEFLATE level {@code level}.
     *
     * @throws IllegalArgumentException if {@code level} is not in {@code [0, 9]}
     */
    public DeflateIndexCodec(Transform transform, int level) {
        if (transform == null) {
            throw new IllegalArgumentException("transform must not be null");
        }
        if (level < Deflater.NO_COMPRESSION || level > Deflater.BEST_COMPRESSION) {
            throw new IllegalArgumentException("level must be in [0, 9], found " + level);
        }
        this.transform = transform;
        this.level = level;
    }

    /** The transform this instance encodes with. */
    public Transform transform() {
        return transform;
    }

    /** The DEFLATE level this instance encodes with. */
    public int level() {
        return level;
    }

    /** {@code "deflate-"} and the transform's slug; the level does not change the format, so it is not named. */
    @Override
    public String name() {
        return "deflate-" + transform.slug();
    }

    @Override
    public String toString() {
        return name() + "(level " + level + ")";
    }

    // ------------------------------------------------------------------------------------------------- encoding

    @Override
    public byte[] encode(int[] sortedIndices, int count, int n) {
        Indices.checkEncodeArguments(sortedIndices, count, n);
        if (transform == Transform.GAPS_BYTE_PLANES) {
            return encodePlanes(sortedIndices, count);
        }
        int header = COUNT_OFFSET + Varint.length(count);
        byte[] content;
        switch (transform) {
            case RAW_INT32 -> {
                content = new byte[header + 4 * count];
                for (int i = 0, p = header; i < count; i++, p += 4) {
                    putIntLE(content, p, sortedIndices[i]);
                }
            }
            case GAPS_INT32 -> {
                content = new byte[header + 4 * count];
                int previous = -1;
                for (int i = 0, p = header; i < count; i++, p += 4) {
                    putIntLE(content, p, sortedIndices[i] - previous - 1);
                    previous = sortedIndices[i];
                }
            }
            case GAPS_VARINT -> {
                int length = header;
                int previous = -1;
                for (int i = 0; i < count; i++) {
                    length += Varint.length(sortedIndices[i] - previous - 1);
                    previous = sortedIndices[i];
                }
                content = new byte[length];
                previous = -1;
                int p = header;
                for (int i = 0; i < count; i++) {
                    p = Varint.write(content, p, sortedIndices[i] - previous - 1);
                    previous = sortedIndices[i];
                }
            }
            default -> throw new IllegalStateException("unhandled transform " + transform);
        }
        writeHeader(content, count);
        return deflateWithCommonsCompress(content);
    }

    private int writeHeader(byte[] content, int count) {
        content[VERSION_OFFSET] = (byte) FORMAT_VERSION;
        content[TRANSFORM_OFFSET] = (byte) transform.wireId();
        return Varint.write(content, COUNT_OFFSET, count);
    }

    private byte[] encodePlanes(int[] sortedIndices, int count) {
        int maxGap = 0;
        int previous = -1;
        for (int i = 0; i < count; i++) {
            maxGap = Math.max(maxGap, sortedIndices[i] - previous - 1);
            previous = sortedIndices[i];
        }
        int planes = (Integer.SIZE - Integer.numberOfLeadingZeros(maxGap) + 7) / 8;
        int header = COUNT_OFFSET + Varint.length(count) + 1;
        byte[] content = new byte[header + planes * count];
        content[writeHeader(content, count)] = (byte) planes;
        previous = -1;
        for (int i = 0; i < count; i++) {
            int gap = sortedIndices[i] - previous - 1;
            previous = sortedIndices[i];
            for (int j = 0, p = header + i; j < planes; j++, p += count) {
                content[p] = (byte) (gap >>> (8 * j));
            }
        }
        // One DEFLATE block per plane: the header rides in the first plane's block.
        int[] blockEnds = new int[Math.max(1, planes)];
        for (int j = 0; j < blockEnds.length; j++) {
            blockEnds[j] = header + (planes == 0 ? 0 : (j + 1) * count);
        }
        return deflateInBlocks(content, blockEnds);
    }

    private byte[] deflateWithCommonsCompress(byte[] content) {
        DeflateParameters parameters = new DeflateParameters();
        parameters.setWithZlibHeader(true);
        parameters.setCompressionLevel(level);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(content.length / 2 + 64);
        try (DeflateCompressorOutputStream deflate = new DeflateCompressorOutputStream(bytes, parameters)) {
            deflate.write(content);
        } catch (IOException e) {
            throw new UncheckedIOException("DEFLATE into memory failed", e);
        }
        return bytes.toByteArray();
    }

    /** Deflates {@code content} as one zlib stream whose DEFLATE blocks end at {@code blockEnds}. */
    private byte[] deflateInBlocks(byte[] content, int[] blockEnds) {
        Deflater deflater = new Deflater(level, false);
        deflater.setStrategy(Deflater.HUFFMAN_ONLY);
        try {
            // zlib's deflateBound plus a sync marker per block: enough for any input, so one pass suffices.
            byte[] out = new byte[content.length + (content.length >>> 12) + (content.length >>> 14) + 64
                    + 8 * blockEnds.length];
            int length = 0;
            int start = 0;
            for (int b = 0; b < blockEnds.length; b++) {
                deflater.setInput(content, start, blockEnds[b] - start);
                start = blockEnds[b];
                if (b == blockEnds.length - 1) {
                    deflater.finish();
                    while (!deflater.finished()) {
                        out = ensureRoom(out, length);
                        length += deflater.deflate(out, length, out.length - length);
                    }
                } else {
                    // Until the input is taken and the flush is complete (a full buffer may hide more output; the
                    // first call, which applies the strategy, may return before taking all the input).
                    int room;
                    int written;
                    do {
                        out = ensureRoom(out, length);
                        room = out.length - length;
                        written = deflater.deflate(out, length, room, Deflater.SYNC_FLUSH);
                        length += written;
                    } while (written == room || !deflater.needsInput());
                }
            }
            return Arrays.copyOf(out, length);
        } finally {
            deflater.end();
        }
    }

    private static byte[] ensureRoom(byte[] out, int length) {
        return length < out.length ? out : Arrays.copyOf(out, out.length * 2);
    }

    private static void putIntLE(byte[] out, int p, int value) {
        out[p] = (byte) value;
        out[p + 1] = (byte) (value >>> 8);
        out[p + 2] = (byte) (value >>> 16);
        out[p + 3] = (byte) (value >>> 24);
    }

    private static long getUnsignedIntLE(byte[] in, int p) {
        return (in[p] & 0xFFL) | (in[p + 1] & 0xFFL) << 8 | (in[p + 2] & 0xFFL) << 16 | (in[p + 3] & 0xFFL) << 24;
    }

    // ------------------------------------------------------------------------------------------------- decoding

    @Override
    public int[] decode(byte[] bytes, int n, int maxCount) {
        Indices.checkDecodeArguments(bytes, n, maxCount);
        checkZlibHeader(bytes);
        Inflater inflater = new Inflater(false);
        try {
            inflater.setInput(bytes);
            return decodeContent(inflater, bytes.length, n, maxCount);
        } finally {
            inflater.end();
        }
    }

    private static void checkZlibHeader(byte[] bytes) {
        if (bytes.length < 2) {
            throw new CodecException("truncated stream: expected a 2-byte zlib header, found " + bytes.length
                    + " byte" + (bytes.length == 1 ? "" : "s"));
        }
        int cmf = bytes[0] & 0xFF;
        int flg = bytes[1] & 0xFF;
        if ((cmf & 0x0F) != ZLIB_METHOD_DEFLATE) {
            throw new CodecException("bad zlib header: expected compression method 8 (DEFLATE), found "
                    + (cmf & 0x0F));
        }
        if ((cmf >>> 4) > 7) {
            throw new CodecException("bad zlib header: expected a window size exponent <= 7, found " + (cmf >>> 4));
        }
        if ((cmf * 256 + flg) % 31 != 0) {
            throw new CodecException(String.format(Locale.ROOT,
                    "bad zlib header: expected check bits making 0x%04X a multiple of 31, found remainder %d",
                    cmf * 256 + flg, (cmf * 256 + flg) % 31));
        }
        if ((flg & ZLIB_FDICT) != 0) {
            throw new CodecException("bad zlib header: expected no preset dictionary, found the FDICT flag set");
        }
    }

    private static int[] decodeContent(Inflater inflater, int streamLength, int n, int maxCount) {
        byte[] content = new byte[MAX_HEADER_LENGTH];
        int length = inflate(inflater, content, 0, MAX_HEADER_LENGTH, streamLength);
        if (length < COUNT_OFFSET + 1) {
            throw new CodecException("truncated content: expected a header of at least " + (COUNT_OFFSET + 1)
                    + " bytes, found " + length);
        }
        int version = content[VERSION_OFFSET] & 0xFF;
        if (version != FORMAT_VERSION) {
            throw CodecException.unsupportedVersion(FORMAT_VERSION, version);
        }
        int transformId = content[TRANSFORM_OFFSET] & 0xFF;
        Transform transform = Transform.ofWireIdOrNull(transformId);
        if (transform == null) {
            throw new CodecException("unknown transform id: expected 0.." + (Transform.values().length - 1)
                    + ", found " + transformId);
        }
        int[] cursor = {COUNT_OFFSET};
        long declared = Varint.read(content, cursor, length);
        if (declared == Varint.CUT_OFF) {
            throw new CodecException("truncated content: the count varint is cut off after " + length + " bytes");
        }
        if (declared == Varint.TOO_LONG) {
            throw new CodecException("bad count varint: expected at most 32 bits in " + Varint.MAX_LENGTH
                    + " bytes, found more");
        }
        int count = Indices.checkDeclaredCount(declared, n, maxCount);
        int planes = 0;
        if (transform == Transform.GAPS_BYTE_PLANES) {
            if (cursor[0] >= length) {
                throw new CodecException("truncated content: expected the planes byte at offset " + cursor[0]
                        + ", found the end of the content");
            }
            planes = content[cursor[0]++] & 0xFF;
            if (planes > 4) {
                throw new CodecException("bad plane count: expected 0..4, found " + planes);
            }
        }
        int header = cursor[0];
        long maxBody = switch (transform) {
            case RAW_INT32, GAPS_INT32 -> 4L * count;
            case GAPS_VARINT -> (long) Varint.MAX_LENGTH * count;
            case GAPS_BYTE_PLANES -> (long) planes * count;
        };
        // Never inflate more than the declared count can need, plus one byte to see that there is more.
        long bound = header + maxBody;
        if (bound >= Integer.MAX_VALUE - 16) {
            throw new CodecException("declared count too large for one array: " + count + " indices need up to "
                    + bound + " bytes");
        }
        int limit = (int) bound + 1;
        while (length < limit && !inflater.finished()) {
            if (length == content.length) {
                content = Arrays.copyOf(content, (int) Math.min(limit,
                        Math.max(2L * content.length, Math.max(64, 4L * streamLength))));
            }
            length = inflate(inflater, content, length, content.length, streamLength);
        }
        if (length > bound) {
            throw new CodecException("trailing garbage: expected at most " + bound + " bytes of content for "
                    + count + " indices, found more");
        }
        if (inflater.getRemaining() > 0) {
            throw new CodecException("trailing garbage: expected the stream to end after "
                    + (streamLength - inflater.getRemaining()) + " bytes, found " + inflater.getRemaining()
                    + " more");
        }
        return switch (transform) {
            case RAW_INT32 -> decodeRawInt32(content, header, length, count, n);
            case GAPS_INT32 -> decodeGapsInt32(content, header, length, count, n);
            case GAPS_VARINT -> decodeGapsVarint(content, header, length, count, n);
            case GAPS_BYTE_PLANES -> decodeBytePlanes(content, header, length, count, n, planes);
        };
    }

    /**
     * Inflates into {@code out[from, limit)} until the buffer is full or the zlib stream has ended (its Adler-32
     * checked). Returns the end of the inflated bytes.
     */
    private static int inflate(Inflater inflater, byte[] out, int from, int limit, int streamLength) {
        int length = from;
        while (length < limit && !inflater.finished()) {
            int inflated;
            try {
                inflated = inflater.inflate(out, length, limit - length);
            } catch (DataFormatException e) {
                throw new CodecException("corrupt DEFLATE data: " + e.getMessage());
            }
            length += inflated;
            if (inflated == 0 && !inflater.finished()) {
                if (inflater.needsInput()) {
                    throw new CodecException("truncated stream: the zlib stream has no end after " + streamLength
                            + " bytes");
                }
                if (inflater.needsDictionary()) {
                    throw new CodecException("bad zlib stream: expected no preset dictionary, found a request");
                }
                throw new CodecException("corrupt DEFLATE data: the inflater stopped without output");
            }
        }
        return length;
    }

    private static void checkBodyLength(int found, long expected, int count) {
        if (found != expected) {
            throw new CodecException("truncated content: expected " + expected + " body bytes for " + count
                    + " indices, found " + found);
        }
    }

    private static int[] decodeRawInt32(byte[] content, int header, int length, int count, int n) {
        checkBodyLength(length - header, 4L * count, count);
        int[] indices = new int[count];
        long previous = -1;
        for (int i = 0, p = header; i < count; i++, p += 4) {
            long index = (int) getUnsignedIntLE(content, p);
            if (index <= previous) {
                throw index < 0 ? CodecException.indexOutOfRange(i, n, index)
                        : CodecException.nonMonotone(i, previous, index);
            }
            if (index >= n) {
                throw CodecException.indexOutOfRange(i, n, index);
            }
            indices[i] = (int) index;
            previous = index;
        }
        return indices;
    }

    private static int[] decodeGapsInt32(byte[] content, int header, int length, int count, int n) {
        checkBodyLength(length - header, 4L * count, count);
        int[] indices = new int[count];
        long previous = -1;
        for (int i = 0, p = header; i < count; i++, p += 4) {
            long index = previous + 1 + getUnsignedIntLE(content, p);
            if (index >= n) {
                throw CodecException.indexOutOfRange(i, n, index);
            }
            indices[i] = (int) index;
            previous = index;
        }
        return indices;
    }

    private static int[] decodeGapsVarint(byte[] content, int header, int length, int count, int n) {
        if (length - header < count) {
            throw new CodecException("truncated content: expected at least " + count + " body bytes for " + count
                    + " indices, found " + (length - header));
        }
        int[] indices = new int[count];
        int[] cursor = {header};
        long previous = -1;
        for (int i = 0; i < count; i++) {
            long gap = Varint.read(content, cursor, length);
            if (gap < 0) {
                throw new CodecException(gap == Varint.CUT_OFF
                        ? "truncated content: the varint of index " + i + " of " + count + " is cut off at byte "
                                + length
                        : "bad varint at position " + i + ": expected at most 32 bits in " + Varint.MAX_LENGTH
                                + " bytes, found more");
            }
            long index = previous + 1 + gap;
            if (index >= n) {
                throw CodecException.indexOutOfRange(i, n, index);
            }
            indices[i] = (int) index;
            previous = index;
        }
        if (cursor[0] != length) {
            throw new CodecException("trailing garbage: expected the content to end after " + cursor[0]
                    + " bytes, found " + (length - cursor[0]) + " more");
        }
        return indices;
    }

    private static int[] decodeBytePlanes(byte[] content, int header, int length, int count, int n, int planes) {
        checkBodyLength(length - header, (long) planes * count, count);
        int[] indices = new int[count];
        long previous = -1;
        for (int i = 0; i < count; i++) {
            long gap = 0;
            for (int j = 0, p = header + i; j < planes; j++, p += count) {
                gap |= (content[p] & 0xFFL) << (8 * j);
            }
            long index = previous + 1 + gap;
            if (index >= n) {
                throw CodecException.indexOutOfRange(i, n, index);
            }
            indices[i] = (int) index;
            previous = index;
        }
        return indices;
    }
}

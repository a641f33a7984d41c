package io.lgc4j.core.checkpoint;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Reads the body of one section of a {@link CheckpointPart} in the order its {@link SectionWriter} wrote it. Every
 * read checks that the bytes it needs remain before it allocates, and a failed read names the section, the part and
 * what it expected and found:
 * <pre>{@code
 * SectionReader s = part.section("compressor/state");
 * int stepsSinceReset = s.getInt();
 * boolean fallback = s.getBoolean();
 * float[] residual = s.getFloats(layout.length());
 * s.end();   // section 'compressor/state' of rank-2.lgcc: 4 bytes follow what was read, expected none
 * }</pre>
 * Counts come from the reader's own configuration or from a count the writer put first; a count read from the file
 * is checked like any other (a negative one is refused).
 */
public final class SectionReader {
    private final String section;
    private final String part;
    private final ByteBuffer body;

    SectionReader(String section, String part, ByteBuffer body) {
        this.section = section;
        this.part = part;
        this.body = body.slice().order(ByteOrder.LITTLE_ENDIAN);
    }

    /** The section's name. */
    public String name() {
        return section;
    }

    /** Bytes not yet read. */
    public int remaining() {
        return body.remaining();
    }

    /** Reads one byte, unsigned (0..255). */
    public int getByte() throws CheckpointException {
        need(1, "a byte (1 byte)");
        return Byte.toUnsignedInt(body.get());
    }

    /** Reads a boolean: one byte, 0 or 1. */
    public boolean getBoolean() throws CheckpointException {
        need(1, "a boolean (1 byte)");
        int b = Byte.toUnsignedInt(body.get());
        if (b > 1) {
            throw fail("expected a boolean byte 0 or 1, found " + b);
        }
        return b == 1;
    }

    /** Reads an int32. */
    public int getInt() throws CheckpointException {
        need(Integer.BYTES, "an int (4 bytes)");
        return body.getInt();
    }

    /** Reads an int64. */
    public long getLong() throws CheckpointException {
        need(Long.BYTES, "a long (8 bytes)");
        return body.getLong();
    }

    /** Reads a float32. */
    public float getFloat() throws CheckpointException {
        need(Float.BYTES, "a float (4 bytes)");
        return Float.intBitsToFloat(body.getInt());
    }

    /** Reads a float64. */
    public double getDouble() throws CheckpointException {
        need(Double.BYTES, "a double (8 bytes)");
        return Double.longBitsToDouble(body.getLong());
    }

    /** Reads a string written by {@link SectionWriter#putString}: a uint32 length, then that many UTF-8 bytes. */
    public String getString() throws CheckpointException {
        need(Integer.BYTES, "a string's length (4 bytes)");
        long length = Integer.toUnsignedLong(body.getInt());
        if (length > body.remaining()) {
            throw fail("expected a string of " + Messages.bytes(length) + ", found "
                    + Messages.bytes(body.remaining()));
        }
        ByteBuffer utf8 = body.slice().limit((int) length);
        try {
            String s = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(utf8).toString();
            body.position(body.position() + (int) length);
            return s;
        } catch (CharacterCodingException e) {
            throw fail("a string of " + Messages.bytes(length) + " is not valid UTF-8", e);
        }
    }

    /** Reads {@code count} bytes. */
    public byte[] getBytes(int count) throws CheckpointException {
        byte[] values = new byte[checkCount(count, 1, "byte")];
        body.get(values);
        return values;
    }

    /** Reads {@code count} int32s. */
    public int[] getInts(int count) throws CheckpointException {
        int[] values = new int[checkCount(count, Integer.BYTES, "int")];
        body.asIntBuffer().get(values);
        skip(values.length, Integer.BYTES);
        return values;
    }

    /** Reads {@code count} int64s. */
    public long[] getLongs(int count) throws CheckpointException {
        long[] values = new long[checkCount(count, Long.BYTES, "long")];
        body.asLongBuffer().get(values);
        skip(values.length, Long.BYTES);
        return values;
    }

    /** Reads {@code count} float32s. */
    public float[] getFloats(int count) throws CheckpointException {
        float[] values = new float[checkCount(count, Float.BYTES, "float")];
        getFloats(values);
        return values;
    }

    /** Reads {@code into.length} float32s into an existing array (a state restored in place, without a copy). */
    public void getFloats(float[] into) throws CheckpointException {
        checkCount(into.length, Float.BYTES, "float");
        body.asFloatBuffer().get(into);
        skip(into.length, Float.BYTES);
    }

    /**
     * Checks that every byte of the section was read: a section longer than its reader expects was written for
     * another configuration, and is refused rather than half read.
     */
    public void end() throws CheckpointException {
        if (body.hasRemaining()) {
            throw fail(Messages.bytes(body.remaining()) + " follow what was read, expected none");
        }
    }

    /** Checks that exactly {@code count} values of {@code size} bytes remain (a section read whole). */
    void expectExactly(int count, int size, String noun) throws CheckpointException {
        long needed = (long) count * size;
        if (count < 0 || needed != body.remaining()) {
            throw fail("expected " + values(count, size, noun) + ", found " + Messages.bytes(body.remaining()));
        }
    }

    private int checkCount(int count, int size, String noun) throws CheckpointException {
        if (count < 0) {
            throw fail("expected a count of " + noun + "s >= 0, found " + count);
        }
        long needed = (long) count * size;
        if (needed > body.remaining()) {
            throw fail("expected " + values(count, size, noun) + ", found " + Messages.bytes(body.remaining()));
        }
        return count;
    }

    /** {@code 1,200 floats (4,800 bytes)}; {@code 5 bytes} for single bytes. */
    private static String values(int count, int size, String noun) {
        return size == 1 ? Messages.bytes(count)
                : Messages.plural(count, noun) + " (" + Messages.bytes((long) count * size) + ")";
    }

    private void skip(int count, int size) {
        body.position(body.position() + count * size);
    }

    private void need(int bytes, String what) throws CheckpointException {
        if (body.remaining() < bytes) {
            throw fail("expected " + what + ", found " + Messages.bytes(body.remaining()));
        }
    }

    private CheckpointException fail(String problem) {
        return new CheckpointException(prefix() + problem);
    }

    private CheckpointException fail(String problem, Throwable cause) {
        return new CheckpointException(prefix() + problem, cause);
    }

    private String prefix() {
        return "section '" + section + "' of " + part + ": ";
    }
}

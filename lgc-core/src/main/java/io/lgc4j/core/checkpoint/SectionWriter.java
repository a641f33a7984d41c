package io.lgc4j.core.checkpoint;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Builds the body of one section of a {@link CheckpointPart}: values appended in order, little-endian. Arrays are
 * written without their length — the reader knows how many values a state holds from its own configuration (a
 * block's length, K), as in the wire payloads; a state whose length varies writes the count first with
 * {@link #putInt(int)}. Every method returns this writer, so a section reads as one statement:
 * <pre>{@code
 * CheckpointPart.Builder part = CheckpointPart.builder(PartKind.RANK);
 * part.section("compressor/residual").putFloats(residual);
 * part.section("compressor/state").putInt(stepsSinceReset).putBoolean(fallback).putString("TOP_K");
 * }</pre>
 *
 * <p>A writer belongs to the {@link CheckpointPart.Builder} that made it; once the part is built, its bytes are
 * fixed and further writes are refused.
 */
public final class SectionWriter {
    private static final int MAX_BODY_LENGTH = CheckpointDescriptor.MAX_PART_LENGTH;

    private final String name;
    private byte[] bytes = new byte[64];
    private int size;
    private boolean closed;

    SectionWriter(String name) {
        this.name = name;
    }

    /** The section's name. */
    public String name() {
        return name;
    }

    /** Bytes written so far. */
    public int size() {
        return size;
    }

    /** Appends one byte (the low 8 bits of {@code value}). */
    public SectionWriter putByte(int value) {
        buffer(1).put((byte) value);
        return this;
    }

    /** Appends a boolean as one byte, 0 or 1. */
    public SectionWriter putBoolean(boolean value) {
        return putByte(value ? 1 : 0);
    }

    /** Appends an int32. */
    public SectionWriter putInt(int value) {
        buffer(Integer.BYTES).putInt(value);
        return this;
    }

    /** Appends an int64. */
    public SectionWriter putLong(long value) {
        buffer(Long.BYTES).putLong(value);
        return this;
    }

    /** Appends a float32 (its raw bits: NaN payloads and the sign of zero are kept). */
    public SectionWriter putFloat(float value) {
        buffer(Float.BYTES).putInt(Float.floatToRawIntBits(value));
        return this;
    }

    /** Appends a float64 (its raw bits). */
    public SectionWriter putDouble(double value) {
        buffer(Double.BYTES).putLong(Double.doubleToRawLongBits(value));
        return this;
    }

    /** Appends a string: its UTF-8 length as a uint32, then its UTF-8 bytes. */
    public SectionWriter putString(String value) {
        byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
        return putInt(utf8.length).putBytes(utf8);
    }

    /** Appends the bytes as they are, without their length. */
    public SectionWriter putBytes(byte[] values) {
        buffer(values.length).put(values);
        return this;
    }

    /** Appends the int32s, without their count. */
    public SectionWriter putInts(int[] values) {
        ByteBuffer b = buffer(Math.multiplyExact(values.length, Integer.BYTES));
        b.asIntBuffer().put(values);
        return this;
    }

    /** Appends the int64s, without their count. */
    public SectionWriter putLongs(long[] values) {
        ByteBuffer b = buffer(Math.multiplyExact(values.length, Long.BYTES));
        b.asLongBuffer().put(values);
        return this;
    }

    /** Appends the float32s (raw bits), without their count. */
    public SectionWriter putFloats(float[] values) {
        ByteBuffer b = buffer(Math.multiplyExact(values.length, Float.BYTES));
        b.asFloatBuffer().put(values);
        return this;
    }

    /** The body written, for the builder; the writer accepts nothing after this. */
    byte[] close() {
        closed = true;
        return Arrays.copyOf(bytes, size);
    }

    /** A little-endian view of the next {@code length} bytes, which count as written. */
    private ByteBuffer buffer(int length) {
        if (closed) {
            throw new IllegalStateException("section '" + name + "': its part is already built");
        }
        long end = (long) size + length;
        if (end > MAX_BODY_LENGTH) {
            throw new IllegalStateException("section '" + name + "' would hold " + Messages.bytes(end)
                    + ", more than the " + Messages.bytes(MAX_BODY_LENGTH) + " a part may hold");
        }
        if (end > bytes.length) {
            bytes = Arrays.copyOf(bytes, (int) Math.min(MAX_BODY_LENGTH, Math.max(end, 2L * bytes.length)));
        }
        ByteBuffer b = ByteBuffer.wrap(bytes, size, length).slice().order(ByteOrder.LITTLE_ENDIAN);
        size = (int) end;
        return b;
    }
}

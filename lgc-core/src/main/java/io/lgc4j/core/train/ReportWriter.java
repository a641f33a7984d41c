package io.lgc4j.core.train;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * A report's payload, written little-endian into a buffer that grows, so that a report need not know its length
 * before it writes ({@link RunReport#encode}).
 */
final class ReportWriter {
    private ByteBuffer out = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);

    /** The buffer with room for {@code bytes} more. */
    private ByteBuffer room(int bytes) {
        if (out.remaining() < bytes) {
            ByteBuffer grown = ByteBuffer.allocate(Math.max(2 * out.capacity(), out.position() + bytes))
                    .order(ByteOrder.LITTLE_ENDIAN);
            out.flip();
            grown.put(out);
            out = grown;
        }
        return out;
    }

    ReportWriter put(int b) {
        room(1).put((byte) b);
        return this;
    }

    ReportWriter putShort(int v) {
        room(2).putShort((short) v);
        return this;
    }

    ReportWriter putInt(int v) {
        room(4).putInt(v);
        return this;
    }

    ReportWriter putLong(long v) {
        room(8).putLong(v);
        return this;
    }

    ReportWriter putDouble(double v) {
        room(8).putDouble(v);
        return this;
    }

    ReportWriter putFloats(float[] values) {
        room(4 * values.length).asFloatBuffer().put(values);
        out.position(out.position() + 4 * values.length);
        return this;
    }

    ReportWriter putLongs(long[] values) {
        room(8 * values.length).asLongBuffer().put(values);
        out.position(out.position() + 8 * values.length);
        return this;
    }

    /** A u16 length, then the UTF-8 bytes. */
    ReportWriter putString(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        putShort(b.length);
        room(b.length).put(b);
        return this;
    }

    /** What was written, ready to read. */
    ByteBuffer written() {
        return out.flip();
    }
}

package io.lgc4j.data;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.GZIPOutputStream;

/** A minimal IDX writer for tests: builds well-formed files and, by hand, malformed ones. */
final class IdxFiles {

    private IdxFiles() {
    }

    /** @return an IDX file's bytes: big-endian magic, one 32-bit size per dimension, then the data */
    static byte[] idx(int magic, int[] dims, byte[] data) {
        ByteBuffer buffer = ByteBuffer.allocate(4 + 4 * dims.length + data.length);
        buffer.putInt(magic);
        for (int dim : dims) {
            buffer.putInt(dim);
        }
        return buffer.put(data).array();
    }

    /** @return an unsigned-byte images file holding {@code count} images whose pixels are {@link #pixel} */
    static byte[] images(int count, int rows, int cols) {
        byte[] pixels = new byte[count * rows * cols];
        for (int i = 0; i < pixels.length; i++) {
            pixels[i] = (byte) pixel(i);
        }
        return idx(IdxReader.IMAGES_MAGIC, new int[] {count, rows, cols}, pixels);
    }

    /** @return an unsigned-byte labels file holding {@code labels} */
    static byte[] labels(int... labels) {
        byte[] data = new byte[labels.length];
        for (int i = 0; i < labels.length; i++) {
            data[i] = (byte) labels[i];
        }
        return idx(IdxReader.LABELS_MAGIC, new int[] {labels.length}, data);
    }

    /** @return the value {@link #images} stores at flat pixel index {@code i} */
    static int pixel(int i) {
        return (i * 37 + 11) % 256;
    }

    static byte[] gzip(byte[] bytes) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    static byte[] withoutLast(byte[] bytes, int n) {
        return Arrays.copyOf(bytes, bytes.length - n);
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] joined = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, joined, a.length, b.length);
        return joined;
    }

    static Path write(Path file, byte[] bytes) throws IOException {
        Files.createDirectories(file.getParent());
        return Files.write(file, bytes);
    }
}

package io.lgc4j.core.checkpoint;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * A part file as the manifest lists it: its name within the step directory, its size and the CRC32C of all its
 * bytes (trailer included). {@link CheckpointPart#write} returns it, so that a rank can hand it to whoever writes the
 * manifest without that writer reading the file again.
 *
 * @param fileName the part's file name, {@code rank-2.lgcc}
 * @param size     the file's length in bytes
 * @param crc32c   the CRC32C of the whole file
 */
public record PartInfo(String fileName, long size, int crc32c) {

    /** Checks the name and the size. */
    public PartInfo {
        Objects.requireNonNull(fileName, "fileName");
        if (fileName.isEmpty() || fileName.contains("/") || fileName.contains("\\")) {
            throw new IllegalArgumentException("a part's file name must be a plain file name, found '" + fileName
                    + "'");
        }
        if (size < 0) {
            throw new IllegalArgumentException("part " + fileName + ": size must be >= 0, found " + size);
        }
    }

    /**
     * Measures a file on disk: its size and the CRC32C of its bytes, streamed (the file is never held whole).
     *
     * @throws NoSuchFileException if there is no such file
     */
    public static PartInfo of(Path file) throws IOException {
        CRC32C crc = new CRC32C();
        long size = 0;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer buffer = ByteBuffer.allocate(1 << 16);
            int n;
            while ((n = channel.read(buffer)) >= 0) {
                buffer.flip();
                crc.update(buffer);
                buffer.clear();
                size += n;
            }
        }
        return new PartInfo(file.getFileName().toString(), size, (int) crc.getValue());
    }

    /** {@code rank-2.lgcc (4,816 bytes, CRC32C 0x1a2b3c4d)}. */
    String describe() {
        return fileName + " (" + Messages.bytes(size) + ", CRC32C " + Messages.crc(crc32c) + ")";
    }
}

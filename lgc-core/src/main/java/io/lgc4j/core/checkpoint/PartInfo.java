package io.lgc4j.core.checkpoint;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * A part file as the manifest lists it: its name within the step directory, its size, and the CRC32C of its bytes
 * before the trailer — which is the value the trailer holds. {@link CheckpointPart#write} returns it, so that a rank
 * can hand it to whoever writes the manifest without that writer reading the file again.
 *
 * <p>Why not the CRC32C of the whole file: a file that ends with the little-endian CRC32C of everything before it has
 * the same whole-file CRC32C whatever it holds (the CRC's residue, 0x48674bc7), so every valid part would
 * list the same value and a manifest could not tell its own parts from another checkpoint's. The CRC of the bytes
 * before the trailer differs from part to part; a reader checks it and that the trailer repeats it.
 *
 * @param fileName the part's file name, {@code rank-2.lgcc}
 * @param size     the file's length in bytes
 * @param crc32c   the CRC32C of the file's bytes before its 4-byte trailer (the trailer's value)
 */
public record PartInfo(String fileName, long size, int crc32c) {
    /** The whole-file CRC32C of every valid part, whatever it holds (see the class comment). */
    static final String RESIDUE_HEX = "0x48674bc7";

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
     * Measures a file on disk: its size and the CRC32C of its bytes before the last four, streamed (the file is
     * never held whole). A file shorter than a trailer gets the CRC32C of all its bytes.
     *
     * @throws NoSuchFileException if there is no such file
     */
    public static PartInfo of(Path file) throws IOException {
        return Measured.of(file).info();
    }

    /** {@code rank-2.lgcc (4,816 bytes, CRC32C 0x1a2b3c4d)}. */
    String describe() {
        return fileName + " (" + Messages.bytes(size) + ", CRC32C " + Messages.crc(crc32c) + ")";
    }

    /** A file's listing and the trailer it holds (the last four bytes, little-endian; 0 if it has fewer). */
    record Measured(PartInfo info, int trailer) {
        static Measured of(Path file) throws IOException {
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                long size = channel.size();
                long covered = size >= CheckpointDescriptor.TRAILER_LENGTH
                        ? size - CheckpointDescriptor.TRAILER_LENGTH : size;
                CRC32C crc = new CRC32C();
                ByteBuffer buffer = ByteBuffer.allocate(1 << 16);
                long read = 0;
                while (read < covered) {
                    buffer.clear().limit((int) Math.min(buffer.capacity(), covered - read));
                    int n = channel.read(buffer, read);
                    if (n < 0) {
                        break; // the file shrank while being read: the sizes will disagree
                    }
                    crc.update(buffer.flip());
                    read += n;
                }
                ByteBuffer trailer = ByteBuffer.allocate(CheckpointDescriptor.TRAILER_LENGTH)
                        .order(ByteOrder.LITTLE_ENDIAN);
                if (covered < size) {
                    while (trailer.hasRemaining() && channel.read(trailer, covered + trailer.position()) >= 0) {
                        // read the four trailer bytes
                    }
                }
                int stored = trailer.hasRemaining() ? 0 : trailer.getInt(0);
                return new Measured(new PartInfo(file.getFileName().toString(), size, (int) crc.getValue()), stored);
            }
        }
    }
}

package io.lgc4j.core.checkpoint;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Writes a file so that its final name holds either nothing new or the whole new content, never a part of it: the
 * bytes go to a temporary file in the same directory ({@code .rank-0.lgcc.<random>.tmp}), are forced to the device,
 * and the temporary file is renamed over the final name atomically; then the directory itself is forced so that the
 * rename survives a power loss. A process killed before the rename leaves only the temporary file, which no reader
 * opens (readers open exact final names) and which does not shadow an older file of the final name.
 */
final class AtomicFiles {
    /** Writes a file's content to a channel. */
    @FunctionalInterface
    interface Content<T> {
        T writeTo(FileChannel channel) throws IOException;
    }

    private AtomicFiles() {
    }

    /**
     * Writes {@code target} atomically.
     *
     * @return what {@code content} returned
     */
    static <T> T write(Path target, Content<T> content) throws IOException {
        Path directory = target.toAbsolutePath().getParent();
        // Not Files.createTempFile: it makes the file readable by its owner only, and the rename would carry that
        // mode to the checkpoint; CREATE_NEW gives the mode every other result file gets.
        Path temp = directory.resolve(String.format(Locale.ROOT, ".%s.%016x.tmp", target.getFileName(),
                ThreadLocalRandom.current().nextLong()));
        // Opened before the clean-up below takes charge: a name that exists is not this writer's to delete.
        FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        try {
            T result;
            try (channel) {
                result = content.writeTo(channel);
                channel.force(true);
            }
            // On POSIX a rename replaces an existing target in one step; the JDK refuses ATOMIC_MOVE (rather than
            // falling back to a copy) where the file system cannot rename atomically.
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
            forceDirectory(directory);
            return result;
        } catch (IOException | RuntimeException | Error e) {
            try {
                Files.deleteIfExists(temp);
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /**
     * Forces a directory's entries (a rename, a new file or directory) to the device, where the platform allows it.
     * Linux and macOS open a directory for reading and fsync it; Windows and some file systems refuse to open or
     * force a directory with an IOException — there the rename is as durable as the platform makes it, and the
     * checkpoint is no less correct, so the refusal is ignored.
     */
    static void forceDirectory(Path directory) {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException ignored) {
            // The platform does not let a directory be forced: see the Javadoc.
        }
    }

    /**
     * Creates {@code directory} and its missing parents, forcing each parent that gains an entry so that the new
     * directories survive a power loss with the files later renamed into them.
     */
    static void createDirectories(Path directory) throws IOException {
        Path absolute = directory.toAbsolutePath();
        if (Files.isDirectory(absolute)) {
            return;
        }
        Path parent = absolute.getParent();
        if (parent != null) {
            createDirectories(parent);
        }
        try {
            Files.createDirectory(absolute);
        } catch (FileAlreadyExistsException e) {
            if (!Files.isDirectory(absolute)) {
                throw e;
            }
            return; // created meanwhile by another rank's process
        }
        if (parent != null) {
            forceDirectory(parent);
        }
    }
}

package io.lgc4j.core.checkpoint;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** A directory {@code ckpt-*} under the system's temporary directory, deleted with everything in it when closed. */
final class TempDirectory implements AutoCloseable {
    private final Path path;

    TempDirectory() throws IOException {
        path = Files.createTempDirectory("ckpt-");
    }

    Path path() {
        return path;
    }

    @Override
    public void close() {
        try (Stream<Path> all = Files.walk(path)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

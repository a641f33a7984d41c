package io.lgc4j.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A compact-vector recording ({@link CompactVectorFile}) does not hold what its header promises. The message starts
 * with the file name and says what was expected and what was found:
 * <pre>{@code
 * cv.bin: expected 20 + 300 steps × (4 + 4·4·427) = 2050820 bytes for K = 4, μ = 427, steps = 300; found 1000 bytes
 *     (truncated)
 * }</pre>
 */
public final class CompactVectorFormatException extends IOException {
    private static final long serialVersionUID = 1L;

    /**
     * @param file    the file at fault; its name starts the message
     * @param problem what was expected and what was found
     */
    public CompactVectorFormatException(Path file, String problem) {
        super(Objects.requireNonNull(file, "file").getFileName() + ": " + problem);
    }
}

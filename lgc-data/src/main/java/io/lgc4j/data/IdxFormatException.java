package io.lgc4j.data;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;

/**
 * An IDX file (or a pair of them) does not hold what its header or its role promises: bad magic, wrong dimension
 * count, a declared size larger than the data or than the reader's limit, trailing bytes, a truncated or corrupt gzip
 * stream, or images and labels that do not match.
 *
 * <p>The message always starts with the file name and then says what was expected and what was found:
 * <pre>{@code
 * train-images-idx3-ubyte.gz: truncated: header declares 60000 images of 28x28 (47040000 bytes)
 *     but the data ends after 1234 bytes
 * }</pre>
 */
public final class IdxFormatException extends IOException {
    private static final long serialVersionUID = 1L;

    /** The file at fault. */
    private final transient Path file;

    /**
     * @param file    the file at fault; its name starts the message
     * @param problem what was expected and what was found
     */
    public IdxFormatException(Path file, String problem) {
        super(Objects.requireNonNull(file, "file").getFileName() + ": " + problem);
        this.file = file;
    }

    /**
     * @param file    the file at fault; its name starts the message
     * @param problem what was expected and what was found
     * @param cause   the lower-level failure (for example the gzip decoder's)
     */
    public IdxFormatException(Path file, String problem, Throwable cause) {
        super(Objects.requireNonNull(file, "file").getFileName() + ": " + problem, cause);
        this.file = file;
    }

    /** @return the file at fault */
    public Path file() {
        return file;
    }
}

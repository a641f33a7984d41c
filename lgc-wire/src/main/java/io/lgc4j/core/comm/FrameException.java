package io.lgc4j.core.comm;

/**
 * A frame that cannot be decoded: truncated, wrong magic or version, a length that disagrees with the bytes, an
 * unknown kind or stage, or a CRC mismatch. The message says what was expected and what was found.
 */
public final class FrameException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Creates the exception with a message naming the expected and the found value. */
    public FrameException(String message) {
        super(message);
    }
}

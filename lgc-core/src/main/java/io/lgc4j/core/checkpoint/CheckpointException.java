package io.lgc4j.core.checkpoint;

import java.io.IOException;

/**
 * A checkpoint that cannot be used: a part that is not one, of another version, truncated, with a bad CRC, a
 * duplicate, missing or wrong-sized section, a part that disagrees with the manifest or is missing, no manifest, or
 * another run shape (K, S, model, config). The message names the file ({@code step-000123/rank-1.lgcc}) or the
 * checkpoint and says what was expected and what was found.
 *
 * <p>Checked, and an {@link IOException}, because a bad checkpoint is a property of files on disk that every resume
 * path must handle (refuse, or fall back as {@link CheckpointDirectory#latest()} does). Misuse of the writing API is
 * an {@link IllegalArgumentException} instead. Whoever throws this has changed nothing on disk.
 */
public final class CheckpointException extends IOException {
    private static final long serialVersionUID = 1L;

    /** @param message what is wrong, naming the file or checkpoint, what was expected and what was found */
    public CheckpointException(String message) {
        super(message);
    }

    /**
     * @param message what is wrong, naming the file or checkpoint, what was expected and what was found
     * @param cause   the lower-level failure
     */
    public CheckpointException(String message, Throwable cause) {
        super(message, cause);
    }
}

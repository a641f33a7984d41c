package io.lgc4j.core.checkpoint;

import java.io.IOException;

/**
 * A checkpoint that cannot be used: a part that is not a checkpoint part, of another format version, truncated, with
 * a bad section or trailer CRC, a duplicate or missing section, a section shorter or longer than its reader expects,
 * a part that disagrees with the manifest or is missing, a directory without a manifest, or a checkpoint written by
 * another run shape (K, S, model, config). The message names the file ({@code step-000123/rank-1.lgcc}) or the
 * checkpoint, and says what was expected and what was found:
 * <pre>{@code
 * rank-1.lgcc is not an LGC4J checkpoint part: expected magic LGCK, found 50 4B 03 04
 * section 'compressor/residual' of rank-2.lgcc: expected 1,200 floats (4,800 bytes), found 4,796 bytes
 * }</pre>
 *
 * <p>Checked, and an {@link IOException}, because a bad checkpoint is a property of files on disk that every caller
 * must expect — a process killed mid-write, a full disk, a copy cut short — not a programming error: the resume
 * path has to decide what to do (refuse and exit, or fall back to an older checkpoint, as
 * {@link CheckpointDirectory#latest()} does), and it already handles the {@code IOException}s of reading the same
 * files with the same {@code catch}. The data readers of {@code lgc-data} do the same for bad IDX files. Misuse of
 * the writing API (an empty or duplicate section name) is an {@link IllegalArgumentException} instead.
 *
 * <p>Whoever throws this has changed nothing: readers never write, and writers replace a file only by the atomic
 * rename of a complete new one.
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

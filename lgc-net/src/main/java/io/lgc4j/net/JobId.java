package io.lgc4j.net;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * A job id as text ({@code LGC_JOB_ID}, {@code --job-id}) mapped to the 32-bit number every frame and HELLO carries:
 * its value when the text is an unsigned 32-bit number, else the CRC32C of its UTF-8 bytes. The CLI and the library
 * both map through here, so a job id given either way names the same job.
 *
 * <pre>{@code
 * int job = JobId.of("launch-7f3a");   // the CRC32C of the text
 * int same = JobId.of("42");           // 42
 * }</pre>
 */
public final class JobId {

    private JobId() {
    }

    /** {@code text}'s job number; see the class comment. */
    public static int of(String text) {
        Objects.requireNonNull(text, "text");
        try {
            return Integer.parseUnsignedInt(text.strip());
        } catch (NumberFormatException e) {
            CRC32C crc = new CRC32C();
            crc.update(text.getBytes(StandardCharsets.UTF_8));
            return (int) crc.getValue();
        }
    }
}

package io.lgc4j.net;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.Set;
import java.util.function.Function;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Where a job's token comes from: a file only its owner can read, or an environment variable; never a command-line
 * argument (every user of the machine can read those). The token is a text secret; its bytes (without a trailing
 * newline) are the handshake's HMAC key and never cross the wire.
 *
 * <pre>{@code
 * // once per job, by whoever launches it:
 * Files.write(tokenFile, JobToken.generate());             // then chmod 600, copy to every host
 * // in every process:
 * byte[] token = JobToken.fromFile(tokenFile);             // or JobToken.fromEnvironment("LGC_TOKEN")
 * }</pre>
 */
public final class JobToken {
    private static final Set<PosixFilePermission> OTHERS = EnumSet.of(
            PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE,
            PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);
    private static final int GENERATED_BYTES = 32;

    private JobToken() {
    }

    /**
     * Reads the token from {@code file}: its bytes without trailing line breaks, at least
     * {@value NetSettings#MIN_TOKEN_LENGTH}.
     *
     * @throws IllegalArgumentException if the file is readable by its group or others (on a POSIX file system), or
     *                                  the token is too short
     * @throws UncheckedIOException     if the file cannot be read
     */
    public static byte[] fromFile(Path file) {
        try {
            if (Files.getFileStore(file).supportsFileAttributeView("posix")) {
                Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
                if (permissions.stream().anyMatch(OTHERS::contains)) {
                    throw new IllegalArgumentException("token file " + file + " is accessible to its group or others ("
                            + PosixFilePermissions.toString(permissions) + "): make it readable by its owner only"
                            + " (chmod 600 " + file + ")");
                }
            }
            byte[] bytes = Files.readAllBytes(file);
            return check(strip(bytes), "token file " + file);
        } catch (NoSuchFileException e) {
            throw new UncheckedIOException("token file " + file + " does not exist", e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read token file " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Reads the token from the environment variable {@code variable} (its UTF-8 bytes).
     *
     * @throws IllegalArgumentException if the variable is not set or holds too short a token
     */
    public static byte[] fromEnvironment(String variable) {
        return fromEnvironment(variable, System::getenv);
    }

    static byte[] fromEnvironment(String variable, Function<String, String> environment) {
        String value = environment.apply(variable);
        if (value == null) {
            throw new IllegalArgumentException("environment variable " + variable + " is not set: it must hold the"
                    + " job token");
        }
        return check(strip(value.getBytes(StandardCharsets.UTF_8)), "environment variable " + variable);
    }

    /** A fresh token: 32 random bytes from {@link SecureRandom}, as 64 hexadecimal characters (ASCII). */
    public static byte[] generate() {
        byte[] random = new byte[GENERATED_BYTES];
        new SecureRandom().nextBytes(random);
        return HexFormat.of().formatHex(random).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * A proof of knowing {@code token}: HMAC-SHA256 keyed by it over {@code label}'s ASCII bytes and then each of
     * {@code parts} (for a challenge-response, the challenger's nonce and the prover's own, so neither replays). For a
     * control link of a job's own (the elastic launch's store); the data links' handshake binds more (endpoint, job,
     * attempt).
     */
    public static byte[] proof(byte[] token, String label, byte[]... parts) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(token, "HmacSHA256"));
            mac.update(label.getBytes(StandardCharsets.US_ASCII));
            for (byte[] part : parts) {
                mac.update(part);
            }
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
        }
    }

    private static byte[] check(byte[] token, String source) {
        if (token.length < NetSettings.MIN_TOKEN_LENGTH) {
            throw new IllegalArgumentException(source + " holds a token of " + token.length + " bytes, expected at"
                    + " least " + NetSettings.MIN_TOKEN_LENGTH + " (JobToken.generate() makes one)");
        }
        return token;
    }

    private static byte[] strip(byte[] bytes) {
        int end = bytes.length;
        while (end > 0 && (bytes[end - 1] == '\n' || bytes[end - 1] == '\r')) {
            end--;
        }
        return end == bytes.length ? bytes : Arrays.copyOf(bytes, end);
    }
}

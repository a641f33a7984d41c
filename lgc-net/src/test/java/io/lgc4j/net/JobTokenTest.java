package io.lgc4j.net;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

class JobTokenTest {
    @TempDir
    Path dir;

    private Path tokenFile(String content, String permissions) throws IOException {
        Path file = dir.resolve("token");
        Files.writeString(file, content);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(permissions));
        return file;
    }

    @Test
    void shouldReadAnOwnerOnlyFileWithoutItsTrailingNewline() throws IOException {
        Path file = tokenFile("0123456789abcdef-secret\n", "rw-------");
        assertArrayEquals("0123456789abcdef-secret".getBytes(StandardCharsets.US_ASCII), JobToken.fromFile(file));
    }

    @Test
    void shouldRefuseAFileOthersCanRead() throws IOException {
        Path file = tokenFile("0123456789abcdef-secret\n", "rw-r--r--");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> JobToken.fromFile(file));
        assertEquals("token file " + file + " is accessible to its group or others (rw-r--r--): make it readable by"
                + " its owner only (chmod 600 " + file + ")", e.getMessage());
    }

    @Test
    void shouldRefuseAShortTokenAndAMissingFile() throws IOException {
        Path file = tokenFile("short\n", "rw-------");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> JobToken.fromFile(file));
        assertEquals("token file " + file + " holds a token of 5 bytes, expected at least 16 (JobToken.generate()"
                + " makes one)", e.getMessage());
        Path missing = dir.resolve("none");
        UncheckedIOException io = assertThrows(UncheckedIOException.class, () -> JobToken.fromFile(missing));
        assertEquals("token file " + missing + " does not exist", io.getMessage());
    }

    @Test
    void shouldReadTheEnvironmentAndSayWhenTheVariableIsMissing() {
        assertArrayEquals("0123456789abcdef".getBytes(StandardCharsets.US_ASCII),
                JobToken.fromEnvironment("LGC_T", Map.of("LGC_T", "0123456789abcdef")::get));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> JobToken.fromEnvironment("LGC_T", Map.<String, String>of()::get));
        assertEquals("environment variable LGC_T is not set: it must hold the job token", e.getMessage());
        IllegalArgumentException shortOne = assertThrows(IllegalArgumentException.class,
                () -> JobToken.fromEnvironment("LGC_T", Map.of("LGC_T", "abc")::get));
        assertEquals("environment variable LGC_T holds a token of 3 bytes, expected at least 16"
                + " (JobToken.generate() makes one)", shortOne.getMessage());
    }

    @Test
    void shouldGenerateFreshHexTokens() {
        byte[] a = JobToken.generate();
        byte[] b = JobToken.generate();
        assertEquals(64, a.length);
        assertTrue(new String(a, StandardCharsets.US_ASCII).matches("[0-9a-f]{64}"));
        assertFalse(java.util.Arrays.equals(a, b));
    }
}

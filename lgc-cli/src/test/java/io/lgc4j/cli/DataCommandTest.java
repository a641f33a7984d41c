package io.lgc4j.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code lgc data check}: every row read in shares, the first bad one named, bad arguments refused. */
class DataCommandTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private PrintStream originalOut;
    private PrintStream originalErr;

    @BeforeEach
    void capture() {
        originalOut = System.out;
        originalErr = System.err;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restore() {
        System.setOut(originalOut);
        System.setErr(originalErr);
    }

    /** 300 rows "i,0.5,c" in one file; row 299 reads {@code last}. */
    private static Path rows(Path dir, String last) throws IOException {
        StringBuilder csv = new StringBuilder();
        for (int i = 0; i < 300; i++) {
            csv.append(i == 299 ? last : i + ",0.5," + i % 3).append('\n');
        }
        Path file = dir.resolve("rows.csv");
        Files.writeString(file, csv);
        return file;
    }

    @Test
    void goodRowsShouldBeReadInSharesAndCounted(@TempDir Path dir) throws IOException {
        Path file = rows(dir, "299,0.5,2");
        assertEquals(0, LgcCommand.execute("data", "check", file.toString(), "--label-column", "2", "--classes", "3",
                "--shares", "3"));
        String said = out.toString(StandardCharsets.UTF_8);
        assertTrue(said.contains("300 rows read (full) in 3 shares") && said.contains("no bad row"), said);
    }

    @Test
    void aBadLastRowShouldBeNamedWithExitStatus1(@TempDir Path dir) throws IOException {
        Path file = rows(dir, "299,half,2");
        assertEquals(1, LgcCommand.execute("data", "check", file.toString(), "--label-column", "2", "--classes", "3",
                "--shares", "2"));
        String said = err.toString(StandardCharsets.UTF_8).strip();
        assertTrue(said.startsWith("lgc data check: checking rows 150 to 299 of csv " + file), said);
        assertTrue(said.endsWith("(share 1 of 2, full): " + file + " line 300, column 1 (from 0): \"half\" is not a"
                + " number"), said);
    }

    @Test
    void badArgumentsShouldBeRefusedWithExitStatus2(@TempDir Path dir) throws IOException {
        Path file = rows(dir, "299,0.5,2");
        assertEquals(2, LgcCommand.execute("data", "check", file.toString()));
        assertEquals("lgc data check: a CSV path needs --label-column C (from 0) and --classes N (>= 1), found -1"
                + " and 0", err.toString(StandardCharsets.UTF_8).strip());
        err.reset();
        assertEquals(2, LgcCommand.execute("data", "check", file.toString(), "--label-column", "2", "--classes", "3",
                "--check", "none"));
        assertEquals("lgc data check: --check must be full or sample, found 'none'",
                err.toString(StandardCharsets.UTF_8).strip());
    }
}

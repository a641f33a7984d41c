package io.lgc4j.cli.tables;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TableTest {

    private static Table sample() {
        Table t = new Table(List.of(Table.column("method", "method"), Table.column("bytes", "B / step"),
                Table.timing("wall_s", "wall (s)")));
        t.add("LGC-PS, leader", Table.number(1234567.891, 1), Table.number(12.25, 1));
        t.add("say \"hi\"", Table.number(Double.NaN, 1), Table.number(-3, 0));
        return t;
    }

    @Test
    void shouldWriteCsvWithPlainNumbersAndQuotedText(@TempDir Path dir) throws IOException {
        sample().writeCsv(dir.resolve("t.csv"));
        assertEquals(List.of("method,bytes,wall_s", "\"LGC-PS, leader\",1234567.9,12.3", "\"say \"\"hi\"\"\",,-3"),
                Files.readAllLines(dir.resolve("t.csv")));
    }

    @Test
    void shouldWriteMarkdownWithGroupedNumbersRightAlignedAndTheTimingNote() {
        String md = sample().markdown();
        assertTrue(md.startsWith("| method | B / step | wall (s) ⏱ |\n| --- | ---: | ---: |\n"), md);
        assertTrue(md.contains("| LGC-PS, leader | 1,234,567.9 | 12.3 |"), md);
        assertTrue(md.contains("⏱ measured times (CSV columns ending in `_s`/`_ms`, ratios of them in `_x`)"), md);
        Table untimed = new Table(List.of(Table.column("a", "a")));
        untimed.add("x");
        assertFalse(untimed.markdown().contains("⏱"));
    }

    @Test
    void shouldMarkTimingColumnsAndOnlyThemByTheirSuffix() {
        assertTrue(sample().isTiming("wall_s"));
        assertFalse(sample().isTiming("bytes"));
        assertEquals("column 'wall': timing columns, and only they, end in _s or _ms (or _x, a ratio"
                + " of times)", assertThrows(IllegalArgumentException.class, () -> Table.timing("wall", "wall"))
                .getMessage());
        assertEquals("column 'steps_s': timing columns, and only they, end in _s or _ms (or _x, a"
                + " ratio of times)", assertThrows(IllegalArgumentException.class, () -> Table.column("steps_s", "s"))
                .getMessage());
        assertTrue(Table.timing("floor_x", "× floor").timing());
        assertEquals("a row needs 3 cells, got 1",
                assertThrows(IllegalArgumentException.class, () -> sample().add("x")).getMessage());
    }

    @Test
    void shouldSmoothOverACentredWindowSkippingNaN() {
        assertArrayEquals(new double[] {1.5, 2, 3, 3.5}, Charts.smooth(new double[] {1, 2, 3, 4}, 3), 1e-12);
        assertArrayEquals(new double[] {1, 2, 3}, Charts.smooth(new double[] {1, Double.NaN, 3}, 3), 1e-12);
    }
}

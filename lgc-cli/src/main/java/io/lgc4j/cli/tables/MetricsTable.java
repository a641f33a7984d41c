package io.lgc4j.cli.tables;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * A run's {@code metrics.csv} read back (one row per step, see the runner's {@code MetricsCsvWriter}), so tables
 * and figures are built from files alone and a resumed suite needs nothing in memory.
 */
public final class MetricsTable {
    private final Path file;
    private final List<String> header;
    private final List<String[]> rows;

    private MetricsTable(Path file, List<String> header, List<String[]> rows) {
        this.file = file;
        this.header = header;
        this.rows = rows;
    }

    /** Reads {@code file}; every row must have the header's number of cells. */
    public static MetricsTable read(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        if (lines.isEmpty()) {
            throw new IOException(file + ": empty, expected a header line");
        }
        List<String> header = List.of(lines.get(0).split(",", -1));
        List<String[]> rows = lines.subList(1, lines.size()).stream().map(l -> l.split(",", -1)).toList();
        for (int i = 0; i < rows.size(); i++) {
            if (rows.get(i).length != header.size()) {
                throw new IOException(file + ": line " + (i + 2) + " has " + rows.get(i).length + " cells, the header "
                        + header.size());
            }
        }
        return new MetricsTable(file, header, rows);
    }

    /** Number of steps. */
    public int size() {
        return rows.size();
    }

    /** The column's values as numbers; empty cells are NaN. */
    public double[] numbers(String column) {
        int c = index(column);
        return rows.stream().mapToDouble(r -> r[c].isEmpty() ? Double.NaN : Double.parseDouble(r[c])).toArray();
    }

    /** Whether the table has {@code column}. */
    public boolean has(String column) {
        return header.contains(column);
    }

    /** The column's cells as text. */
    public String[] text(String column) {
        int c = index(column);
        return rows.stream().map(r -> r[c]).toArray(String[]::new);
    }

    private int index(String column) {
        int c = header.indexOf(column);
        if (c < 0) {
            throw new IllegalArgumentException(file + ": no column '" + column + "'; columns: "
                    + Arrays.toString(header.toArray()));
        }
        return c;
    }
}

package io.lgc4j.cli.tables;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A result table: named columns, some marked as timings, and rows of already formatted cells. It writes itself as
 * {@code table.csv} (machine-readable: the column names as header, plain numbers) and as the Markdown table of
 * {@code table.md}.
 *
 * <p>Timing columns end in {@code _s} or {@code _ms} and are the only ones that may differ between two runs of the
 * same suite with the same seed; every other cell is determined by the suite and the seed. {@link #isTiming} says
 * which is which, and table.md repeats it under the table.
 *
 * <pre>{@code
 * Table t = new Table(List.of(Table.column("method", "method"), Table.timing("wall_s", "wall (s)")));
 * t.add("dgc", Table.number(12.3, 1));
 * t.writeCsv(dir.resolve("table.csv"));
 * }</pre>
 */
public final class Table {

    /**
     * A column.
     *
     * @param name   the CSV header name ([a-z0-9_]+; timing columns end in _s or _ms, or _x for a ratio of times)
     * @param title  the Markdown header
     * @param timing whether its values are measured times
     */
    public record Column(String name, String title, boolean timing) {
        /** Checks that timing columns, and only they, carry a time unit suffix. */
        public Column {
            boolean suffixed = name.endsWith("_s") || name.endsWith("_ms") || name.endsWith("_x");
            if (suffixed != timing) {
                throw new IllegalArgumentException("column '" + name + "': timing columns, and only they, end in _s"
                        + " or _ms (or _x, a ratio of times)");
            }
        }
    }

    private final List<Column> columns;
    private final List<List<String>> rows = new ArrayList<>();

    /** A table with these columns, in order. */
    public Table(List<Column> columns) {
        this.columns = List.copyOf(columns);
    }

    /** A column of values fixed by the suite and the seed. */
    public static Column column(String name, String title) {
        return new Column(name, title, false);
    }

    /** A column of measured times; its name ends in _s or _ms, or _x for a ratio of measured times. */
    public static Column timing(String name, String title) {
        return new Column(name, title, true);
    }

    /** Appends a row; one cell per column. */
    public void add(String... cells) {
        if (cells.length != columns.size()) {
            throw new IllegalArgumentException("a row needs " + columns.size() + " cells, got " + cells.length);
        }
        rows.add(List.of(cells));
    }

    /** The number of rows. */
    public int size() {
        return rows.size();
    }

    /** Whether the column named {@code name} holds timings. */
    public boolean isTiming(String name) {
        return columns.stream().anyMatch(c -> c.name().equals(name) && c.timing());
    }

    /** {@code value} with {@code decimals} places, "" for NaN; the CSV and Markdown spelling of a number. */
    public static String number(double value, int decimals) {
        return Double.isNaN(value) ? "" : String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    /** Writes the CSV: the column names, then one line per row; cells holding commas or quotes are quoted. */
    public void writeCsv(Path file) throws IOException {
        StringBuilder out = new StringBuilder();
        out.append(String.join(",", columns.stream().map(Column::name).toList())).append('\n');
        for (List<String> row : rows) {
            out.append(String.join(",", row.stream().map(Table::csvCell).toList())).append('\n');
        }
        Files.writeString(file, out, StandardCharsets.UTF_8);
    }

    /** The Markdown table, numbers with thousands separators, followed by the note on timing columns. */
    public String markdown() {
        StringBuilder md = new StringBuilder("| ");
        md.append(String.join(" | ", columns.stream().map(c -> c.title() + (c.timing() ? " ⏱" : "")).toList()))
                .append(" |\n|");
        for (int c = 0; c < columns.size(); c++) {
            final int at = c;
            boolean numeric = !rows.isEmpty() && rows.stream().allMatch(r -> r.get(at).isEmpty()
                    || r.get(at).matches("-?\\d+(\\.\\d+)?"));
            md.append(numeric ? " ---: |" : " --- |");
        }
        md.append('\n');
        for (List<String> row : rows) {
            md.append("| ").append(String.join(" | ", row.stream().map(Table::grouped).toList())).append(" |\n");
        }
        if (columns.stream().anyMatch(Column::timing)) {
            md.append("\n⏱ measured times (CSV columns ending in `_s`/`_ms`, ratios of them in `_x`): they vary from run"
                    + " to run and with the machine's load; every other cell is fixed by the suite and the seed.\n");
        }
        return md.toString();
    }

    private static String csvCell(String cell) {
        return cell.contains(",") || cell.contains("\"") ? "\"" + cell.replace("\"", "\"\"") + "\"" : cell;
    }

    /** 1234567.8 → 1,234,567.8; text is left alone. */
    private static String grouped(String cell) {
        if (!cell.matches("-?\\d{4,}(\\.\\d+)?")) {
            return cell;
        }
        int dot = cell.indexOf('.');
        String whole = dot < 0 ? cell : cell.substring(0, dot);
        String fraction = dot < 0 ? "" : cell.substring(dot);
        boolean negative = whole.startsWith("-");
        String digits = negative ? whole.substring(1) : whole;
        StringBuilder g = new StringBuilder();
        for (int i = 0; i < digits.length(); i++) {
            if (i > 0 && (digits.length() - i) % 3 == 0) {
                g.append(',');
            }
            g.append(digits.charAt(i));
        }
        return (negative ? "-" : "") + g + fraction;
    }
}

package io.lgc4j.advise;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * Steps to a target relative to dense, per model setting and method, as committed evidence says
 * ({@code step-penalties.csv}). The file is generated from committed run directories ({@code lgc evidence
 * step-penalties}) and never edited by hand: a reader checks that every penalty follows from its steps.
 *
 * <p>Format ({@code docs/architecture/runner.md}): a header line, then one row per (target, evidence, method) with the
 * columns {@code target,evidence,method,seeds,steps,dense_steps,penalty,runs}.
 *
 * <pre>{@code
 * StepPenalties evidence = StepPenalties.read(Path.of("step-penalties.csv"));
 * evidence.dense(evidenceKey, 0.80).map(StepPenalty::meanDenseSteps);          // 106.25
 * evidence.find(evidenceKey, key, 0.80).map(StepPenalty::penalty);   // Optional[OptionalDouble[2.0]]
 * }</pre>
 */
public final class StepPenalties {

    /** The header line, the columns in order. */
    public static final List<String> HEADER = List.of("target", "evidence", "method", "seeds", "steps",
            "dense_steps", "penalty", "runs");

    private final List<StepPenalty> rows;
    private final Map<String, StepPenalty> byKey = new HashMap<>();

    /**
     * @throws IllegalArgumentException when two rows have the same target, evidence and method
     */
    public StepPenalties(List<StepPenalty> rows) {
        this.rows = List.copyOf(rows);
        for (StepPenalty row : this.rows) {
            StepPenalty before = byKey.put(key(row.evidence(), row.method(), row.target()), row);
            if (before != null) {
                throw new IllegalArgumentException("two step penalties for method " + row.method() + " at target "
                        + row.target() + " on evidence " + row.evidence());
            }
        }
    }

    /** The rows, in file order. */
    public List<StepPenalty> rows() {
        return rows;
    }

    /** The row of {@code method} at {@code target} on {@code evidence}, if the evidence has it. */
    public Optional<StepPenalty> find(String evidence, MethodKey method, double target) {
        return Optional.ofNullable(byKey.get(key(evidence, method, target)));
    }

    /** Dense training's row at {@code target} on {@code evidence}: its steps per seed. */
    public Optional<StepPenalty> dense(String evidence, double target) {
        return find(evidence, MethodKey.DENSE, target);
    }

    private static String key(String evidence, MethodKey method, double target) {
        return formatTarget(target) + '\n' + evidence + '\n' + method.text();
    }

    /**
     * Reads a file written by {@link #write}.
     *
     * @throws IllegalArgumentException naming the file, line and column of the first cell that is wrong
     * @throws UncheckedIOException     when the file cannot be read
     */
    public static StepPenalties read(Path file) {
        try {
            return parse(Files.readString(file, StandardCharsets.UTF_8), file.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read step penalties " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Parses the text of a step-penalty file; {@code source} names it in messages.
     *
     * @throws IllegalArgumentException naming the line and column of the first cell that is wrong
     */
    public static StepPenalties parse(String text, String source) {
        List<String> lines = text.lines().toList();
        if (lines.isEmpty() || !lines.get(0).equals(String.join(",", HEADER))) {
            throw new IllegalArgumentException(source + " line 1: expected the header " + String.join(",", HEADER)
                    + ", found " + (lines.isEmpty() ? "an empty file" : '"' + lines.get(0) + '"'));
        }
        List<StepPenalty> rows = new ArrayList<>();
        Map<String, Integer> lineOf = new HashMap<>();
        for (int i = 1; i < lines.size(); i++) {
            String where = source + " line " + (i + 1);
            List<String> cells = cells(lines.get(i), where);
            if (cells.size() != HEADER.size()) {
                throw new IllegalArgumentException(where + ": expected " + HEADER.size() + " cells ("
                        + String.join(",", HEADER) + "), found " + cells.size());
            }
            StepPenalty row = row(cells, where);
            Integer before = lineOf.put(key(row.evidence(), row.method(), row.target()), i + 1);
            if (before != null) {
                throw new IllegalArgumentException(where + ": the same target, evidence and method as line " + before);
            }
            rows.add(row);
        }
        return new StepPenalties(rows);
    }

    private static StepPenalty row(List<String> cells, String where) {
        double target = number(cells.get(0), where, "target");
        String evidence = cells.get(1);
        if (evidence.isBlank()) {
            throw new IllegalArgumentException(where + ", column evidence: expected an evidence key, found nothing");
        }
        if (cells.get(2).isBlank()) {
            throw new IllegalArgumentException(where + ", column method: expected a method key, found nothing");
        }
        List<Long> seeds = new ArrayList<>();
        for (String s : words(cells.get(3))) {
            try {
                seeds.add(Long.parseLong(s));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(where + ", column seeds: expected whole numbers separated by"
                        + " spaces, found \"" + cells.get(3) + '"', e);
            }
        }
        List<Integer> steps = counts(cells.get(4), where, "steps", true);
        List<Integer> dense = counts(cells.get(5), where, "dense_steps", false);
        StepPenalty row;
        try {
            row = new StepPenalty(evidence, new MethodKey(cells.get(2)), target, seeds, steps, dense,
                    words(cells.get(7)));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
        }
        String written = cells.get(6);
        String follows = format(row.penalty());
        if (!written.equals(follows)) {
            throw new IllegalArgumentException(where + ", column penalty: \"" + written + "\" does not follow from"
                    + " the steps, which give \"" + follows + "\"; regenerate the file (lgc evidence step-penalties)");
        }
        return row;
    }

    private static double number(String cell, String where, String column) {
        try {
            return Double.parseDouble(cell);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(where + ", column " + column + ": expected a number, found \"" + cell
                    + '"', e);
        }
    }

    private static List<Integer> counts(String cell, String where, String column, boolean notReachedAllowed) {
        List<Integer> counts = new ArrayList<>();
        for (String s : words(cell)) {
            if (notReachedAllowed && s.equals("-")) {
                counts.add(StepPenalty.NOT_REACHED);
                continue;
            }
            try {
                counts.add(Integer.parseInt(s));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(where + ", column " + column + ": expected whole numbers"
                        + (notReachedAllowed ? " or - (not reached)" : "") + " separated by spaces, found \"" + cell
                        + '"', e);
            }
        }
        return counts;
    }

    private static List<String> words(String cell) {
        return cell.isBlank() ? List.of() : List.of(cell.trim().split(" +"));
    }

    /** Splits one CSV line into cells, unquoting RFC 4180 quoted cells. */
    private static List<String> cells(String line, String where) {
        List<String> cells = new ArrayList<>();
        StringBuilder cell = new StringBuilder();
        int i = 0;
        while (true) {
            if (i < line.length() && line.charAt(i) == '"') {
                i++;
                while (true) {
                    if (i >= line.length()) {
                        throw new IllegalArgumentException(where + ": a quoted cell is not closed");
                    }
                    char c = line.charAt(i++);
                    if (c == '"') {
                        if (i < line.length() && line.charAt(i) == '"') {
                            cell.append('"');
                            i++;
                        } else {
                            break;
                        }
                    } else {
                        cell.append(c);
                    }
                }
                if (i < line.length() && line.charAt(i) != ',') {
                    throw new IllegalArgumentException(where + ": expected a comma after a quoted cell, found '"
                            + line.charAt(i) + "'");
                }
            } else {
                while (i < line.length() && line.charAt(i) != ',') {
                    cell.append(line.charAt(i++));
                }
            }
            cells.add(cell.toString());
            cell.setLength(0);
            if (i >= line.length()) {
                return cells;
            }
            i++; // the comma
        }
    }

    /** The file's text: {@link #HEADER}, then every row in order. */
    public String write() {
        StringBuilder out = new StringBuilder(String.join(",", HEADER)).append('\n');
        for (StepPenalty row : rows) {
            List<String> cells = List.of(formatTarget(row.target()), row.evidence(), row.method().text(),
                    join(row.seeds().stream().map(String::valueOf).toList()),
                    join(row.steps().stream().map(s -> s == StepPenalty.NOT_REACHED ? "-" : String.valueOf(s))
                            .toList()),
                    join(row.denseSteps().stream().map(String::valueOf).toList()), format(row.penalty()),
                    join(row.runs()));
            out.append(String.join(",", cells.stream().map(StepPenalties::quoted).toList())).append('\n');
        }
        return out.toString();
    }

    /** Writes {@link #write()} to {@code file} in UTF-8. */
    public void write(Path file) throws IOException {
        Files.writeString(file, write(), StandardCharsets.UTF_8);
    }

    private static String join(List<String> words) {
        return String.join(" ", words);
    }

    /** {@code cell} as a CSV cell: quoted as RFC 4180 does when it holds a comma or a quote. */
    static String quoted(String cell) {
        return cell.contains(",") || cell.contains("\"") ? '"' + cell.replace("\"", "\"\"") + '"' : cell;
    }

    private static String format(OptionalDouble penalty) {
        return penalty.isPresent() ? String.format(Locale.ROOT, "%.4f", penalty.getAsDouble()) : "";
    }

    /** A target as the file writes it: the shortest decimal ({@code 0.8}). */
    private static String formatTarget(double target) {
        return Double.toString(target);
    }
}

package io.lgc4j.datasource;

import io.lgc4j.core.data.DataCheck;
import io.lgc4j.core.data.IndexedSource;
import io.lgc4j.core.data.Shard;

import org.datavec.api.records.reader.impl.csv.SerializableCSVParser;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.DataSetPreProcessor;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.factory.Nd4j;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * Labelled rows streamed from a directory of CSV files (or one file): every line is one example, one column holds
 * its class {@code 0 … classes−1} and every other column a numeric feature. Row i is line i of the files taken in
 * name order ({@link String#compareTo}; dot files ignored), after each file's first {@code skipLines} lines, empty
 * lines skipped; so the source gives the trainer's global order ({@link io.lgc4j.core.data.EpochOrder}). Features
 * are {@code [b, columns − 1]} floats, labels one-hot {@code [b, classes]}; a bad value fails naming its file, line
 * and column.
 *
 * <p>The first {@link #plan}, {@link #open} or {@link #examples} scans the files once and keeps 8 bytes per row;
 * batches are then read by positional reads, so the ranks of one process may read at once. The options return a new
 * source. {@link #close()} closes the files; a closed source scans them again when used.
 * <pre>{@code
 * DataSource train = CsvSource.in(Path.of("data/train"))   // part-0.csv, part-1.csv, …
 *         .label(784, 10)                                 // column 784 (from 0) holds the class, 10 classes
 *         .skipLines(1)                                   // a header line in each file
 *         .preProcessor(normalizer);                      // optional, applied to every batch
 * DistributedTrainer.builder().data(train)…
 * }</pre>
 */
public final class CsvSource extends IndexedSource {
    /** Bytes read at once while scanning a file for its rows. */
    private static final int SCAN_BYTES = 1 << 20;
    private static final char QUOTE = '"';

    private final Path path;
    private final int labelColumn;
    private final int classes;
    private final char delimiter;
    private final int skipLines;
    private final long limit;
    private final DataSetPreProcessor preProcessor;
    private volatile Index index;

    /** The files, where each row starts, and what the first row says. */
    private record Index(Path[] files, FileChannel[] channels, long[] firstRow, long[] offsets, int maxLineBytes,
                         int columns, long fingerprint) {
        /** The file holding row {@code row}: the last whose first row is at most {@code row}. */
        int file(long row) {
            int at = Arrays.binarySearch(firstRow, row);
            if (at < 0) {
                return -at - 2;
            }
            while (at + 1 < files.length && firstRow[at + 1] == row) {
                at++; // skip files without rows
            }
            return at;
        }
    }

    private CsvSource(Path path, int labelColumn, int classes, char delimiter, int skipLines, long limit,
                      DataSetPreProcessor preProcessor) {
        this.path = Objects.requireNonNull(path, "path");
        this.labelColumn = labelColumn;
        this.classes = classes;
        this.delimiter = delimiter;
        this.skipLines = skipLines;
        this.limit = limit;
        this.preProcessor = preProcessor;
    }

    /**
     * The CSV files of directory {@code path}, or the file {@code path}; comma-separated, no lines skipped. Say which
     * column holds the label with {@link #label} before use.
     */
    public static CsvSource in(Path path) {
        return new CsvSource(path, -1, 0, ',', 0, Long.MAX_VALUE, null);
    }

    /** This source with the class in column {@code column} (from 0) and {@code classes} classes, one-hot. */
    public CsvSource label(int column, int classes) {
        if (column < 0) {
            throw new IllegalArgumentException("the label column must be >= 0 (counted from 0), found " + column);
        }
        if (classes < 1) {
            throw new IllegalArgumentException("classes must be >= 1, found " + classes);
        }
        return new CsvSource(path, column, classes, delimiter, skipLines, limit, preProcessor);
    }

    /** This source with fields separated by {@code delimiter} (not the quote {@code "}). */
    public CsvSource delimiter(char delimiter) {
        if (delimiter == QUOTE || delimiter == '\n' || delimiter == '\r') {
            throw new IllegalArgumentException("the delimiter cannot be a quote or a line break, found '"
                    + delimiter + "'");
        }
        return new CsvSource(path, labelColumn, classes, delimiter, skipLines, limit, preProcessor);
    }

    /** This source with the first {@code lines} lines of every file skipped (headers). */
    public CsvSource skipLines(int lines) {
        if (lines < 0) {
            throw new IllegalArgumentException("skipLines must be >= 0, found " + lines);
        }
        return new CsvSource(path, labelColumn, classes, delimiter, lines, limit, preProcessor);
    }

    /** This source with only the first {@code examples} rows (all when the files hold fewer); scans no further. */
    public CsvSource limit(long examples) {
        if (examples < 1) {
            throw new IllegalArgumentException("limit must be >= 1, found " + examples);
        }
        return new CsvSource(path, labelColumn, classes, delimiter, skipLines, examples, preProcessor);
    }

    /** This source with {@code preProcessor} applied to every batch it gives (a normalizer, a pixel scaling). */
    public CsvSource preProcessor(DataSetPreProcessor preProcessor) {
        return new CsvSource(path, labelColumn, classes, delimiter, skipLines, limit,
                Objects.requireNonNull(preProcessor, "preProcessor"));
    }

    @Override
    protected long examples() {
        return index().offsets().length;
    }

    /** CRC32C of the files' names, sizes and row counts. */
    @Override
    protected long fingerprint() {
        return index().fingerprint();
    }

    @Override
    public DataSetIterator open(Shard shard) {
        DataSetIterator batches = super.open(shard);
        if (preProcessor != null) {
            batches.setPreProcessor(preProcessor);
        }
        return batches;
    }

    @Override
    public DataSetIterator inOrder(int batchSize) {
        DataSetIterator batches = super.inOrder(batchSize);
        if (preProcessor != null) {
            batches.setPreProcessor(preProcessor);
        }
        return batches;
    }

    @Override
    protected DataSet read(int[] rows) throws IOException {
        Index at = index();
        int features = at.columns() - 1;
        float[] x = new float[rows.length * features];
        float[] y = new float[rows.length * classes];
        ByteBuffer buffer = ByteBuffer.allocate(at.maxLineBytes());
        SerializableCSVParser parser = new SerializableCSVParser(delimiter, QUOTE);
        for (int i = 0; i < rows.length; i++) {
            int file = at.file(rows[i]);
            long offset = at.offsets()[rows[i]];
            String line = line(at.channels()[file], offset, buffer);
            String[] fields = parser.parseLine(line);
            if (fields.length != at.columns()) {
                throw new IOException(where(at, file, offset) + ": " + fields.length + " columns, expected "
                        + at.columns());
            }
            int f = i * features;
            for (int c = 0; c < fields.length; c++) {
                if (c == labelColumn) {
                    y[i * classes + label(fields[c], at, file, offset)] = 1f;
                } else {
                    x[f++] = (float) number(fields[c], c, at, file, offset);
                }
            }
        }
        return new DataSet(Nd4j.create(x, new long[] {rows.length, features}, DataType.FLOAT),
                Nd4j.create(y, new long[] {rows.length, classes}, DataType.FLOAT));
    }

    /** Bytes {@link #check} reads at once. */
    private static final int CHECK_WINDOW = 4 << 20;

    /**
     * {@link DataCheck#FULL}: the share's rows read in order through a window of {@value #CHECK_WINDOW} bytes and
     * checked where they lie — unquoted fields in plain decimal notation, integer labels — without building a batch;
     * a row that does not pass is read as training reads it ({@link #read}), which fails with the exact message (or
     * takes it: a field the plain notation does not cover, such as {@code " 1.5"}). {@link DataCheck#SAMPLE}: as
     * every indexed source.
     */
    @Override
    public long check(int rank, int workers, DataCheck how) throws IOException {
        if (how != DataCheck.FULL || delimiter > 127) {
            return super.check(rank, workers, how);
        }
        Index at = index();
        long from = shareStart(rank, workers);
        long to = shareStart(rank + 1, workers);
        byte[] window = new byte[Math.max(CHECK_WINDOW, at.maxLineBytes())];
        int windowFile = -1;
        long windowStart = 0;
        int windowLength = 0;
        boolean windowAtEnd = false;
        for (long row = from; row < to; row++) {
            int file = at.file(row);
            long offset = at.offsets()[(int) row];
            if (file != windowFile || offset < windowStart
                    || offset + at.maxLineBytes() > windowStart + windowLength && !windowAtEnd) {
                FileChannel channel = at.channels()[file];
                ByteBuffer buffer = ByteBuffer.wrap(window);
                long position = offset;
                while (buffer.hasRemaining()) {
                    int n = channel.read(buffer, position);
                    if (n < 0) {
                        break;
                    }
                    position += n;
                }
                windowFile = file;
                windowStart = offset;
                windowLength = buffer.position();
                windowAtEnd = buffer.hasRemaining();
            }
            int start = (int) (offset - windowStart);
            int end = start;
            while (end < windowLength && window[end] != '\n') {
                end++;
            }
            if (end > start && window[end - 1] == '\r') {
                end--;
            }
            if (!plainRow(window, start, end, at.columns())) {
                try {
                    read(new int[] {(int) row});
                } catch (IOException | RuntimeException e) {
                    throw checkFailed(rank, workers, how, e);
                }
            }
        }
        return to - from;
    }

    /** Whether bytes {@code [start, end)} are a row of {@code columns} plain fields that {@link #read} takes. */
    private boolean plainRow(byte[] b, int start, int end, int columns) {
        int column = 0;
        int fieldStart = start;
        for (int p = start; p <= end; p++) {
            if (p == end || b[p] == delimiter) {
                if (column >= columns || !(column == labelColumn ? plainLabel(b, fieldStart, p)
                        : plainNumber(b, fieldStart, p))) {
                    return false;
                }
                column++;
                fieldStart = p + 1;
            }
        }
        return column == columns;
    }

    /** Digits only, a class below {@code classes}. */
    private boolean plainLabel(byte[] b, int start, int end) {
        if (end - start < 1 || end - start > 9) {
            return false;
        }
        int value = 0;
        for (int p = start; p < end; p++) {
            if (b[p] < '0' || b[p] > '9') {
                return false;
            }
            value = 10 * value + (b[p] - '0');
        }
        return value < classes;
    }

    /**
     * {@code [+-]digits[.digits][e[+-]dd]} with at least one and at most 100 digits and an exponent of at most two
     * digits: a finite double whatever the digits, as {@link Double#parseDouble} reads it.
     */
    private static boolean plainNumber(byte[] b, int start, int end) {
        int p = start;
        if (p < end && (b[p] == '+' || b[p] == '-')) {
            p++;
        }
        int digits = 0;
        while (p < end && b[p] >= '0' && b[p] <= '9') {
            p++;
            digits++;
        }
        if (p < end && b[p] == '.') {
            p++;
            while (p < end && b[p] >= '0' && b[p] <= '9') {
                p++;
                digits++;
            }
        }
        if (digits == 0 || digits > 100) {
            return false;
        }
        if (p < end && (b[p] == 'e' || b[p] == 'E')) {
            p++;
            if (p < end && (b[p] == '+' || b[p] == '-')) {
                p++;
            }
            int exponent = 0;
            while (p < end && b[p] >= '0' && b[p] <= '9') {
                p++;
                exponent++;
            }
            if (exponent == 0 || exponent > 2) {
                return false;
            }
        }
        return p == end;
    }

    private double number(String field, int column, Index at, int file, long offset) throws IOException {
        double value;
        try {
            value = Double.parseDouble(field);
        } catch (NumberFormatException e) {
            throw new IOException(where(at, file, offset) + ", column " + column + " (from 0): \"" + field
                    + "\" is not a number", e);
        }
        if (!Double.isFinite(value)) {
            throw new IOException(where(at, file, offset) + ", column " + column + " (from 0): \"" + field
                    + "\" is not a finite number");
        }
        return value;
    }

    private int label(String field, Index at, int file, long offset) throws IOException {
        double value = number(field, labelColumn, at, file, offset);
        if (value < 0 || value >= classes || value != Math.rint(value)) {
            throw new IOException(where(at, file, offset) + ": label \"" + field + "\" in column " + labelColumn
                    + " is not a class in [0, " + classes + ")");
        }
        return (int) value;
    }

    /** The line starting at {@code offset}, without its line break. */
    private static String line(FileChannel channel, long offset, ByteBuffer buffer) throws IOException {
        buffer.clear();
        long at = offset;
        while (buffer.hasRemaining()) {
            int n = channel.read(buffer, at);
            if (n < 0) {
                break;
            }
            at += n;
        }
        byte[] bytes = buffer.array();
        int end = 0;
        while (end < buffer.position() && bytes[end] != '\n') {
            end++;
        }
        if (end > 0 && bytes[end - 1] == '\r') {
            end--;
        }
        return new String(bytes, 0, end, StandardCharsets.UTF_8);
    }

    /** "data/part-2.csv line 17": counts the line breaks before {@code offset}, on the error path only. */
    private static String where(Index at, int file, long offset) throws IOException {
        FileChannel channel = at.channels()[file];
        ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(SCAN_BYTES, Math.max(1, offset)));
        long line = 1;
        long position = 0;
        while (position < offset) {
            buffer.clear();
            buffer.limit((int) Math.min(buffer.capacity(), offset - position));
            int n = channel.read(buffer, position);
            if (n < 0) {
                break;
            }
            for (int i = 0; i < n; i++) {
                if (buffer.get(i) == '\n') {
                    line++;
                }
            }
            position += n;
        }
        return at.files()[file] + " line " + line;
    }

    @Override
    public String describe() {
        Index at = index;
        String counts = at == null ? "" : String.format("%,d files, %,d rows, %d columns, ", at.files().length,
                at.offsets().length, at.columns());
        return "csv " + path + " (" + counts + "label column " + labelColumn + ", " + classes + " classes)";
    }

    @Override
    public synchronized void close() throws IOException {
        Index at = index;
        index = null;
        if (at != null) {
            closeAll(at.channels());
        }
    }

    private static void closeAll(FileChannel[] channels) throws IOException {
        IOException first = null;
        for (FileChannel channel : channels) {
            try {
                if (channel != null) {
                    channel.close();
                }
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private Index index() {
        Index at = index;
        if (at != null) {
            return at;
        }
        synchronized (this) {
            if (index == null) {
                if (labelColumn < 0) {
                    throw new IllegalStateException("csv " + path + ": say which column holds the label and how"
                            + " many classes there are, with label(column, classes)");
                }
                try {
                    index = scan();
                } catch (IOException e) {
                    throw new UncheckedIOException(e.getMessage(), e);
                }
            }
            return index;
        }
    }

    private Index scan() throws IOException {
        Path[] files = files();
        FileChannel[] channels = new FileChannel[files.length];
        try {
            long[] firstRow = new long[files.length];
            Offsets offsets = new Offsets();
            CRC32C crc = new CRC32C();
            for (int f = 0; f < files.length; f++) {
                channels[f] = FileChannel.open(files[f], StandardOpenOption.READ);
                firstRow[f] = offsets.size;
                if (offsets.size < limit) {
                    scan(channels[f], offsets);
                }
                String part = files[f].getFileName() + "," + channels[f].size() + "," + (offsets.size - firstRow[f]);
                crc.update(part.getBytes(StandardCharsets.UTF_8));
                crc.update(0);
            }
            if (offsets.size == 0) {
                throw new IOException("csv " + path + ": no rows in " + files.length + (files.length == 1 ? " file"
                        : " files") + (skipLines > 0 ? " after skipping " + skipLines + " lines of each" : ""));
            }
            long[] rows = Arrays.copyOf(offsets.values, offsets.size);
            Index partial = new Index(files, channels, firstRow, rows, offsets.maxLineBytes, 0, 0);
            String first = line(channels[partial.file(0)], rows[0],
                    ByteBuffer.allocate(offsets.maxLineBytes));
            int columns = new SerializableCSVParser(delimiter, QUOTE).parseLine(first).length;
            if (columns < 2) {
                throw new IOException(where(partial, partial.file(0), rows[0]) + ": 1 column; a row needs a label"
                        + " and at least one feature (is the delimiter '" + delimiter + "'?)");
            }
            if (labelColumn >= columns) {
                throw new IOException(where(partial, partial.file(0), rows[0]) + ": label column " + labelColumn
                        + " is outside its " + columns + " columns (counted from 0)");
            }
            return new Index(files, channels, firstRow, rows, offsets.maxLineBytes, columns,
                    crc.getValue() | 1L << 32);
        } catch (IOException | RuntimeException e) {
            closeAll(channels);
            throw e;
        }
    }

    /** The data files, sorted by name. */
    private Path[] files() throws IOException {
        if (!Files.exists(path)) {
            throw new NoSuchFileException(path.toString(), null, "the csv data does not exist");
        }
        List<Path> found = new ArrayList<>();
        if (Files.isDirectory(path)) {
            try (Stream<Path> listing = Files.list(path)) {
                listing.filter(p -> !p.getFileName().toString().startsWith(".") && Files.isRegularFile(p))
                        .forEach(found::add);
            }
            if (found.isEmpty()) {
                throw new IOException("csv " + path + ": the directory holds no files");
            }
            found.sort((a, b) -> a.getFileName().toString().compareTo(b.getFileName().toString()));
        } else {
            found.add(path);
        }
        for (Path file : found) {
            if (file.getFileName().toString().endsWith(".gz")) {
                throw new IOException(file + ": CSV streaming needs uncompressed files (gunzip it), or use"
                        + " data.source: memory");
            }
        }
        return found.toArray(new Path[0]);
    }

    /** The growing list of row offsets while scanning, and the longest line seen. */
    private static final class Offsets {
        long[] values = new long[1024];
        int size;
        int maxLineBytes = 1;

        void add(long offset, long lineBytes) {
            if (size == values.length) {
                if (size == Integer.MAX_VALUE - 8) {
                    throw new IllegalArgumentException("more than " + size + " rows");
                }
                values = Arrays.copyOf(values, (int) Math.min(Integer.MAX_VALUE - 8, 2L * size));
            }
            values[size++] = offset;
            // one more byte than the longest line, so that its line break is read with it
            maxLineBytes = (int) Math.max(maxLineBytes, Math.min(Integer.MAX_VALUE - 8, lineBytes + 1));
        }
    }

    /** Adds the offset of every row of one file (up to the limit): lines after skipLines that are not empty. */
    private void scan(FileChannel channel, Offsets offsets) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(SCAN_BYTES);
        long position = 0;
        long lineStart = 0;
        long lines = 0;
        byte previous = '\n';
        while (offsets.size < limit) {
            buffer.clear();
            int n = channel.read(buffer, position);
            if (n < 0) {
                break;
            }
            byte[] bytes = buffer.array();
            for (int i = 0; i < n && offsets.size < limit; i++) {
                if (bytes[i] == '\n') {
                    long end = position + i;
                    lines++;
                    long content = end - lineStart - (previous == '\r' ? 1 : 0);
                    if (lines > skipLines && content > 0) {
                        offsets.add(lineStart, end - lineStart);
                    }
                    lineStart = end + 1;
                }
                previous = bytes[i];
            }
            position += n;
        }
        long size = channel.size();
        if (offsets.size < limit && lineStart < size) {
            // a last line without a line break
            long content = size - lineStart - (previous == '\r' ? 1 : 0);
            if (lines + 1 > skipLines && content > 0) {
                offsets.add(lineStart, size - lineStart);
            }
        }
    }
}

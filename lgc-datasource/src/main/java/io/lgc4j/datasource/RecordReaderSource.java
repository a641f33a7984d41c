package io.lgc4j.datasource;

import io.lgc4j.core.data.DataCheck;
import io.lgc4j.core.data.IndexedSource;
import io.lgc4j.core.data.Shard;

import org.datavec.api.conf.Configuration;
import org.datavec.api.records.metadata.RecordMetaDataURI;
import org.datavec.api.records.reader.RecordReader;
import org.datavec.api.records.reader.SequenceRecordReader;
import org.datavec.api.records.reader.impl.LineRecordReader;
import org.datavec.api.split.InputSplit;
import org.datavec.api.writable.NDArrayWritable;
import org.datavec.api.writable.Writable;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.DataSetPreProcessor;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.factory.Nd4j;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemNotFoundException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Supplier;
import java.util.zip.CRC32C;

/**
 * A DL4J user's DataVec pipeline as a data source: any {@link RecordReader} that reads <b>one record per file</b>
 * over the files an {@link InputSplit} lists, configured as {@code RecordReaderDataSetIterator} is (label index and
 * classes, or regression targets; an optional {@link DataSetPreProcessor}). Example i is the split's location i
 * <b>sorted by URI</b>, read with {@code loadFromMetaData} and turned into arrays as
 * {@code RecordReaderDataSetIterator} does; each rank reads only its batches' files. Line readers
 * ({@link LineRecordReader}: use {@link CsvSource}), {@link SequenceRecordReader}s and splits without locations are
 * refused; bad input fails naming the file, and a full {@link #check} decodes every file before step 0.
 *
 * <p>A {@code RecordReader} is not thread-safe: {@link #of(RecordReader, InputSplit)} lends yours for one record at
 * a time, {@link #of(Supplier, InputSplit)} makes one per concurrent read; the source initializes each with the split
 * ({@link Configuration} from {@code getConf}). Options return a new source sharing the readers; {@link #close()}
 * closes the readers the factory made, and a closed source makes or initializes them again when used.
 * <pre>{@code
 * DataSource source = RecordReaderSource.of(new ImageRecordReader(28, 28, 1, new ParentPathLabelGenerator()), train)
 *         .label(1, 10)                                   // the record is [image, class]: class at 1, 10 classes
 *         .preProcessor(new ImagePreProcessingScaler());  // optional, applied to every batch
 * }</pre>
 */
public final class RecordReaderSource extends IndexedSource {

    private final InputSplit split;
    private final Index index;
    private final Readers readers;
    private final Target target;
    private final DataSetPreProcessor preProcessor;

    /** Which values of a record are the label: a class, or regression targets. */
    private sealed interface Target {
        int from();

        int to();
    }

    /** The value at {@code index} is a class in {@code [0, classes)}, one-hot in the batch. */
    private record Classification(int index, int classes) implements Target {
        @Override
        public int from() {
            return index;
        }

        @Override
        public int to() {
            return index;
        }
    }

    /** The values {@code from … to} (inclusive) are the targets, as they are. */
    private record Regression(int from, int to) implements Target {
    }

    /** The locations sorted, their common directory, and the fingerprint of the names below it. */
    private record Index(String[] locations, String root, long fingerprint) {
    }

    private RecordReaderSource(InputSplit split, Index index, Readers readers, Target target,
                               DataSetPreProcessor preProcessor) {
        this.split = split;
        this.index = index;
        this.readers = readers;
        this.target = target;
        this.preProcessor = preProcessor;
    }

    /**
     * The files of {@code split} read by {@code reader}, lent for one record at a time. Say which value is the label
     * with {@link #label} or {@link #regression} before use. Lists the split's locations now.
     *
     * @throws IllegalArgumentException for a reader of lines or sequences (see the class's limits)
     */
    public static RecordReaderSource of(RecordReader reader, InputSplit split) {
        Objects.requireNonNull(reader, "reader");
        Objects.requireNonNull(split, "split");
        refuseManyRecordsPerFile(reader);
        String kind = reader.getClass().getSimpleName();
        return new RecordReaderSource(split, index(split, kind), new Readers(null, reader), null, null);
    }

    /**
     * The files of {@code split} read by readers {@code newReader} makes: one whenever a record is to be read and none
     * is free (at most one per rank reading at once), kept until {@link #close()}. Lists the split's locations now,
     * and calls {@code newReader} once, to check the kind of reader.
     *
     * @throws IllegalArgumentException for a reader of lines or sequences (see the class's limits)
     */
    public static RecordReaderSource of(Supplier<? extends RecordReader> newReader, InputSplit split) {
        Objects.requireNonNull(newReader, "newReader");
        Objects.requireNonNull(split, "split");
        RecordReader first = Objects.requireNonNull(newReader.get(), "newReader gave null");
        refuseManyRecordsPerFile(first);
        String kind = first.getClass().getSimpleName();
        return new RecordReaderSource(split, index(split, kind), new Readers(newReader, first), null, null);
    }

    /**
     * This source for classification: value {@code index} of each record (from 0) is a class in
     * {@code [0, classes)}; every other value is a feature. {@code RecordReaderDataSetIterator(reader, batch, index,
     * classes)}'s meaning; an {@code ImageRecordReader}'s record is {@code [image, class]}: {@code label(1, classes)}.
     */
    public RecordReaderSource label(int index, int classes) {
        if (index < 0) {
            throw new IllegalArgumentException("the label index must be >= 0 (counted from 0), found " + index);
        }
        if (classes < 1) {
            throw new IllegalArgumentException("classes must be >= 1, found " + classes);
        }
        return new RecordReaderSource(split, this.index, readers, new Classification(index, classes), preProcessor);
    }

    /**
     * This source for regression: values {@code from} to {@code to} (inclusive, from 0) of each record are the
     * targets; every other value is a feature. {@code RecordReaderDataSetIterator(reader, batch, from, to, true)}'s
     * meaning.
     */
    public RecordReaderSource regression(int from, int to) {
        if (from < 0 || to < from) {
            throw new IllegalArgumentException("regression targets must be 0 <= from <= to, found from=" + from
                    + ", to=" + to);
        }
        return new RecordReaderSource(split, index, readers, new Regression(from, to), preProcessor);
    }

    /**
     * This source with {@code preProcessor} applied to every batch it gives ({@code ImagePreProcessingScaler}, a
     * normalizer).
     */
    public RecordReaderSource preProcessor(DataSetPreProcessor preProcessor) {
        return new RecordReaderSource(split, index, readers, target,
                Objects.requireNonNull(preProcessor, "preProcessor"));
    }

    @Override
    protected long examples() {
        return index().locations().length;
    }

    /** CRC32C of the locations below their common directory, in example order. */
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
        Example[] examples = new Example[rows.length];
        for (int i = 0; i < rows.length; i++) {
            examples[i] = example(rows[i]);
            examples[i].sameShapeAs(examples[0]);
        }
        Example first = examples[0];
        int f = first.features().length;
        int l = first.labels().length;
        float[] x = new float[rows.length * f];
        float[] y = new float[rows.length * l];
        for (int i = 0; i < rows.length; i++) {
            System.arraycopy(examples[i].features(), 0, x, i * f, f);
            System.arraycopy(examples[i].labels(), 0, y, i * l, l);
        }
        long[] shape = first.shape().clone();
        shape[0] = rows.length;
        return new DataSet(Nd4j.create(x, shape, DataType.FLOAT),
                Nd4j.create(y, new long[] {rows.length, l}, DataType.FLOAT));
    }

    /**
     * Reads the rows of share {@code rank} one file at a time, as training reads them, without building batches
     * (the rows of an indexed source's check are read 512 at a time: hundreds of megabytes of large images): every row, or
     * {@link DataCheck#SAMPLE}'s rows as every indexed source samples them ({@link #nextCheckedRow}). Every example
     * must have the share's
     * first example's shapes.
     */
    @Override
    public long check(int rank, int workers, DataCheck how) throws IOException {
        if (how == DataCheck.NONE) {
            return 0;
        }
        long from = shareStart(rank, workers);
        long to = shareStart(rank + 1, workers);
        long count = 0;
        Example first = null;
        try {
            for (long row = from; row < to; row = nextCheckedRow(row, from, to, how)) {
                Example example = example((int) row);
                if (first == null) {
                    first = example;
                }
                example.sameShapeAs(first);
                count++;
            }
        } catch (IOException | RuntimeException e) {
            throw checkFailed(rank, workers, how, e);
        }
        return count;
    }

    /** Example {@code row}: its file read by a reader lent for it, and turned into arrays. */
    private Example example(int row) throws IOException {
        URI uri = URI.create(index().locations()[row]);
        Readers.Lent lent = readers.take(split);
        try {
            String file = file(uri);
            return Example.of(file, record(lent.reader(), uri, file), target, lent.reader());
        } finally {
            readers.give(lent);
        }
    }

    /**
     * The record of the file at {@code uri}, as the reader's own iteration gives it ({@code loadFromMetaData} of the
     * metadata its {@code nextRecord()} would attach), or an exception naming the file.
     */
    private static List<Writable> record(RecordReader reader, URI uri, String file) throws IOException {
        try {
            return Objects.requireNonNull(reader.loadFromMetaData(new RecordMetaDataURI(uri, reader.getClass())),
                    "loadFromMetaData gave no record").getRecord();
        } catch (IOException | RuntimeException e) {
            throw new IOException(file + ": " + reader.getClass().getSimpleName() + " cannot read it: "
                    + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()), e);
        }
    }

    /** The path of a location, for messages: a local path as the file system spells it, else the URI. */
    private static String file(URI uri) {
        try {
            return Path.of(uri).toString();
        } catch (FileSystemNotFoundException | IllegalArgumentException e) {
            return uri.toString();
        }
    }

    /**
     * One file's record as arrays: its features ({@code shape} {@code [1, …]} for a single array, {@code [1, n]} for
     * values in a row) and its label (one-hot) or targets.
     */
    private record Example(String file, float[] features, long[] shape, float[] labels) {

        static Example of(String file, List<Writable> record, Target target, RecordReader reader)
                throws IOException {
            int from = target.from();
            int to = target.to();
            if (to >= record.size()) {
                throw new IOException(file + ": the record holds " + record.size() + " values (0 to "
                        + (record.size() - 1) + "), its label is at " + (from == to ? Integer.toString(from)
                        : from + " to " + to));
            }
            if (record.size() == to - from + 1) {
                throw new IOException(file + ": the record holds only its label (" + record.size() + " values)");
            }
            float[] features;
            long[] shape;
            boolean oneArray = record.size() == to - from + 2;
            Writable single = oneArray ? record.get(from == 0 ? to + 1 : 0) : null;
            if (single instanceof NDArrayWritable array) {
                INDArray a = array.get();
                shape = a.shape();
                if (a.rank() < 2 || shape[0] != 1) {
                    throw new IOException(file + ": an array of features of shape " + Arrays.toString(shape)
                            + "; one example's array needs a leading dimension of 1");
                }
                features = floats(a);
            } else {
                List<Integer> columns = new ArrayList<>();
                for (int c = 0; c < record.size(); c++) {
                    if (c < from || c > to) {
                        columns.add(c);
                    }
                }
                features = numbers(record, columns, file, "feature");
                shape = new long[] {1, features.length};
            }
            List<Integer> labelColumns = new ArrayList<>();
            for (int c = from; c <= to; c++) {
                labelColumns.add(c);
            }
            float[] labels = target instanceof Classification c ? oneHot(record.get(c.index()), c, file, reader)
                    : numbers(record, labelColumns, file, "target");
            return new Example(file, features, shape, labels);
        }

        /** Throws, naming both files, unless this example's shapes are {@code first}'s. */
        void sameShapeAs(Example first) throws IOException {
            if (!Arrays.equals(shape, first.shape())) {
                throw new IOException(file + ": features of shape " + Arrays.toString(shape) + ", the first example"
                        + " read with it (" + first.file() + ") has " + Arrays.toString(first.shape()));
            }
            if (labels.length != first.labels().length) {
                throw new IOException(file + ": " + labels.length + " targets, the first example read with it ("
                        + first.file() + ") has " + first.labels().length);
            }
        }

        private static float[] oneHot(Writable label, Classification c, String file, RecordReader reader)
                throws IOException {
            double value = number(label, c.index(), file, "label");
            List<String> known = reader.getLabels();
            if (value == -1) {
                throw new IOException(file + ": the reader placed it in no class (label -1 at " + c.index() + ")"
                        + (known == null ? "" : "; " + reader.getClass().getSimpleName() + "'s classes: " + known));
            }
            if (value < 0 || value >= c.classes() || value != Math.rint(value)) {
                throw new IOException(file + ": label " + label + " at " + c.index() + " is not a class in [0, "
                        + c.classes() + ")" + (known == null || known.isEmpty() ? ""
                        : "; " + reader.getClass().getSimpleName() + "'s classes: " + known));
            }
            float[] row = new float[c.classes()];
            row[(int) value] = 1f;
            return row;
        }

        /** Values {@code columns} of the record as floats: an array's elements in C order, others' toDouble(). */
        private static float[] numbers(List<Writable> record, List<Integer> columns, String file, String what)
                throws IOException {
            int length = 0;
            for (int c : columns) {
                length += record.get(c) instanceof NDArrayWritable a ? (int) a.get().length() : 1;
            }
            float[] out = new float[length];
            int at = 0;
            for (int c : columns) {
                Writable w = record.get(c);
                if (w instanceof NDArrayWritable a) {
                    float[] elements = floats(a.get());
                    System.arraycopy(elements, 0, out, at, elements.length);
                    at += elements.length;
                } else {
                    out[at++] = (float) number(w, c, file, what);
                }
            }
            return out;
        }

        private static double number(Writable w, int index, String file, String what) throws IOException {
            double value;
            try {
                value = w.toDouble();
            } catch (RuntimeException e) {
                throw new IOException(file + ": " + what + " \"" + w + "\" at " + index + " is not a number", e);
            }
            if (!Double.isFinite(value)) {
                throw new IOException(file + ": " + what + " \"" + w + "\" at " + index + " is not a finite number");
            }
            return value;
        }

        private static float[] floats(INDArray a) {
            return a.castTo(DataType.FLOAT).dup('c').data().asFloat();
        }
    }

    @Override
    public String describe() {
        String where = String.format("%,d files under %s", index.locations().length, index.root());
        String label = target == null ? "no label yet"
                : target instanceof Classification c ? "label at " + c.index() + ", " + c.classes() + " classes"
                : "regression targets at " + target.from() + " to " + target.to();
        return "records of " + readers.kind() + " from " + where + " (" + label + ")";
    }

    /** Closes the readers the factory made; the reader given to {@link #of(RecordReader, InputSplit)} stays open. */
    @Override
    public void close() throws IOException {
        readers.close();
    }

    /** The index, once the label is known: every use but {@link #describe()} needs both. */
    private Index index() {
        if (target == null) {
            throw new IllegalStateException("records of " + readers.kind() + ": say which value of a record is the"
                    + " label, with label(index, classes) or regression(from, to)");
        }
        return index;
    }

    private static Index index(InputSplit split, String kind) {
        URI[] uris = split.locations();
        if (uris == null || uris.length == 0) {
            throw new IllegalArgumentException("records of " + kind + ": the " + split.getClass().getSimpleName()
                    + " lists no locations; RecordReaderSource reads one record per file of a split that lists its"
                    + " files (FileSplit, CollectionInputSplit)");
        }
        String[] locations = new String[uris.length];
        for (int i = 0; i < uris.length; i++) {
            locations[i] = uris[i].toString();
        }
        Arrays.sort(locations);
        String first = locations[0];
        String last = locations[locations.length - 1];
        int common = 0;
        while (common < Math.min(first.length(), last.length()) && first.charAt(common) == last.charAt(common)) {
            common++;
        }
        int rootLength = first.lastIndexOf('/', common - 1) + 1;
        CRC32C crc = new CRC32C();
        for (String location : locations) {
            crc.update(location.substring(rootLength).getBytes(StandardCharsets.UTF_8));
            crc.update(0);
        }
        String root = first.substring(0, rootLength);
        try {
            root = Path.of(URI.create(root)).toString();
        } catch (RuntimeException e) {
            // not a path of a file system: keep the URI
        }
        return new Index(locations, root, crc.getValue() | 1L << 32);
    }

    /** Refuses readers that give many records per file, naming the source that reads them. */
    private static void refuseManyRecordsPerFile(RecordReader reader) {
        String kind = reader.getClass().getSimpleName();
        if (reader instanceof SequenceRecordReader) {
            throw new IllegalArgumentException(kind + " reads sequences; RecordReaderSource reads one record of"
                    + " fixed shape per file (sequences need masks, which are not carried to the ranks)");
        }
        if (reader instanceof LineRecordReader) {
            throw new IllegalArgumentException(kind + " reads a record per line, many from one file;"
                    + " RecordReaderSource reads one record per file. For CSV files use CsvSource.in(dir)"
                    + ".label(column, classes), which indexes the lines");
        }
    }

    /**
     * The readers, lent to one read at a time: only the one given, or as many as the factory made for reads at once.
     * Each is initialized with the split before its first record (with its own {@link Configuration}, if it has one).
     */
    private static final class Readers {
        private final Supplier<? extends RecordReader> factory;
        private final String kind;
        private final BlockingQueue<Lent> idle = new LinkedBlockingQueue<>();
        private final List<Lent> made = new ArrayList<>();

        /** A reader and whether it has been initialized; held by one read at a time. */
        static final class Lent {
            private final RecordReader reader;
            private boolean initialized;

            Lent(RecordReader reader) {
                this.reader = reader;
            }

            RecordReader reader() {
                return reader;
            }
        }

        Readers(Supplier<? extends RecordReader> factory, RecordReader first) {
            this.factory = factory;
            this.kind = first.getClass().getSimpleName();
            Lent lent = new Lent(first);
            idle.add(lent);
            if (factory != null) {
                made.add(lent);
            }
        }

        String kind() {
            return kind;
        }

        Lent take(InputSplit split) throws IOException {
            Lent lent = idle.poll();
            if (lent == null) {
                if (factory == null) {
                    try {
                        lent = idle.take();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new InterruptedIOException("interrupted waiting for the " + kind);
                    }
                } else {
                    lent = new Lent(Objects.requireNonNull(factory.get(), "newReader gave null"));
                    synchronized (made) {
                        made.add(lent);
                    }
                }
            }
            if (!lent.initialized) {
                try {
                    Configuration conf = lent.reader.getConf();
                    if (conf == null) {
                        lent.reader.initialize(split);
                    } else {
                        lent.reader.initialize(conf, split);
                    }
                    lent.initialized = true;
                } catch (InterruptedException e) {
                    idle.add(lent);
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("interrupted initializing the " + kind);
                } catch (IOException | RuntimeException e) {
                    idle.add(lent);
                    throw new IOException(kind + " cannot be initialized with the " + split.getClass()
                            .getSimpleName() + ": " + e.getMessage(), e);
                }
            }
            return lent;
        }

        void give(Lent lent) {
            idle.add(lent);
        }

        /** Closes the factory's readers, keeping one (uninitialized) to lend; the given reader is only reset. */
        void close() throws IOException {
            List<Lent> toClose;
            synchronized (made) {
                toClose = new ArrayList<>(made);
            }
            IOException first = null;
            for (Lent lent : toClose) {
                try {
                    lent.reader.close();
                } catch (IOException e) {
                    if (first == null) {
                        first = e;
                    } else {
                        first.addSuppressed(e);
                    }
                }
            }
            if (factory != null) {
                synchronized (made) {
                    idle.removeAll(made);
                    made.clear();
                }
            }
            for (Lent lent : idle) {
                lent.initialized = false;
            }
            if (first != null) {
                throw first;
            }
        }
    }
}

package io.lgc4j.datasource;

import io.lgc4j.core.data.IndexedSource;
import io.lgc4j.data.FashionMnist;
import io.lgc4j.data.IdxFormatException;
import io.lgc4j.data.IdxReader;
import io.lgc4j.data.PixelPreprocessing;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * Labelled images streamed from an uncompressed IDX images file and its labels file (MNIST, Fashion-MNIST): example
 * i by one positional read at {@code header + i · rows · cols}, its label at {@code 8 + i}; nothing is cached.
 * Features are flat {@code [b, rows · cols]} floats through {@link PixelPreprocessing}, labels one-hot
 * {@code [b, classes]}: bit-equal to {@code MemorySource.of(FashionMnist.load(dir, split, n, pixels).toDataSet())}'s
 * batches for the same shards.
 *
 * <pre>{@code
 * DataSource train = IdxSource.in(dir.resolve("train-images-idx3-ubyte"), dir.resolve("train-labels-idx1-ubyte"))
 *         .pixels(PixelPreprocessing.SCALE);      // default: FashionMnist.DEFAULT_PREPROCESSING, 10 classes
 * DistributedTrainer.builder().data(train)…
 * }</pre>
 *
 * <p>The options return a new source; the files are opened and their headers checked at the first {@link #plan},
 * {@link #open} or {@link #examples}. Gzipped files are refused (a gzip stream cannot be read at an offset). Ranks of
 * one process may read one source at once. {@link #close()} closes the files; a closed source opens them again.
 */
public final class IdxSource extends IndexedSource {
    /** The bytes before the first image: magic, count, rows, cols. */
    static final int IMAGES_HEADER_BYTES = 16;
    /** The bytes before the first label: magic, count. */
    static final int LABELS_HEADER_BYTES = 8;
    /** What a gzipped file is refused with, after its name. */
    static final String GZIP_REFUSED = "IDX streaming needs the uncompressed file (gunzip it), or use data.source:"
            + " memory";

    private final Path images;
    private final Path labels;
    private final Pixels pixels;
    private final int classes;
    private final long limit;
    private volatile Files files;

    /** How a pixel byte becomes a feature: a {@link PixelPreprocessing}, or the byte's value as it is. */
    private record Pixels(String name, float[] table) {
        static Pixels of(PixelPreprocessing preprocessing) {
            float[] table = new float[256];
            for (int p = 0; p < table.length; p++) {
                table[p] = preprocessing.apply(p);
            }
            return new Pixels(preprocessing.name().toLowerCase(Locale.ROOT), table);
        }

        static Pixels raw() {
            float[] table = new float[256];
            for (int p = 0; p < table.length; p++) {
                table[p] = p;
            }
            return new Pixels("raw", table);
        }
    }

    /** The two open files and what their headers say. */
    private record Files(FileChannel images, FileChannel labels, int count, int rows, int cols, long fingerprint) {
        int rowBytes() {
            return rows * cols;
        }
    }

    private IdxSource(Path images, Path labels, Pixels pixels, int classes, long limit) {
        this.images = Objects.requireNonNull(images, "images");
        this.labels = Objects.requireNonNull(labels, "labels");
        this.pixels = pixels;
        this.classes = classes;
        this.limit = limit;
    }

    /**
     * The images of {@code images} labelled by {@code labels}, with Fashion-MNIST's defaults: pixels
     * {@link FashionMnist#DEFAULT_PREPROCESSING}, 10 classes, every example.
     */
    public static IdxSource in(Path images, Path labels) {
        return new IdxSource(images, labels, Pixels.of(FashionMnist.DEFAULT_PREPROCESSING),
                FashionMnist.CLASS_NAMES.size(), Long.MAX_VALUE);
    }

    /** The Fashion-MNIST split's uncompressed files in {@code dir} ({@code train-images-idx3-ubyte}, …). */
    public static IdxSource fashionMnist(Path dir, FashionMnist.Split split) {
        return in(dir.resolve(split.imagesFileName()), dir.resolve(split.labelsFileName()));
    }

    /** This source with pixels turned into features by {@code preprocessing}. */
    public IdxSource pixels(PixelPreprocessing preprocessing) {
        return new IdxSource(images, labels, Pixels.of(Objects.requireNonNull(preprocessing, "preprocessing")),
                classes, limit);
    }

    /** This source with each pixel's byte value 0 … 255 as its feature. */
    public IdxSource rawPixels() {
        return new IdxSource(images, labels, Pixels.raw(), classes, limit);
    }

    /** This source with labels one-hot over {@code classes} classes; a label outside {@code [0, classes)} fails. */
    public IdxSource classes(int classes) {
        if (classes < 1 || classes > 256) {
            throw new IllegalArgumentException("classes must be in [1, 256] (labels are bytes), found " + classes);
        }
        return new IdxSource(images, labels, pixels, classes, limit);
    }

    /** This source with only the files' first {@code examples} examples (all when the files hold fewer). */
    public IdxSource limit(long examples) {
        if (examples < 1) {
            throw new IllegalArgumentException("limit must be >= 1, found " + examples);
        }
        return new IdxSource(images, labels, pixels, classes, examples);
    }

    @Override
    protected long examples() {
        return Math.min(files().count(), limit);
    }

    /** CRC32C of both files' names, sizes and headers, and of the examples used. */
    @Override
    protected long fingerprint() {
        return files().fingerprint();
    }

    @Override
    protected DataSet read(int[] rows) throws IOException {
        Files f = files();
        int rowBytes = f.rowBytes();
        float[] table = pixels.table();
        float[] x = new float[rows.length * rowBytes];
        float[] y = new float[rows.length * classes];
        ByteBuffer image = ByteBuffer.allocate(rowBytes);
        ByteBuffer label = ByteBuffer.allocate(1);
        for (int i = 0; i < rows.length; i++) {
            long row = rows[i];
            image.clear();
            readFully(f.images(), image, IMAGES_HEADER_BYTES + row * rowBytes, images);
            byte[] bytes = image.array();
            for (int p = 0; p < rowBytes; p++) {
                x[i * rowBytes + p] = table[Byte.toUnsignedInt(bytes[p])];
            }
            label.clear();
            readFully(f.labels(), label, LABELS_HEADER_BYTES + row, labels);
            int value = Byte.toUnsignedInt(label.get(0));
            if (value >= classes) {
                throw new IdxFormatException(labels, "label " + value + " of example " + row + " is outside [0, "
                        + classes + ")");
            }
            y[i * classes + value] = 1f;
        }
        return new DataSet(Nd4j.create(x, new long[] {rows.length, rowBytes}, DataType.FLOAT),
                Nd4j.create(y, new long[] {rows.length, classes}, DataType.FLOAT));
    }

    @Override
    public String describe() {
        Files f = files;
        String counts = f == null ? "" : String.format(", %,d examples of %dx%d", examples(), f.rows(), f.cols());
        return "idx " + images + " + " + labels + " (" + pixels.name() + " pixels, " + classes + " classes" + counts
                + ")";
    }

    @Override
    public synchronized void close() throws IOException {
        Files f = files;
        files = null;
        if (f != null) {
            try {
                f.images().close();
            } finally {
                f.labels().close();
            }
        }
    }

    private Files files() {
        Files f = files;
        if (f != null) {
            return f;
        }
        synchronized (this) {
            if (files == null) {
                try {
                    files = openFiles();
                } catch (IOException e) {
                    throw new UncheckedIOException(e.getMessage(), e);
                }
            }
            return files;
        }
    }

    private Files openFiles() throws IOException {
        FileChannel imageChannel = openChannel(images, "images");
        FileChannel labelChannel = null;
        try {
            labelChannel = openChannel(labels, "labels");
            ByteBuffer imageHeader = header(imageChannel, images, IMAGES_HEADER_BYTES, IdxReader.IMAGES_MAGIC,
                    "images");
            ByteBuffer labelHeader = header(labelChannel, labels, LABELS_HEADER_BYTES, IdxReader.LABELS_MAGIC,
                    "labels");
            long count = Integer.toUnsignedLong(imageHeader.getInt(4));
            long rows = Integer.toUnsignedLong(imageHeader.getInt(8));
            long cols = Integer.toUnsignedLong(imageHeader.getInt(12));
            long labelCount = Integer.toUnsignedLong(labelHeader.getInt(4));
            if (rows == 0 || cols == 0 || rows * cols > Integer.MAX_VALUE / 4) {
                throw new IdxFormatException(images, "bad size: header declares images of " + rows + "x" + cols);
            }
            if (count > Integer.MAX_VALUE) {
                throw new IdxFormatException(images, "header declares " + count + " images, more than "
                        + Integer.MAX_VALUE);
            }
            checkSize(imageChannel, images, IMAGES_HEADER_BYTES, count * rows * cols,
                    count + " images of " + rows + "x" + cols);
            checkSize(labelChannel, labels, LABELS_HEADER_BYTES, labelCount, labelCount + " labels");
            if (labelCount != count) {
                throw new IdxFormatException(labels, "count mismatch: expected as many labels as "
                        + images.getFileName() + " has images (" + count + ") but found " + labelCount + " labels");
            }
            CRC32C crc = new CRC32C();
            for (String part : new String[] {images.getFileName().toString(), labels.getFileName().toString(),
                    imageChannel.size() + "," + labelChannel.size() + "," + Math.min(count, limit)}) {
                crc.update(part.getBytes(StandardCharsets.UTF_8));
                crc.update(0);
            }
            crc.update(imageHeader.array());
            crc.update(labelHeader.array());
            return new Files(imageChannel, labelChannel, (int) count, (int) rows, (int) cols,
                    crc.getValue() | 1L << 32);
        } catch (IOException | RuntimeException e) {
            imageChannel.close();
            if (labelChannel != null) {
                labelChannel.close();
            }
            throw e;
        }
    }

    private static FileChannel openChannel(Path file, String role) throws IOException {
        if (file.getFileName().toString().endsWith(".gz")) {
            throw new IdxFormatException(file, GZIP_REFUSED);
        }
        try {
            return FileChannel.open(file, StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            throw new NoSuchFileException(file.toString(), null, "the IDX " + role + " file does not exist");
        }
    }

    private static ByteBuffer header(FileChannel channel, Path file, int bytes, int magic, String kind)
            throws IOException {
        ByteBuffer header = ByteBuffer.allocate(bytes);
        while (header.hasRemaining() && channel.read(header, header.position()) >= 0) {
            // positional reads until full or the end of the file
        }
        if (header.position() >= 2 && (header.get(0) & 0xff) == 0x1f && (header.get(1) & 0xff) == 0x8b) {
            throw new IdxFormatException(file, "a gzip stream: " + GZIP_REFUSED);
        }
        if (header.hasRemaining()) {
            throw new IdxFormatException(file, "truncated: expected a " + bytes + "-byte header but the file ends"
                    + " after " + header.position() + " bytes");
        }
        int found = header.getInt(0);
        if (found != magic) {
            throw new IdxFormatException(file, String.format("bad magic: expected 0x%08x (unsigned-byte %s) but"
                    + " found 0x%08x", magic, kind, found));
        }
        return header;
    }

    private static void checkSize(FileChannel channel, Path file, int header, long declared, String what)
            throws IOException {
        long data = channel.size() - header;
        if (data < declared) {
            throw new IdxFormatException(file, "truncated: header declares " + what + " (" + declared
                    + " bytes) but the data ends after " + data + " bytes");
        }
        if (data > declared) {
            throw new IdxFormatException(file, "trailing garbage: header declares " + what + " (" + declared
                    + " bytes) but " + (data - declared) + " more bytes follow the data");
        }
    }

    private static void readFully(FileChannel channel, ByteBuffer into, long position, Path file)
            throws IOException {
        long at = position;
        while (into.hasRemaining()) {
            int n = channel.read(into, at);
            if (n < 0) {
                throw new IdxFormatException(file, "ends at byte " + at + " (the file shrank while being read)");
            }
            at += n;
        }
    }
}

package io.lgc4j.spark;

import io.lgc4j.core.data.IndexedSource;
import org.apache.spark.SparkEnv;
import org.apache.spark.SparkFiles;
import org.apache.spark.sql.Row;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Iterator;

/**
 * A task's partition on the executor's local disk, read one batch at a time: the task streams its rows once into a
 * file of fixed-width records, and every batch is read back by positional reads, so the task holds the batches in
 * flight, not its partition. A record is little-endian: the {@code width} features as float32, then the label: the
 * class index as int32 when the label column holds a number, else the {@code numClasses} values of its one-hot
 * vector as float32. A batch holds float32 features {@code [b, width]} and one-hot labels {@code [b, numClasses]}:
 * the values {@link Columns} gives every row, so training reads the same bits as from memory.
 *
 * <pre>{@code
 * try (SpilledPartition mine = SpilledPartition.write(columns, rows, count, partition, SpilledPartition.localDir())) {
 *     DataSource data = RankLocalSource.ofIndexed(total, steps, rank -> mine);
 * }   // the file is deleted
 * }</pre>
 *
 * <p>Reads are positional, so several threads may read at once; {@link #close} deletes the file.
 */
final class SpilledPartition extends IndexedSource {
    /** How a partition's file is named in its directory: {@code lgc-partition-<partition>-<random>.bin}. */
    static final String FILE_PREFIX = "lgc-partition-";
    private static final int WRITE_BUFFER_BYTES = 1 << 16;

    private final Path file;
    private volatile FileChannel channel;
    private volatile boolean closed;
    private final int partition;
    private final int rows;
    private final int width;
    private final int numClasses;
    private final boolean classIndex;
    private final int recordBytes;

    private SpilledPartition(Path file, FileChannel channel, int partition, int rows, Columns columns) {
        this.file = file;
        this.channel = channel;
        this.partition = partition;
        this.rows = rows;
        this.width = columns.width();
        this.numClasses = columns.numClasses();
        this.classIndex = columns.classIndexLabels();
        this.recordBytes = recordBytes(columns);
    }

    /** The bytes of one row's record: the features and the label, 4 bytes each value. */
    static int recordBytes(Columns columns) {
        return Math.multiplyExact(4, columns.width() + (columns.classIndexLabels() ? 1 : columns.numClasses()));
    }

    /**
     * The executor's local directory for the partition files: Spark's files directory (a local temporary directory
     * on the driver and in local mode, the executor's working directory on a cluster), or {@code java.io.tmpdir}
     * outside Spark.
     */
    static Path localDir() {
        return SparkEnv.get() == null ? Path.of(System.getProperty("java.io.tmpdir"))
                : Path.of(SparkFiles.getRootDirectory()).toAbsolutePath();
    }

    /**
     * Streams the {@code rows} rows of a partition into a new file in {@code dir}, each checked by {@link
     * Columns#forEachRow}; deletes the file when that fails.
     *
     * @param columns the columns with the features' width known
     * @throws IllegalStateException when the partition is not what was counted before training
     * @throws IOException           when the file cannot be written
     */
    static SpilledPartition write(Columns columns, Iterator<Row> partitionRows, int rows, int partition, Path dir)
            throws IOException {
        if (columns.width() < 1) {
            throw new IllegalArgumentException("the features' width must be known (>= 1) before a partition is"
                    + " spilled, found " + columns.width());
        }
        Path file = Files.createTempFile(dir, FILE_PREFIX + partition + "-", ".bin");
        FileChannel channel = null;
        try {
            channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
            SpilledPartition spilled = new SpilledPartition(file, channel, partition, rows, columns);
            spilled.fill(columns, partitionRows);
            return spilled;
        } catch (IOException | RuntimeException | Error e) {
            try {
                if (channel != null) {
                    channel.close();
                }
                Files.deleteIfExists(file);
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    private void fill(Columns columns, Iterator<Row> partitionRows) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(Math.max(WRITE_BUFFER_BYTES, recordBytes))
                .order(ByteOrder.LITTLE_ENDIAN);
        float[] x = new float[width];
        float[] y = classIndex ? null : new float[numClasses];
        columns.forEachRow(partitionRows, rows, partition, (row, index) -> {
            if (buffer.remaining() < recordBytes) {
                drain(buffer);
            }
            columns.features(row, x, 0);
            for (float v : x) {
                buffer.putFloat(v);
            }
            if (classIndex) {
                buffer.putInt(columns.classOf(row));
            } else {
                columns.oneHot(row, y, 0);
                for (float v : y) {
                    buffer.putFloat(v);
                }
            }
        });
        drain(buffer);
    }

    private void drain(ByteBuffer buffer) throws IOException {
        buffer.flip();
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
        buffer.clear();
    }

    /** The partition's file, while it is open. */
    Path file() {
        return file;
    }

    @Override
    protected long examples() {
        return rows;
    }

    @Override
    protected DataSet read(int[] picked) throws IOException {
        FileChannel from = channel;
        try {
            return read(from, picked);
        } catch (ClosedChannelException e) {
            // a reader thread interrupted in a read (a prefetching reader being closed) closes the channel for all
            if (closed || e instanceof ClosedByInterruptException) {
                throw e;
            }
            return read(reopen(from), picked);
        }
    }

    private synchronized FileChannel reopen(FileChannel failed) throws IOException {
        if (channel == failed && !closed) {
            channel = FileChannel.open(file, StandardOpenOption.READ);
        }
        return channel;
    }

    private DataSet read(FileChannel from, int[] picked) throws IOException {
        int b = picked.length;
        float[] x = new float[Math.multiplyExact(b, width)];
        float[] y = new float[Math.multiplyExact(b, numClasses)];
        ByteBuffer record = ByteBuffer.allocate(recordBytes).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < b; i++) {
            int row = picked[i];
            if (row < 0 || row >= rows) {
                throw new IllegalArgumentException("row " + row + " of partition " + partition + " asked for,"
                        + " expected 0.." + (rows - 1));
            }
            record.clear();
            long at = (long) row * recordBytes;
            while (record.hasRemaining()) {
                if (from.read(record, at + record.position()) < 0) {
                    throw new EOFException(file + " ends at byte " + (at + record.position()) + ", row " + row
                            + " of partition " + partition + " needs bytes " + at + " to " + (at + recordBytes - 1));
                }
            }
            record.flip();
            record.asFloatBuffer().get(x, i * width, width);
            record.position(4 * width);
            if (classIndex) {
                y[i * numClasses + record.getInt()] = 1f;
            } else {
                record.asFloatBuffer().get(y, i * numClasses, numClasses);
            }
        }
        return new DataSet(Nd4j.create(x, new long[] {b, width}, 'c'), Nd4j.create(y, new long[] {b, numClasses},
                'c'));
    }

    /** Closes and deletes the file; again does nothing. */
    @Override
    public void close() throws IOException {
        closed = true;
        try {
            synchronized (this) {
                channel.close();
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @Override
    public String describe() {
        return String.format("partition %d spilled to %s, %,d rows of %d features", partition, file, rows, width);
    }
}

package io.lgc4j.spark;

import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.dataset.DataSet;

import java.io.IOException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(value = 2, unit = TimeUnit.MINUTES)
class SpilledPartitionTest {
    private static final Columns CLASS_INDEX = new Columns("features", Columns.Kind.VECTOR, 3, "label",
            Columns.Kind.NUMBER, 4);
    private static final Columns ONE_HOT = new Columns("features", Columns.Kind.ARRAY, 3, "label",
            Columns.Kind.ARRAY, 4);

    /** Row i: features i + 0.1, −i / 3, a double that float32 rounds; class i mod 4. */
    private static List<Row> classIndexRows(int n) {
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            rows.add(RowFactory.create(Vectors.dense(i + 0.1, -i / 3.0, Math.PI * i), (double) (i % 4)));
        }
        return rows;
    }

    private static float[] features(int i) {
        return new float[] {(float) (i + 0.1), (float) (-i / 3.0), (float) (Math.PI * i)};
    }

    private static List<Path> files(Path dir) throws IOException {
        try (Stream<Path> list = Files.list(dir)) {
            return list.toList();
        }
    }

    @Test
    void rowsShouldComeBackAsTheFloatsAndOneHotLabelsOfTheirColumnsInTheOrderAsked(@TempDir Path dir)
            throws IOException {
        try (SpilledPartition spilled = SpilledPartition.write(CLASS_INDEX, classIndexRows(37).iterator(), 37, 5,
                dir)) {
            assertEquals(List.of(spilled.file()), files(dir));
            assertTrue(spilled.file().getFileName().toString().startsWith(SpilledPartition.FILE_PREFIX + "5-"));
            assertEquals(37L * (3 + 1) * 4, Files.size(spilled.file()), "rows × (width + 1) × 4 bytes");
            assertEquals(37, spilled.examples());
            int[] picked = {36, 0, 17, 17, 5};
            DataSet batch = spilled.read(picked);
            assertArrayEquals(new long[] {5, 3}, batch.getFeatures().shape());
            assertArrayEquals(new long[] {5, 4}, batch.getLabels().shape());
            for (int r = 0; r < picked.length; r++) {
                assertArrayEquals(features(picked[r]), batch.getFeatures().getRow(r).toFloatVector(), "row " + r);
                float[] label = new float[4];
                label[picked[r] % 4] = 1f;
                assertArrayEquals(label, batch.getLabels().getRow(r).toFloatVector(), "label of row " + r);
            }
        }
        assertEquals(List.of(), files(dir), "closing deletes the file");
    }

    @Test
    void oneHotLabelColumnsShouldKeepEveryValueBitForBit(@TempDir Path dir) throws IOException {
        List<Row> rows = List.of(RowFactory.create(List.of(1f, 2f, 3f), List.of(0.1f, 0.7f, 0.1f, 0.1f)),
                RowFactory.create(List.of(-1f, Float.MIN_VALUE, 1e30f), List.of(0f, 0f, 0f, 1f)));
        try (SpilledPartition spilled = SpilledPartition.write(ONE_HOT, rows.iterator(), 2, 0, dir)) {
            assertEquals(2L * (3 + 4) * 4, Files.size(spilled.file()), "rows × (width + classes) × 4 bytes");
            DataSet batch = spilled.read(new int[] {1, 0});
            assertArrayEquals(new float[] {-1f, Float.MIN_VALUE, 1e30f, 1f, 2f, 3f},
                    batch.getFeatures().dup().data().asFloat());
            assertArrayEquals(new float[] {0f, 0f, 0f, 1f, 0.1f, 0.7f, 0.1f, 0.1f},
                    batch.getLabels().dup().data().asFloat());
        }
    }

    @Test
    void threadsReadingAtOnceShouldEachGetTheirOwnRows(@TempDir Path dir) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try (SpilledPartition spilled = SpilledPartition.write(CLASS_INDEX, classIndexRows(500).iterator(), 500, 1,
                dir)) {
            List<Future<Boolean>> reads = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int first = t * 60;
                reads.add(pool.submit(() -> {
                    for (int round = 0; round < 20; round++) {
                        int[] picked = new int[16];
                        for (int i = 0; i < picked.length; i++) {
                            picked[i] = (first + i * 3 + round) % 500;
                        }
                        DataSet batch = spilled.read(picked);
                        for (int i = 0; i < picked.length; i++) {
                            assertArrayEquals(features(picked[i]), batch.getFeatures().getRow(i).toFloatVector());
                        }
                    }
                    return true;
                }));
            }
            for (Future<Boolean> read : reads) {
                assertTrue(read.get(1, TimeUnit.MINUTES));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aReaderInterruptedInAReadShouldNotCloseTheFileForTheOthers(@TempDir Path dir) throws Exception {
        try (SpilledPartition spilled = SpilledPartition.write(CLASS_INDEX, classIndexRows(50).iterator(), 50, 0,
                dir)) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread interrupted = new Thread(() -> {
                Thread.currentThread().interrupt();
                try {
                    spilled.read(new int[] {1, 2});
                } catch (Throwable e) {
                    failure.set(e);
                }
            });
            interrupted.start();
            interrupted.join();
            assertInstanceOf(ClosedByInterruptException.class, failure.get());
            assertArrayEquals(features(7), spilled.read(new int[] {7}).getFeatures().getRow(0).toFloatVector());
        }
    }

    @Test
    void aPartitionThatIsNotWhatWasCountedShouldLeaveNoFile(@TempDir Path dir) throws IOException {
        IllegalStateException more = assertThrows(IllegalStateException.class,
                () -> SpilledPartition.write(CLASS_INDEX, classIndexRows(11).iterator(), 10, 3, dir));
        assertEquals("partition 3 holds more rows than the 10 counted before training: the DataFrame must give the"
                + " same rows every time it is read (cache or checkpoint a nondeterministic one)", more.getMessage());
        assertThrows(IllegalStateException.class,
                () -> SpilledPartition.write(CLASS_INDEX, classIndexRows(9).iterator(), 10, 3, dir));
        assertEquals(List.of(), files(dir));
    }

    @Test
    void aRowOutsideThePartitionShouldBeNamed(@TempDir Path dir) throws IOException {
        try (SpilledPartition spilled = SpilledPartition.write(CLASS_INDEX, classIndexRows(10).iterator(), 10, 2,
                dir)) {
            assertEquals("row 10 of partition 2 asked for, expected 0..9", assertThrows(
                    IllegalArgumentException.class, () -> spilled.read(new int[] {3, 10})).getMessage());
        }
        assertEquals(List.of(), files(dir));
    }
}

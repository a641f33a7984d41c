package io.lgc4j.datasource;

import io.lgc4j.core.data.DataSource;
import io.lgc4j.core.data.DataSourceContract;
import io.lgc4j.core.data.MemorySource;
import io.lgc4j.core.data.Shard;
import io.lgc4j.data.FashionMnist;
import io.lgc4j.data.PixelPreprocessing;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class IdxSourceTest extends DataSourceContract {
    @TempDir
    Path dir;

    /** Example i: a 1x3 image of pixels {@code [i, 2i mod 256, 7]}, class i mod 3. */
    @Override
    protected DataSource source(int examples) throws IOException {
        return write("numbered", examples).rawPixels().classes(3);
    }

    private IdxSource write(String name, int examples) throws IOException {
        byte[] pixels = new byte[examples * 3];
        byte[] labels = new byte[examples];
        for (int i = 0; i < examples; i++) {
            pixels[3 * i] = (byte) i;
            pixels[3 * i + 1] = (byte) (2 * i);
            pixels[3 * i + 2] = 7;
            labels[i] = (byte) (i % 3);
        }
        TestFiles.images(dir.resolve(name + "-images"), examples, 1, 3, pixels);
        TestFiles.labels(dir.resolve(name + "-labels"), labels);
        return IdxSource.in(dir.resolve(name + "-images"), dir.resolve(name + "-labels"));
    }

    @Test
    void batchesShouldBeBitEqualToFashionMnistInMemory() throws Exception {
        assumeTrue(Files.isDirectory(FashionMnist.DEFAULT_DIR), "Fashion-MNIST not installed");
        int n = 3_000;
        FashionMnist.Split split = FashionMnist.Split.TRAIN;
        TestFiles.images(dir.resolve(split.imagesFileName()), n, 28, 28, TestFiles.fashionMnistPrefix(
                TestFiles.fashionMnistFile(split.imagesFileName()), 16, 784, n));
        TestFiles.labels(dir.resolve(split.labelsFileName()), TestFiles.fashionMnistPrefix(
                TestFiles.fashionMnistFile(split.labelsFileName()), 8, 1, n));
        for (PixelPreprocessing pixels : PixelPreprocessing.values()) {
            MemorySource memory = MemorySource.of(
                    FashionMnist.load(FashionMnist.DEFAULT_DIR, split, n, pixels).toDataSet());
            try (IdxSource files = IdxSource.fashionMnist(dir, split).pixels(pixels)) {
                assertEquals(memory.plan(3, 16).examples(), files.plan(3, 16).examples());
                assertEquals(memory.plan(3, 16).stepsPerEpoch(), files.plan(3, 16).stepsPerEpoch());
                for (int rank = 0; rank < 3; rank++) {
                    Shard shard = new Shard(rank, 3, 16, rank, 0, 42);
                    DataSetIterator expected = memory.open(shard);
                    DataSetIterator actual = files.open(shard);
                    for (int step = 0; expected.hasNext(); step++) {
                        TestFiles.assertBitEqual(expected.next(), actual.next(), pixels + " rank " + rank
                                + " step " + step);
                    }
                    assertTrue(!actual.hasNext());
                }
            }
        }
    }

    @Test
    void limitShouldKeepTheFirstExamples() throws Exception {
        try (IdxSource source = write("limited", 103).rawPixels().classes(3).limit(50)) {
            assertEquals(50, source.plan(2, 5).examples());
            assertNotEquals(source.plan(2, 5).fingerprint(),
                    write("limited", 103).rawPixels().classes(3).plan(2, 5).fingerprint());
            assertTrue(source.describe().contains("50 examples of 1x3"), source.describe());
        }
    }

    @Test
    void aGzippedFileShouldBeRefused() throws Exception {
        write("plain", 30);
        Files.copy(dir.resolve("plain-images"), dir.resolve("plain-images.gz"));
        IdxSource named = IdxSource.in(dir.resolve("plain-images.gz"), dir.resolve("plain-labels"));
        UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> named.plan(1, 1));
        assertEquals("plain-images.gz: IDX streaming needs the uncompressed file (gunzip it), or use data.source:"
                + " memory", e.getMessage());

        Files.write(dir.resolve("gzipped"), new byte[] {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
        IdxSource content = IdxSource.in(dir.resolve("gzipped"), dir.resolve("plain-labels"));
        e = assertThrows(UncheckedIOException.class, () -> content.plan(1, 1));
        assertEquals("gzipped: a gzip stream: IDX streaming needs the uncompressed file (gunzip it), or use"
                + " data.source: memory", e.getMessage());
    }

    @Test
    void badFilesShouldBeRefusedNamingTheFile() throws Exception {
        write("ok", 30);
        Path images = dir.resolve("ok-images");
        Path labels = dir.resolve("ok-labels");

        UncheckedIOException e = assertThrows(UncheckedIOException.class,
                () -> IdxSource.in(dir.resolve("none"), labels).plan(1, 1));
        assertEquals(dir.resolve("none") + ": the IDX images file does not exist", e.getMessage());

        e = assertThrows(UncheckedIOException.class, () -> IdxSource.in(labels, labels).plan(1, 1));
        assertEquals("ok-labels: bad magic: expected 0x00000803 (unsigned-byte images) but found 0x00000801",
                e.getMessage());

        TestFiles.labels(dir.resolve("short-labels"), new byte[29]);
        e = assertThrows(UncheckedIOException.class,
                () -> IdxSource.in(images, dir.resolve("short-labels")).plan(1, 1));
        assertEquals("short-labels: count mismatch: expected as many labels as ok-images has images (30) but"
                + " found 29 labels", e.getMessage());

        Files.write(dir.resolve("cut-images"), Arrays.copyOf(Files.readAllBytes(images), 16 + 89));
        e = assertThrows(UncheckedIOException.class, () -> IdxSource.in(dir.resolve("cut-images"), labels)
                .plan(1, 1));
        assertEquals("cut-images: truncated: header declares 30 images of 1x3 (90 bytes) but the data ends after 89"
                + " bytes", e.getMessage());
    }

    @Test
    void aLabelOutsideTheClassesShouldFailItsBatch() throws Exception {
        try (IdxSource source = write("classes", 30).rawPixels().classes(2)) {
            DataSetIterator all = source.open(new Shard(0, 1, 30, 0, 0, 1));
            UncheckedIOException e = assertThrows(UncheckedIOException.class, all::next);
            assertTrue(e.getMessage().matches("idx .*: cannot read rank 0's batch of step 0 in epoch 0:"
                    + " classes-labels: label 2 of example \\d+ is outside \\[0, 2\\)"), e.getMessage());
        }
    }
}

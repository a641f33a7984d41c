package io.lgc4j.data;

import static io.lgc4j.data.IdxFiles.gzip;
import static io.lgc4j.data.IdxFiles.images;
import static io.lgc4j.data.IdxFiles.labels;
import static io.lgc4j.data.IdxFiles.write;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.dataset.DataSet;

import io.lgc4j.data.FashionMnist.Split;

class FashionMnistTest {

    @TempDir
    Path dir;

    @Test
    void shouldLoadGeneratedSplit() throws IOException {
        writeSplit(dir, Split.TEST, 3, 1, 0, 9);

        LabeledImages data = FashionMnist.load(dir, Split.TEST, FashionMnist.ALL, PixelPreprocessing.SCALE);

        assertEquals(3, data.size());
        assertEquals(28, data.rows());
        assertEquals(28, data.cols());
        assertArrayEquals(new int[] {1, 0, 9}, data.labels());
        assertEquals(FashionMnist.CLASS_NAMES, data.classNames());
        for (int i = 0; i < 3 * 784; i++) {
            assertEquals(IdxFiles.pixel(i) / 255f, data.features()[i], 1e-7f, "pixel " + i);
        }
    }

    @Test
    void shouldStandardizeWithTheTrainingMeanAndStd() throws IOException {
        writeSplit(dir, Split.TRAIN, 1, 4);

        LabeledImages data = FashionMnist.load(dir, Split.TRAIN, FashionMnist.ALL, PixelPreprocessing.STANDARDIZE);

        for (int i = 0; i < 784; i++) {
            double expected = (IdxFiles.pixel(i) / 255.0 - 0.2860) / 0.3530;
            assertEquals(expected, data.features()[i], 1e-6, "pixel " + i);
        }
        assertEquals(PixelPreprocessing.STANDARDIZE, data.preprocessing());
    }

    @Test
    void shouldKeepTheFirstLimitImages() throws IOException {
        writeSplit(dir, Split.TEST, 5, 0, 1, 2, 3, 4);

        LabeledImages data = FashionMnist.load(dir, Split.TEST, 2);

        assertEquals(2, data.size());
        assertArrayEquals(new int[] {0, 1}, data.labels());
        assertEquals(2 * 784, data.features().length);
    }

    @Test
    void shouldFallBackToUncompressedFiles() throws IOException {
        write(dir.resolve("t10k-images-idx3-ubyte"), images(2, 28, 28));
        write(dir.resolve("t10k-labels-idx1-ubyte.gz"), gzip(labels(3, 4)));

        LabeledImages data = FashionMnist.load(dir, Split.TEST, FashionMnist.ALL);

        assertArrayEquals(new int[] {3, 4}, data.labels());
    }

    @Test
    void shouldRejectCountMismatchBetweenImagesAndLabels() throws IOException {
        write(dir.resolve("t10k-images-idx3-ubyte.gz"), gzip(images(3, 28, 28)));
        write(dir.resolve("t10k-labels-idx1-ubyte.gz"), gzip(labels(1, 2)));

        IdxFormatException e = assertThrows(IdxFormatException.class,
                () -> FashionMnist.load(dir, Split.TEST, FashionMnist.ALL));

        assertEquals("t10k-labels-idx1-ubyte.gz: count mismatch: expected as many labels as "
                + "t10k-images-idx3-ubyte.gz has images (3) but found 2 labels", e.getMessage());
    }

    @Test
    void shouldRejectCountMismatchEvenWithALimit() throws IOException {
        write(dir.resolve("t10k-images-idx3-ubyte.gz"), gzip(images(3, 28, 28)));
        write(dir.resolve("t10k-labels-idx1-ubyte.gz"), gzip(labels(1, 2, 3, 4)));

        IdxFormatException e = assertThrows(IdxFormatException.class, () -> FashionMnist.load(dir, Split.TEST, 1));

        assertEquals("t10k-labels-idx1-ubyte.gz: count mismatch: expected as many labels as "
                + "t10k-images-idx3-ubyte.gz has images (3) but found 4 labels", e.getMessage());
    }

    @Test
    void shouldRejectLabelOutsideTheTenClasses() throws IOException {
        writeSplit(dir, Split.TEST, 3, 1, 10, 2);

        IdxFormatException e = assertThrows(IdxFormatException.class,
                () -> FashionMnist.load(dir, Split.TEST, FashionMnist.ALL));

        assertEquals("t10k-labels-idx1-ubyte.gz: bad label: expected 0..9 but found 10 at index 1", e.getMessage());
    }

    @Test
    void shouldRejectImagesThatAreNot28x28() throws IOException {
        write(dir.resolve("t10k-images-idx3-ubyte.gz"), gzip(images(2, 32, 32)));
        write(dir.resolve("t10k-labels-idx1-ubyte.gz"), gzip(labels(1, 2)));

        IdxFormatException e = assertThrows(IdxFormatException.class,
                () -> FashionMnist.load(dir, Split.TEST, FashionMnist.ALL));

        assertEquals("t10k-images-idx3-ubyte.gz: wrong image size: expected 28x28 but found 32x32", e.getMessage());
    }

    @Test
    void shouldListMissingFilesAndInstallHintWhenDirectoryIsMissing() {
        Path missingDir = dir.resolve("no-such-dir");

        DatasetNotFoundException e = assertThrows(DatasetNotFoundException.class,
                () -> FashionMnist.load(missingDir, Split.TRAIN, FashionMnist.ALL));

        assertEquals("Fashion-MNIST train split not found in " + missingDir + " (the directory does not exist): "
                + "missing " + missingDir.resolve("train-images-idx3-ubyte.gz") + ", "
                + missingDir.resolve("train-labels-idx1-ubyte.gz") + "; install it with: sudo apt-get install "
                + "dataset-fashion-mnist (Debian/Ubuntu), or pass the directory holding the four IDX .gz files "
                + "with data.path", e.getMessage());
        assertEquals(List.of(missingDir.resolve("train-images-idx3-ubyte.gz"),
                missingDir.resolve("train-labels-idx1-ubyte.gz")), e.missingFiles());
    }

    @Test
    void shouldSayADataPathThatIsAFileIsNotADirectory() throws IOException {
        Path file = dir.resolve("train-images-idx3-ubyte.gz");
        write(file, gzip(images(1, 28, 28)));

        DatasetNotFoundException e = assertThrows(DatasetNotFoundException.class,
                () -> FashionMnist.load(file, Split.TRAIN, FashionMnist.ALL));

        assertEquals("Fashion-MNIST train split not found in " + file + ": it is a file, not a directory; "
                + FashionMnist.INSTALL_HINT, e.getMessage());
    }

    @Test
    void shouldListOnlyTheMissingFile() throws IOException {
        write(dir.resolve("t10k-images-idx3-ubyte.gz"), gzip(images(1, 28, 28)));

        DatasetNotFoundException e = assertThrows(DatasetNotFoundException.class,
                () -> FashionMnist.load(dir, Split.TEST, FashionMnist.ALL));

        assertEquals("Fashion-MNIST test split not found in " + dir + ": missing "
                + dir.resolve("t10k-labels-idx1-ubyte.gz") + "; " + FashionMnist.INSTALL_HINT, e.getMessage());
    }

    @Test
    void shouldConvertToOneHotDataSet() throws IOException {
        writeSplit(dir, Split.TEST, 2, 3, 7);

        DataSet ds = FashionMnist.load(dir, Split.TEST, FashionMnist.ALL).toDataSet();

        assertArrayEquals(new long[] {2, 784}, ds.getFeatures().shape());
        assertArrayEquals(new long[] {2, 10}, ds.getLabels().shape());
        assertArrayEquals(new float[] {0, 0, 0, 1, 0, 0, 0, 0, 0, 0}, ds.getLabels().getRow(0).toFloatVector());
        assertArrayEquals(new float[] {0, 0, 0, 0, 0, 0, 0, 1, 0, 0}, ds.getLabels().getRow(1).toFloatVector());
    }

    /** Loads the installed test split; skipped where the data set is not installed. */
    @Test
    void shouldLoadTheRealTestSplit() throws IOException {
        assumeTrue(Files.isDirectory(FashionMnist.DEFAULT_DIR), "Fashion-MNIST not installed");

        LabeledImages test = FashionMnist.load(FashionMnist.DEFAULT_DIR, Split.TEST, FashionMnist.ALL,
                PixelPreprocessing.SCALE);

        assertEquals(10_000, test.size());
        int[] histogram = test.labelHistogram();
        int[] thousandEach = new int[10];
        Arrays.fill(thousandEach, 1000);
        assertArrayEquals(thousandEach, histogram);
        float min = Float.MAX_VALUE;
        float max = -Float.MAX_VALUE;
        double sum = 0;
        for (float x : test.features()) {
            min = Math.min(min, x);
            max = Math.max(max, x);
            sum += x;
        }
        assertEquals(0f, min);
        assertEquals(1f, max);
        assertEquals(0.286, sum / test.features().length, 0.005, "mean pixel");

        DataSet ds = test.toDataSet();
        assertArrayEquals(new long[] {10_000, 784}, ds.getFeatures().shape());
        assertArrayEquals(new long[] {10_000, 10}, ds.getLabels().shape());
        assertEquals(10_000.0, ds.getLabels().sumNumber().doubleValue(), 0.0);
    }

    private static void writeSplit(Path dir, Split split, int count, int... labelValues) throws IOException {
        write(dir.resolve(split.imagesFileName() + ".gz"), gzip(images(count, 28, 28)));
        write(dir.resolve(split.labelsFileName() + ".gz"), gzip(labels(labelValues)));
    }
}

package io.lgc4j.data;

import static io.lgc4j.data.IdxFiles.concat;
import static io.lgc4j.data.IdxFiles.gzip;
import static io.lgc4j.data.IdxFiles.idx;
import static io.lgc4j.data.IdxFiles.images;
import static io.lgc4j.data.IdxFiles.labels;
import static io.lgc4j.data.IdxFiles.withoutLast;
import static io.lgc4j.data.IdxFiles.write;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Arrays;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IdxReaderTest {

    @TempDir
    Path dir;

    private final IdxReader reader = new IdxReader();

    @Test
    void shouldRoundTripPlainImagesFile() throws IOException {
        Path file = write(dir.resolve("images-idx3-ubyte"), images(3, 4, 5));

        IdxImages read = reader.readImages(file);

        assertEquals(3, read.count());
        assertEquals(3, read.declaredCount());
        assertEquals(4, read.rows());
        assertEquals(5, read.cols());
        for (int i = 0; i < 3 * 4 * 5; i++) {
            assertEquals(IdxFiles.pixel(i), Byte.toUnsignedInt(read.pixels()[i]), "pixel " + i);
        }
        assertEquals(IdxFiles.pixel(2 * 20 + 3 * 5 + 4), read.pixel(2, 3, 4));
    }

    @Test
    void shouldRoundTripGzippedImagesFile() throws IOException {
        byte[] plain = images(3, 4, 5);
        Path plainFile = write(dir.resolve("plain"), plain);
        Path gzFile = write(dir.resolve("images-idx3-ubyte.gz"), gzip(plain));

        assertArrayEquals(reader.readImages(plainFile).pixels(), reader.readImages(gzFile).pixels());
    }

    @Test
    void shouldDetectGzipByMagicNotByName() throws IOException {
        Path gzipWithoutSuffix = write(dir.resolve("labels"), gzip(labels(1, 2, 3)));
        Path plainWithSuffix = write(dir.resolve("labels.gz"), labels(4, 5));

        assertArrayEquals(new byte[] {1, 2, 3}, reader.readLabels(gzipWithoutSuffix).labels());
        assertArrayEquals(new byte[] {4, 5}, reader.readLabels(plainWithSuffix).labels());
    }

    @Test
    void shouldRoundTripLabelsAsUnsignedBytes() throws IOException {
        Path file = write(dir.resolve("labels.gz"), gzip(labels(0, 9, 255, 128)));

        IdxLabels read = reader.readLabels(file);

        assertEquals(4, read.count());
        assertEquals(255, read.label(2));
        assertEquals(128, read.label(3));
    }

    @Test
    void shouldReadEmptyFile() throws IOException {
        Path file = write(dir.resolve("empty.gz"), gzip(images(0, 28, 28)));

        IdxImages read = reader.readImages(file);

        assertEquals(0, read.count());
        assertEquals(28, read.rows());
    }

    @Test
    void shouldKeepOnlyTheFirstLimitItems() throws IOException {
        Path file = write(dir.resolve("images.gz"), gzip(images(10, 2, 3)));

        IdxImages read = reader.readImages(file, 4);

        assertEquals(4, read.count());
        assertEquals(10, read.declaredCount());
        assertEquals(4 * 6, read.pixels().length);
        assertEquals(IdxFiles.pixel(23), read.pixel(3, 1, 2));
    }

    @Test
    void shouldCheckTheWholeFileEvenWithALimit() throws IOException {
        Path file = write(dir.resolve("images.gz"), gzip(withoutLast(images(10, 2, 3), 1)));

        IdxFormatException e = assertThrows(IdxFormatException.class, () -> reader.readImages(file, 4));

        assertEquals("images.gz: truncated: header declares 10 images of 2x3 (60 bytes) but the data ends after "
                + "59 bytes", e.getMessage());
    }

    @Test
    void shouldReadGoldenFixtureWrittenByAnIndependentWriter() throws IOException, URISyntaxException {
        // Written by Python's struct + gzip: 2 images of 3x2, pixel i = (50 * i) % 256; plain labels 7, 2.
        Path images = resource("tiny-images-idx3-ubyte.gz");
        Path labels = resource("tiny-labels-idx1-ubyte");

        IdxImages readImages = reader.readImages(images);
        IdxLabels readLabels = reader.readLabels(labels);

        assertEquals(2, readImages.count());
        assertEquals(3, readImages.rows());
        assertEquals(2, readImages.cols());
        int[] pixels = new int[12];
        for (int i = 0; i < pixels.length; i++) {
            pixels[i] = Byte.toUnsignedInt(readImages.pixels()[i]);
        }
        assertArrayEquals(new int[] {0, 50, 100, 150, 200, 250, 44, 94, 144, 194, 244, 38}, pixels);
        assertEquals(7, readLabels.label(0));
        assertEquals(2, readLabels.label(1));
    }

    @Test
    void shouldRejectTruncatedImagesFile() throws IOException {
        Path file = write(dir.resolve("train-images-idx3-ubyte.gz"),
                gzip(withoutLast(images(3, 28, 28), 3 * 784 - 1234)));

        IdxFormatException e = assertThrows(IdxFormatException.class, () -> reader.readImages(file));

        assertEquals("train-images-idx3-ubyte.gz: truncated: header declares 3 images of 28x28 (2352 bytes) but "
                + "the data ends after 1234 bytes", e.getMessage());
        assertEquals(file, e.file());
    }

    @Test
    void shouldRejectTruncatedLabelsFile() throws IOException {
        Path file = write(dir.resolve("labels"), withoutLast(labels(1, 2, 3), 2));

        IdxFormatException e = assertThrows(IdxFormatException.class, () -> reader.readLabels(file));

        assertEquals("labels: truncated: header declares 3 labels (3 bytes) but the data ends after 1 bytes",
                e.getMessage());
    }

    @Test
    void shouldRejectTruncatedHeader() throws IOException {
        Path file = write(dir.resolve("images"), Arrays.copyOf(images(3, 28, 28), 10));

        IdxFormatException e = assertThrows(IdxFormatException.class, () -> reader.readImages(file));

        assertEquals("images: truncated: expected a 16-byte header (magic and 3 sizes) but the file ends after "
                + "10 bytes", e.getMessage());
    }

    @Test
    void shouldRejectEmptyFile() throws IOException {
        Path file = write(dir.resolve("images"), new byte[0]);

        IdxFormatException e = assertThrows(IdxFormatException.class, () -> reader.readImages(file));

        assertEquals("images: truncated: expected a 16-byte header (magic 0x00000803 and 3 sizes) but the file "
                + "ends after 0 bytes", e.getMessage());
    }

    @Test
    void shouldRejectBadMagic() throws IOException {
        Path file = write(dir.resolve("images"), idx(0x00000d03, new int[] {1, 1, 1}, new byte[1]));

        IdxFormatException e = assertThrows(IdxFormatException.class, () -> reader.readImages(file));

        assertEquals("images: bad magic: expected 0x00000803 (unsigned-byte images) but found 0x00000d03",
                e.getMessage());
    }

    @Test
    void shouldRejectLabelsFileReadAsImages() throws IOException {
        Path file = write(dir.resolve("t10k-labels-idx1-ubyte"), labels(1, 2));

        IdxFormatException e = assertThrows(IdxFormatException.class, () -> reader.readImages(file));

        assertEquals("t10k-labels-idx1-ubyte: wrong dimension count: expected 3 (images: count, rows, cols, magic "
                + "0x00000803) but found 1 (magic 0x00000801)", e.getMessage());
    }

    @Test
    void shouldRejectTrailingGarbage() throws IOException {
        Path file = write(dir.resolve("images.gz"), gzip(concat(images(2, 2, 2), new byte[] {1, 2, 3})));

        IdxFormatException e = assertThrows(IdxFormatException.class, () -> reader.readImages(file));

        assertEquals("images.gz: trailing garbage: header declares 2 images of 2x2 (8 bytes) but 3 more bytes "
                + "follow the data", e.getMessage());
    }

    @Test
    void shouldRejectTruncatedGzipStream() throws IOException {
        byte[] compressed = gzip(images(20, 28, 28));
        Path file = write(dir.resolve("images.gz"), withoutLast(compressed, compressed.length / 2));

        IdxFormatException e = assertThrows(IdxFormatException.class, () -> reader.readImages(file));

        assertTrue(e.getMessage().startsWith("images.gz: truncated gzip stream: the compressed data ends after "),
                e.getMessage());
    }

    @Test
    void shouldRejectGzipStreamMissingItsTrailer() throws IOException {
        Path file = write(dir.resolve("labels.gz"), withoutLast(gzip(labels(1, 2, 3)), 4));

        IdxFormatException e = assertThrows(IdxFormatException.class, () -> reader.readLabels(file));

        assertEquals("labels.gz: truncated gzip stream: the compressed data ends after 11 decompressed bytes",
                e.getMessage());
    }

    @Test
    void shouldRejectIncompleteGzipHeader() throws IOException {
        Path file = write(dir.resolve("labels.gz"), Arrays.copyOf(gzip(labels(1)), 5));

        IdxFormatException e = assertThrows(IdxFormatException.class, () -> reader.readLabels(file));

        assertEquals("labels.gz: truncated gzip stream: the gzip header is incomplete", e.getMessage());
    }

    @Test
    void shouldRejectGzipStreamWithBadChecksum() throws IOException {
        byte[] compressed = gzip(labels(1, 2, 3));
        compressed[compressed.length - 8] ^= 0x01;    // first byte of the CRC-32 in the trailer
        Path file = write(dir.resolve("labels.gz"), compressed);

        IdxFormatException e = assertThrows(IdxFormatException.class, () -> reader.readLabels(file));

        assertEquals("labels.gz: corrupt gzip stream after 11 decompressed bytes: Corrupt GZIP trailer",
                e.getMessage());
    }

    @Test
    void shouldRejectDeclaredSizeAboveTheLimitBeforeAllocating() throws IOException {
        Path file = write(dir.resolve("images"), idx(IdxReader.IMAGES_MAGIC, new int[] {-1, 28, 28}, new byte[0]));

        IdxFormatException e = assertThrows(IdxFormatException.class, () -> reader.readImages(file));

        assertEquals("images: declared size too large: header declares 4294967295 images of 28x28 (3367254359280 "
                + "bytes) but this reader accepts at most 1073741824 bytes", e.getMessage());
    }

    @Test
    void shouldApplyAConfiguredSizeLimit() throws IOException {
        Path file = write(dir.resolve("labels"), labels(1, 2, 3, 4, 5));

        IdxFormatException e = assertThrows(IdxFormatException.class, () -> new IdxReader(4).readLabels(file));

        assertEquals("labels: declared size too large: header declares 5 labels (5 bytes) but this reader accepts "
                + "at most 4 bytes", e.getMessage());
    }

    @Test
    void shouldRejectImagesWithZeroRows() throws IOException {
        Path file = write(dir.resolve("images"), idx(IdxReader.IMAGES_MAGIC, new int[] {5, 0, 28}, new byte[0]));

        IdxFormatException e = assertThrows(IdxFormatException.class, () -> reader.readImages(file));

        assertEquals("images: bad size: header declares 5 images of 0x28 (0 bytes) but every dimension after the "
                + "count must be at least 1", e.getMessage());
    }

    @Test
    void shouldRejectNonPositiveLimit() throws IOException {
        Path file = write(dir.resolve("labels"), labels(1));

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> reader.readLabels(file, 0));

        assertEquals("limit=0 must be positive", e.getMessage());
    }

    private static Path resource(String name) throws URISyntaxException {
        return Path.of(IdxReaderTest.class.getResource("/data/" + name).toURI());
    }
}

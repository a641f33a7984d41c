package io.lgc4j.data;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Unsigned-byte images read from an IDX file (magic {@code 0x00000803}): the first {@link #count()} images, row-major,
 * one byte per pixel.
 *
 * <pre>{@code
 * IdxImages images = new IdxReader().readImages(Path.of("t10k-images-idx3-ubyte.gz"));
 * int firstPixel = images.pixel(0, 0, 0);   // 0..255
 * }</pre>
 *
 * <p>Like every record holding an array, {@code equals} compares the array by identity.
 *
 * @param source        the file the images were read from
 * @param declaredCount how many images the file's header declares (and the file holds)
 * @param rows          image height
 * @param cols          image width
 * @param pixels        {@code count() * rows * cols} bytes, image after image, each row-major; read as unsigned
 */
public record IdxImages(Path source, int declaredCount, int rows, int cols, byte[] pixels) {

    // Checks that the components agree; the record's @param tags document them.
    public IdxImages {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(pixels, "pixels");
        if (rows < 1 || cols < 1) {
            throw new IllegalArgumentException("rows=" + rows + " and cols=" + cols + " must be positive");
        }
        long imageBytes = (long) rows * cols;
        if (pixels.length % imageBytes != 0 || pixels.length / imageBytes > declaredCount) {
            throw new IllegalArgumentException("pixels.length=" + pixels.length + " is not a whole number of "
                    + rows + "x" + cols + " images up to declaredCount=" + declaredCount);
        }
    }

    /** @return how many images were kept (at most {@link #declaredCount()}) */
    public int count() {
        return pixels.length / (rows * cols);
    }

    /** @return bytes per image, {@code rows * cols} */
    public int pixelsPerImage() {
        return rows * cols;
    }

    /**
     * @param image index of the image
     * @param row   row within the image
     * @param col   column within the image
     * @return the pixel value, 0..255
     */
    public int pixel(int image, int row, int col) {
        Objects.checkIndex(row, rows);
        Objects.checkIndex(col, cols);
        return Byte.toUnsignedInt(pixels[Objects.checkIndex(image, count()) * rows * cols + row * cols + col]);
    }
}

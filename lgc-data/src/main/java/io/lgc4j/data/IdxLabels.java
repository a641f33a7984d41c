package io.lgc4j.data;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Unsigned-byte labels read from an IDX file (magic {@code 0x00000801}): the first {@link #count()} labels.
 *
 * <pre>{@code
 * IdxLabels labels = new IdxReader().readLabels(Path.of("t10k-labels-idx1-ubyte.gz"));
 * int first = labels.label(0);   // 0..255
 * }</pre>
 *
 * <p>Like every record holding an array, {@code equals} compares the array by identity.
 *
 * @param source        the file the labels were read from
 * @param declaredCount how many labels the file's header declares (and the file holds)
 * @param labels        the first {@code count()} labels, one byte each, read as unsigned
 */
public record IdxLabels(Path source, int declaredCount, byte[] labels) {

    // Checks that the components agree; the record's @param tags document them.
    public IdxLabels {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(labels, "labels");
        if (labels.length > declaredCount) {
            throw new IllegalArgumentException(
                    "labels.length=" + labels.length + " > declaredCount=" + declaredCount);
        }
    }

    /** @return how many labels were kept (at most {@link #declaredCount()}) */
    public int count() {
        return labels.length;
    }

    /**
     * @param index index of the label
     * @return the label value, 0..255
     */
    public int label(int index) {
        return Byte.toUnsignedInt(labels[Objects.checkIndex(index, labels.length)]);
    }
}

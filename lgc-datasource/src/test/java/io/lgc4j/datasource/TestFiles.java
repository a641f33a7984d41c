package io.lgc4j.datasource;

import io.lgc4j.data.FashionMnist;
import io.lgc4j.data.IdxReader;
import io.lgc4j.data.PixelPreprocessing;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.DataSetPreProcessor;
import org.nd4j.linalg.factory.Nd4j;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/** Writes IDX and CSV files for the tests, and compares batches bit for bit. */
final class TestFiles {

    private TestFiles() {
    }

    /** An IDX file: big-endian magic, one 32-bit size per dimension, then the data. */
    static void idx(Path file, int magic, int[] dims, byte[] data) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(4 + 4 * dims.length + data.length);
        buffer.putInt(magic);
        for (int dim : dims) {
            buffer.putInt(dim);
        }
        Files.write(file, buffer.put(data).array());
    }

    static void images(Path file, int count, int rows, int cols, byte[] pixels) throws IOException {
        idx(file, IdxReader.IMAGES_MAGIC, new int[] {count, rows, cols}, pixels);
    }

    static void labels(Path file, byte[] labels) throws IOException {
        idx(file, IdxReader.LABELS_MAGIC, new int[] {labels.length}, labels);
    }

    /** The first {@code count} records of a Fashion-MNIST file, gzipped or not, without its header. */
    static byte[] fashionMnistPrefix(Path file, int headerBytes, int recordBytes, int count) throws IOException {
        try (InputStream raw = Files.newInputStream(file);
             DataInputStream in = new DataInputStream(file.toString().endsWith(".gz") ? new GZIPInputStream(raw)
                     : raw)) {
            in.skipNBytes(headerBytes);
            byte[] data = new byte[recordBytes * count];
            in.readFully(data);
            return data;
        }
    }

    /** Where Fashion-MNIST's training file of that name is, gzipped or not. */
    static Path fashionMnistFile(String name) {
        Path gz = FashionMnist.DEFAULT_DIR.resolve(name + ".gz");
        return Files.isRegularFile(gz) ? gz : FashionMnist.DEFAULT_DIR.resolve(name);
    }

    /** Applies {@code pixels} to features holding pixel values 0 … 255, as FashionMnist.load does. */
    static DataSetPreProcessor pixels(PixelPreprocessing pixels) {
        return batch -> {
            INDArray features = batch.getFeatures();
            float[] values = floats(features);
            for (int i = 0; i < values.length; i++) {
                values[i] = pixels.apply((int) values[i]);
            }
            batch.setFeatures(Nd4j.create(values, features.shape(), DataType.FLOAT));
        };
    }

    /** Same shapes, same data type, same float bits. */
    static void assertBitEqual(DataSet expected, DataSet actual, String what) {
        assertArrayEquals(expected.getFeatures().shape(), actual.getFeatures().shape(), what + ": features shape");
        assertArrayEquals(expected.getLabels().shape(), actual.getLabels().shape(), what + ": labels shape");
        assertArrayEquals(new Object[] {expected.getFeatures().dataType(), expected.getLabels().dataType()},
                new Object[] {actual.getFeatures().dataType(), actual.getLabels().dataType()}, what + ": types");
        assertArrayEquals(floats(expected.getFeatures()), floats(actual.getFeatures()), what + ": features");
        assertArrayEquals(floats(expected.getLabels()), floats(actual.getLabels()), what + ": labels");
    }

    /** Every value of {@code array}, in C order (assertArrayEquals on floats compares their bits). */
    static float[] floats(INDArray array) {
        return array.dup('c').data().asFloat();
    }
}

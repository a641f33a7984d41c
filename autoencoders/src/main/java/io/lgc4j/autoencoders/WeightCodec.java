package io.lgc4j.autoencoders;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * The versioned byte form of a {@link WeightSet}: what ships once from the trainer of an autoencoder to the ranks
 * that encode or decode (the bytes a topology counts as AE weights).
 *
 * <pre>
 * offset  size  field (little-endian)
 *      0     4  magic "LGCW"
 *      4     2  version (1)
 *      6     1  part (1 encoder, 2 ring decoder, 3 parameter-server decoder)
 *      7     1  reserved, 0
 *      8     4  μ, the compact-vector length the weights were trained for
 *     12     2  tensor count T
 *     14        T tensors: name length (u16), name (UTF-8), rank r (u8), r dimensions (i32), then the
 *               product of the dimensions float32 values, row-major
 *   end-4     4  CRC32C of every byte before it
 * </pre>
 *
 * <p>{@link #read} checks the whole form against the weight set it loads into, before changing anything: a wrong
 * magic, version, part, μ, tensor name or shape, a truncated or over-long form and a checksum mismatch are each
 * rejected with a message naming what was expected and what was found.
 */
public final class WeightCodec {

    /** The version this build writes and reads. */
    public static final int VERSION = 1;

    private static final byte[] MAGIC = {'L', 'G', 'C', 'W'};
    private static final int MAX_NAME = 256;
    private static final int MAX_RANK = 8;

    private WeightCodec() {
    }

    /** The byte form of {@code weights}, trained for compact vectors of length {@code mu}. */
    public static byte[] write(WeightSet weights, int mu) {
        int size = 4 + 2 + 1 + 1 + 4 + 2;
        for (Map.Entry<String, INDArray> e : weights.tensors().entrySet()) {
            size += 2 + e.getKey().getBytes(StandardCharsets.UTF_8).length + 1 + 4 * e.getValue().rank()
                    + 4 * Math.toIntExact(e.getValue().length());
        }
        size += 4;
        ByteBuffer b = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        b.put(MAGIC).putShort((short) VERSION).put((byte) weights.part().id()).put((byte) 0).putInt(mu)
                .putShort((short) weights.tensors().size());
        for (Map.Entry<String, INDArray> e : weights.tensors().entrySet()) {
            byte[] name = e.getKey().getBytes(StandardCharsets.UTF_8);
            b.putShort((short) name.length).put(name).put((byte) e.getValue().rank());
            for (long d : e.getValue().shape()) {
                b.putInt((int) d);
            }
            for (float v : e.getValue().dup('c').data().asFloat()) {
                b.putFloat(v);
            }
        }
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, b.position());
        b.putInt((int) crc.getValue());
        return b.array();
    }

    /**
     * Loads {@code bytes} into {@code target} (an autoencoder's encoder or decoder built from the receiving side's
     * configuration for compact vectors of length {@code mu}).
     *
     * @throws WeightFormatException if the bytes are not a weight set of the same part, μ, names and shapes
     */
    public static void read(byte[] bytes, WeightSet target, int mu) {
        if (bytes.length < 18) {
            throw new WeightFormatException("autoencoder weights: " + bytes.length
                    + " bytes is shorter than the 18-byte minimum (header and checksum)");
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length - 4);
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        byte[] magic = new byte[4];
        b.get(magic);
        if (!Arrays.equals(magic, MAGIC)) {
            throw new WeightFormatException("autoencoder weights: expected magic \"LGCW\", found bytes "
                    + Arrays.toString(magic));
        }
        int version = Short.toUnsignedInt(b.getShort());
        if (version != VERSION) {
            throw new WeightFormatException("autoencoder weights: version " + version + ", this build reads version "
                    + VERSION);
        }
        int stored = b.getInt(bytes.length - 4);
        if (stored != (int) crc.getValue()) {
            throw new WeightFormatException(String.format("autoencoder weights: checksum mismatch (stored %08x, "
                    + "computed %08x): the bytes are corrupt", stored, (int) crc.getValue()));
        }
        WeightSet.Part part = WeightSet.Part.byId(Byte.toUnsignedInt(b.get()));
        if (part != target.part()) {
            throw new WeightFormatException("autoencoder weights: expected the " + target.part()
                    + " weights, found " + (part == null ? "an unknown part" : "the " + part + " weights"));
        }
        b.get();
        int storedMu = b.getInt();
        if (storedMu != mu) {
            throw new WeightFormatException("autoencoder weights: trained for compact vectors of length μ = "
                    + storedMu + ", but this autoencoder is configured for μ = " + mu);
        }
        int count = Short.toUnsignedInt(b.getShort());
        Map<String, INDArray> expected = target.tensors();
        if (count != expected.size()) {
            throw new WeightFormatException("autoencoder weights: " + count + " tensors, the configuration expects "
                    + expected.size() + " " + expected.keySet());
        }
        INDArray[] loaded = new INDArray[count];
        int t = 0;
        try {
            for (Map.Entry<String, INDArray> e : expected.entrySet()) {
                int nameLength = Short.toUnsignedInt(b.getShort());
                if (nameLength > MAX_NAME || nameLength > b.remaining()) {
                    throw new WeightFormatException("autoencoder weights: tensor " + t + " declares a name of "
                            + nameLength + " bytes; at most " + Math.min(MAX_NAME, b.remaining()) + " fit");
                }
                byte[] name = new byte[nameLength];
                b.get(name);
                String found = new String(name, StandardCharsets.UTF_8);
                if (!found.equals(e.getKey())) {
                    throw new WeightFormatException("autoencoder weights: tensor " + t + " is '" + found
                            + "', the configuration expects '" + e.getKey() + "'");
                }
                int rank = Byte.toUnsignedInt(b.get());
                if (rank > MAX_RANK) {
                    throw new WeightFormatException("autoencoder weights: tensor '" + found + "' declares rank "
                            + rank + ", at most " + MAX_RANK);
                }
                long[] shape = new long[rank];
                for (int i = 0; i < rank; i++) {
                    shape[i] = b.getInt();
                }
                if (!Arrays.equals(shape, e.getValue().shape())) {
                    throw new WeightFormatException("autoencoder weights: tensor '" + found + "' has shape "
                            + Arrays.toString(shape) + ", the configuration expects "
                            + Arrays.toString(e.getValue().shape()));
                }
                int n = Math.toIntExact(e.getValue().length());
                if ((long) n * 4 > b.remaining() - 4) {
                    throw new WeightFormatException("autoencoder weights: truncated in tensor '" + found
                            + "': its " + n + " floats need " + 4L * n + " bytes, " + (b.remaining() - 4)
                            + " remain");
                }
                float[] values = new float[n];
                b.asFloatBuffer().get(values);
                b.position(b.position() + 4 * n);
                loaded[t++] = Nd4j.create(values, shape, 'c');
            }
        } catch (BufferUnderflowException e) {
            throw new WeightFormatException("autoencoder weights: truncated in tensor " + t + " of " + count);
        }
        if (b.remaining() != 4) {
            throw new WeightFormatException("autoencoder weights: " + (b.remaining() - 4)
                    + " bytes follow the last tensor, expected none");
        }
        t = 0;
        for (INDArray array : expected.values()) {
            array.assign(loaded[t++]);
        }
    }

    /** A weight form that does not match what the receiver expects. */
    public static final class WeightFormatException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        WeightFormatException(String message) {
            super(message);
        }
    }
}

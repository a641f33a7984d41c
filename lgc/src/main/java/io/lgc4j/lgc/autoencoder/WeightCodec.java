package io.lgc4j.lgc.autoencoder;

import io.lgc4j.lgc.wire.WeightsDescriptor;
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
 * Writes and reads the versioned byte form of a {@link WeightSet}: what ships once from an autoencoder's trainer to
 * the ranks that encode or decode (the payload of a {@link io.lgc4j.lgc.wire.Weights} frame). The layout, offsets and
 * limits are {@link WeightsDescriptor}.
 *
 * <p>{@link #read} checks the whole form against the weight set it loads into before changing anything: a wrong
 * magic, version, part, μ, tensor name or shape, a truncated or over-long form and a checksum mismatch are each
 * rejected with a message naming what was expected and what was found.
 */
public final class WeightCodec {
    private static final byte[] MAGIC = WeightsDescriptor.MAGIC;

    /** The version this build writes and reads ({@link WeightsDescriptor#VERSION}). */
    public static final int VERSION = WeightsDescriptor.VERSION;

    private WeightCodec() {
    }

    /** The byte form of {@code weights}, trained for compact vectors of length {@code mu}. */
    public static byte[] write(WeightSet weights, int mu) {
        ByteBuffer b = ByteBuffer.allocate(length(weights)).order(ByteOrder.LITTLE_ENDIAN);
        b.put(WeightsDescriptor.MAGIC_OFFSET, MAGIC)
                .putShort(WeightsDescriptor.VERSION_OFFSET, (short) VERSION)
                .put(WeightsDescriptor.PART_OFFSET, (byte) weights.part().id())
                .put(WeightsDescriptor.RESERVED_OFFSET, (byte) 0)
                .putInt(WeightsDescriptor.MU_OFFSET, mu)
                .putShort(WeightsDescriptor.TENSOR_COUNT_OFFSET, (short) weights.tensors().size())
                .position(WeightsDescriptor.HEADER_LENGTH);
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

    /** The length in bytes of the byte form of {@code weights} (the same for every μ). */
    static int length(WeightSet weights) {
        long size = WeightsDescriptor.HEADER_LENGTH;
        for (Map.Entry<String, INDArray> e : weights.tensors().entrySet()) {
            size += WeightsDescriptor.tensorLength(e.getKey().getBytes(StandardCharsets.UTF_8).length,
                    e.getValue().rank(), e.getValue().length());
        }
        return Math.toIntExact(size + WeightsDescriptor.TRAILER_LENGTH);
    }

    /**
     * Loads {@code bytes} into {@code target} (an autoencoder's encoder or decoder built from the receiving side's
     * configuration for compact vectors of length {@code mu}).
     *
     * @throws WeightFormatException if the bytes are not a weight set of the same part, μ, names and shapes
     */
    public static void read(byte[] bytes, WeightSet target, int mu) {
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        int count = header(bytes, b, target, mu);
        b.position(WeightsDescriptor.HEADER_LENGTH);
        Map<String, INDArray> expected = target.tensors();
        if (count != expected.size()) {
            throw new WeightFormatException("autoencoder weights: " + count + " tensors, the configuration expects "
                    + expected.size() + " " + expected.keySet());
        }
        INDArray[] loaded = new INDArray[count];
        int t = 0;
        try {
            for (Map.Entry<String, INDArray> e : expected.entrySet()) {
                loaded[t] = tensor(b, t, e.getKey(), e.getValue());
                t++;
            }
        } catch (BufferUnderflowException e) {
            throw new WeightFormatException("autoencoder weights: truncated in tensor " + t + " of " + count);
        }
        int after = b.remaining() - WeightsDescriptor.TRAILER_LENGTH;
        if (after != 0) {
            throw new WeightFormatException("autoencoder weights: " + after
                    + " bytes follow the last tensor, expected none");
        }
        t = 0;
        for (INDArray array : expected.values()) {
            array.assign(loaded[t++]);
        }
    }

    /**
     * The header and the trailer's checksum: magic, version, CRC32C, the part {@code target} is and μ.
     *
     * @return the tensor count the header declares
     */
    private static int header(byte[] bytes, ByteBuffer b, WeightSet target, int mu) {
        if (bytes.length < WeightsDescriptor.MIN_LENGTH) {
            throw new WeightFormatException("autoencoder weights: " + bytes.length + " bytes is shorter than the "
                    + WeightsDescriptor.MIN_LENGTH + "-byte minimum (header and checksum)");
        }
        int crcOffset = bytes.length - WeightsDescriptor.TRAILER_LENGTH;
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, crcOffset);
        byte[] magic = Arrays.copyOfRange(bytes, WeightsDescriptor.MAGIC_OFFSET,
                WeightsDescriptor.MAGIC_OFFSET + MAGIC.length);
        if (!Arrays.equals(magic, MAGIC)) {
            throw new WeightFormatException("autoencoder weights: expected magic \"LGCW\", found bytes "
                    + Arrays.toString(magic));
        }
        int version = Short.toUnsignedInt(b.getShort(WeightsDescriptor.VERSION_OFFSET));
        if (version != VERSION) {
            throw new WeightFormatException("autoencoder weights: version " + version + ", this build reads version "
                    + VERSION);
        }
        int stored = b.getInt(crcOffset);
        if (stored != (int) crc.getValue()) {
            throw new WeightFormatException(String.format("autoencoder weights: checksum mismatch (stored %08x, "
                    + "computed %08x): the bytes are corrupt", stored, (int) crc.getValue()));
        }
        WeightSet.Part part = WeightSet.Part.byId(Byte.toUnsignedInt(b.get(WeightsDescriptor.PART_OFFSET)));
        if (part != target.part()) {
            throw new WeightFormatException("autoencoder weights: expected the " + target.part()
                    + " weights, found " + (part == null ? "an unknown part" : "the " + part + " weights"));
        }
        int storedMu = b.getInt(WeightsDescriptor.MU_OFFSET);
        if (storedMu != mu) {
            throw new WeightFormatException("autoencoder weights: trained for compact vectors of length μ = "
                    + storedMu + ", but this autoencoder is configured for μ = " + mu);
        }
        return Short.toUnsignedInt(b.getShort(WeightsDescriptor.TENSOR_COUNT_OFFSET));
    }

    /** Tensor {@code t} at {@code b}'s position: its name, rank and shape as {@code like}'s, then its values. */
    private static INDArray tensor(ByteBuffer b, int t, String name, INDArray like) {
        int nameLength = Short.toUnsignedInt(b.getShort());
        if (nameLength > WeightsDescriptor.MAX_NAME_LENGTH || nameLength > b.remaining()) {
            throw new WeightFormatException("autoencoder weights: tensor " + t + " declares a name of "
                    + nameLength + " bytes; at most "
                    + Math.min(WeightsDescriptor.MAX_NAME_LENGTH, b.remaining()) + " fit");
        }
        byte[] bytes = new byte[nameLength];
        b.get(bytes);
        String found = new String(bytes, StandardCharsets.UTF_8);
        if (!found.equals(name)) {
            throw new WeightFormatException("autoencoder weights: tensor " + t + " is '" + found
                    + "', the configuration expects '" + name + "'");
        }
        int rank = Byte.toUnsignedInt(b.get());
        if (rank > WeightsDescriptor.MAX_RANK) {
            throw new WeightFormatException("autoencoder weights: tensor '" + found + "' declares rank "
                    + rank + ", at most " + WeightsDescriptor.MAX_RANK);
        }
        long[] shape = new long[rank];
        for (int i = 0; i < rank; i++) {
            shape[i] = b.getInt();
        }
        if (!Arrays.equals(shape, like.shape())) {
            throw new WeightFormatException("autoencoder weights: tensor '" + found + "' has shape "
                    + Arrays.toString(shape) + ", the configuration expects " + Arrays.toString(like.shape()));
        }
        int n = Math.toIntExact(like.length());
        long valueBytes = (long) WeightsDescriptor.VALUE_SIZE * n;
        int left = b.remaining() - WeightsDescriptor.TRAILER_LENGTH;
        if (valueBytes > left) {
            throw new WeightFormatException("autoencoder weights: truncated in tensor '" + found
                    + "': its " + n + " floats need " + valueBytes + " bytes, " + left + " remain");
        }
        float[] values = new float[n];
        b.asFloatBuffer().get(values);
        b.position(b.position() + (int) valueBytes);
        return Nd4j.create(values, shape, 'c');
    }

    /** A weight form that does not match what the receiver expects. */
    public static final class WeightFormatException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        WeightFormatException(String message) {
            super(message);
        }
    }
}

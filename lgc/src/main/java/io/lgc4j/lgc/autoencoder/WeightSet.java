package io.lgc4j.lgc.autoencoder;

import io.lgc4j.lgc.wire.WeightsDescriptor;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The named weight tensors of one part of an autoencoder (the encoder, or one decoder), in a fixed order.
 *
 * <p>The arrays are shared with every SameDiff graph that uses the part, so an update applied here is what the next
 * encode or decode sees. Initialization follows PyTorch's convolution default, uniform in ±1/√fanIn for weights and
 * biases, drawn from a {@link SplittableRandom} so a seed gives the same weights on every backend.
 */
public final class WeightSet {

    private final Part part;
    private final Map<String, INDArray> tensors = new LinkedHashMap<>();

    WeightSet(Part part) {
        this.part = part;
    }

    /** The part of an autoencoder these weights belong to. */
    public Part part() {
        return part;
    }

    /** The tensors by name, in their fixed order. */
    public Map<String, INDArray> tensors() {
        return Collections.unmodifiableMap(tensors);
    }

    /** The number of floats in all tensors. */
    public long size() {
        return tensors.values().stream().mapToLong(INDArray::length).sum();
    }

    /** Adds a weight of {@code shape} with fan-in {@code fanIn} and its bias of {@code biasLength}. */
    void addLayer(String name, long[] shape, int fanIn, int biasLength, SplittableRandom random) {
        double bound = 1.0 / Math.sqrt(fanIn);
        tensors.put(name + ".W", uniform(shape, bound, random));
        tensors.put(name + ".b", uniform(new long[] {biasLength}, bound, random));
    }

    /** Adds a tensor of zeros of {@code shape} named {@code name}. */
    void addZeros(String name, long[] shape) {
        tensors.put(name, Nd4j.zeros(DataType.FLOAT, shape));
    }

    /** Copies every tensor's values from {@code other}, which must have the same names and shapes. */
    void assign(WeightSet other) {
        for (Map.Entry<String, INDArray> e : other.tensors.entrySet()) {
            INDArray mine = tensors.get(e.getKey());
            if (mine == null || !Arrays.equals(mine.shape(), e.getValue().shape())) {
                throw new IllegalArgumentException(part + " has no tensor " + e.getKey() + " of shape "
                        + Arrays.toString(e.getValue().shape()));
            }
            mine.assign(e.getValue());
        }
    }

    INDArray get(String name) {
        INDArray t = tensors.get(name);
        if (t == null) {
            throw new IllegalArgumentException(part + " has no tensor '" + name + "'; it has " + tensors.keySet());
        }
        return t;
    }

    private static INDArray uniform(long[] shape, double bound, SplittableRandom random) {
        long n = 1;
        for (long d : shape) {
            n *= d;
        }
        float[] values = new float[Math.toIntExact(n)];
        for (int i = 0; i < values.length; i++) {
            values[i] = (float) ((random.nextDouble() * 2 - 1) * bound);
        }
        return Nd4j.create(values, shape, 'c').castTo(DataType.FLOAT);
    }

    /** Which part of which autoencoder a weight set is; its id is the part byte of the weight form. */
    public enum Part {
        /** The encoder E_c (both topologies). */
        ENCODER(WeightsDescriptor.PART_ENCODER),
        /** The ring's decoder D_c, reading the mean latent. */
        RING_DECODER(WeightsDescriptor.PART_RING_DECODER),
        /** One of the parameter server's decoders D_c^k, reading the common latent and the innovation. */
        PS_DECODER(WeightsDescriptor.PART_PS_DECODER),
        /** The ring's linear code ({@link LinearRingCode}): its basis, which encodes and decodes. */
        LINEAR(WeightsDescriptor.PART_LINEAR);

        private final int id;

        Part(int id) {
            this.id = id;
        }

        /** The part's id on the wire. */
        public int id() {
            return id;
        }

        /** The part with wire id {@code id}, or null. */
        static Part byId(int id) {
            for (Part p : values()) {
                if (p.id == id) {
                    return p;
                }
            }
            return null;
        }
    }
}

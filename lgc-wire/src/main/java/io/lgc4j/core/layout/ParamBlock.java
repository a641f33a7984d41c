package io.lgc4j.core.layout;

import java.util.Arrays;

/**
 * One parameter array of a model as a contiguous range of its flattened parameter (and gradient) vector.
 *
 * @param index      position of this block in its {@link GradientLayout}
 * @param layerIndex position of the layer among the model's layers that have parameters
 * @param layerName  the layer's name (its vertex name in a ComputationGraph, {@code layer<i>} when unnamed)
 * @param paramName  the parameter's key in the layer's parameter table ({@code W}, {@code b}, {@code gamma}, ...)
 * @param offset     first element in the flattened vector
 * @param length     number of elements
 * @param shape      the parameter array's shape
 * @param policy     how this block's gradient travels
 */
public record ParamBlock(int index, int layerIndex, String layerName, String paramName, int offset, int length,
                         long[] shape, LayerPolicy policy) {

    /** Validates the range and defends the shape against mutation. */
    public ParamBlock {
        if (offset < 0 || length < 0) {
            throw new IllegalArgumentException("block " + layerName + "/" + paramName + ": offset and length must be"
                    + " >= 0, found offset " + offset + ", length " + length);
        }
        shape = shape.clone();
    }

    /** One past the last element. */
    public int end() {
        return offset + length;
    }

    /** The shape (a copy). */
    @Override
    public long[] shape() {
        return shape.clone();
    }

    /** The same block under another policy. */
    public ParamBlock withPolicy(LayerPolicy newPolicy) {
        return new ParamBlock(index, layerIndex, layerName, paramName, offset, length, shape, newPolicy);
    }

    /** {@code layer/param}, the name used in messages and metrics. */
    public String qualifiedName() {
        return layerName + "/" + paramName;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ParamBlock b && index == b.index && layerIndex == b.layerIndex
                && layerName.equals(b.layerName) && paramName.equals(b.paramName) && offset == b.offset
                && length == b.length && Arrays.equals(shape, b.shape) && policy == b.policy;
    }

    @Override
    public int hashCode() {
        return 31 * (31 * qualifiedName().hashCode() + offset) + Arrays.hashCode(shape);
    }

    @Override
    public String toString() {
        return qualifiedName() + "[" + offset + ".." + end() + ") " + Arrays.toString(shape) + " " + policy;
    }
}

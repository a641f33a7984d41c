package io.lgc4j.core.sparse;

import java.util.Arrays;
import java.util.Objects;

/**
 * A sparse vector of {@code length} entries: strictly increasing {@code indices} in {@code [0, length)} and the
 * {@code values} at them; every other entry is zero.
 *
 * <p>The arrays are not copied: the vector owns them from construction on, and callers must not change them.
 * {@link #equals}, {@link #hashCode} and {@link #toString} look at their contents.
 *
 * <pre>{@code
 * int count = topK.select(gradient, from, to, k, indices);
 * SparseVector sent = SparseVector.gather(gradient, from, to, indices, count);
 * sent.addInto(aggregate, from);        // receiver: aggregate[from + i] += value
 * }</pre>
 *
 * @param length  entries of the dense vector, {@code >= 0}
 * @param indices positions of the stored entries, strictly increasing, in {@code [0, length)}
 * @param values  the entries at {@code indices}, same length
 */
public record SparseVector(int length, int[] indices, float[] values) {

    /** Validates the shape; messages name the offending position and values. */
    public SparseVector {
        Objects.requireNonNull(indices, "indices");
        Objects.requireNonNull(values, "values");
        if (length < 0) {
            throw new IllegalArgumentException("length=" + length + " must be >= 0");
        }
        if (indices.length != values.length) {
            throw new IllegalArgumentException("indices.length=" + indices.length + " != values.length="
                    + values.length);
        }
        int previous = -1;
        for (int i = 0; i < indices.length; i++) {
            int index = indices[i];
            if (index < 0 || index >= length) {
                throw new IllegalArgumentException("indices[" + i + "]=" + index + " is outside [0, " + length
                        + ")");
            }
            if (index <= previous) {
                throw new IllegalArgumentException("indices[" + i + "]=" + index + " must be greater than indices["
                        + (i - 1) + "]=" + previous);
            }
            previous = index;
        }
    }

    /**
     * The entries {@code dense[from + indices[i]]} for {@code i < count}, as a vector of length
     * {@code dense.length - from} (the rest of the array from {@code from} on).
     */
    public static SparseVector gather(float[] dense, int from, int[] indices, int count) {
        Objects.requireNonNull(dense, "dense");
        return gather(dense, from, dense.length, indices, count);
    }

    /**
     * The entries {@code dense[from + indices[i]]} for {@code i < count}, as a vector of length {@code to - from}:
     * the block {@code dense[from, to)} kept at {@code indices} (relative to {@code from}, as {@link TopK} writes
     * them).
     */
    public static SparseVector gather(float[] dense, int from, int to, int[] indices, int count) {
        Objects.requireNonNull(dense, "dense");
        Objects.requireNonNull(indices, "indices");
        if (from < 0 || from > to || to > dense.length) {
            throw new IllegalArgumentException("from=" + from + ", to=" + to + ": need 0 <= from <= to <= "
                    + "dense.length=" + dense.length);
        }
        if (count < 0 || count > indices.length) {
            throw new IllegalArgumentException("count=" + count + " must be in [0, indices.length="
                    + indices.length + "]");
        }
        int[] kept = Arrays.copyOf(indices, count);
        int length = to - from;
        float[] values = new float[count];
        for (int i = 0; i < count; i++) {
            int index = kept[i];
            if (index < 0 || index >= length) {
                throw new IllegalArgumentException("indices[" + i + "]=" + index + " is outside [0, " + length
                        + ")");
            }
            values[i] = dense[from + index];
        }
        return new SparseVector(length, kept, values);
    }

    /** Stored entries: {@code indices().length}. */
    public int nnz() {
        return indices.length;
    }

    /** Writes {@code dense[offset + indices[i]] = values[i]}; other entries of {@code dense} are left as they are. */
    public void scatterInto(float[] dense, int offset) {
        checkTarget(dense, offset);
        for (int i = 0; i < indices.length; i++) {
            dense[offset + indices[i]] = values[i];
        }
    }

    /** Adds {@code values[i]} to {@code dense[offset + indices[i]]}. */
    public void addInto(float[] dense, int offset) {
        checkTarget(dense, offset);
        for (int i = 0; i < indices.length; i++) {
            dense[offset + indices[i]] += values[i];
        }
    }

    private void checkTarget(float[] dense, int offset) {
        Objects.requireNonNull(dense, "dense");
        if (offset < 0 || offset > dense.length - length) {
            throw new IllegalArgumentException("offset=" + offset + ", length=" + length
                    + ": need 0 <= offset and offset + length <= dense.length=" + dense.length);
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof SparseVector that && length == that.length
                && Arrays.equals(indices, that.indices) && Arrays.equals(values, that.values);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * Integer.hashCode(length) + Arrays.hashCode(indices)) + Arrays.hashCode(values);
    }

    @Override
    public String toString() {
        return "SparseVector[length=" + length + ", indices=" + Arrays.toString(indices) + ", values="
                + Arrays.toString(values) + "]";
    }
}

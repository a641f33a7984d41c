package io.lgc4j.core.sparse;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class SparseVectorTest {

    private static String rejection(Runnable construct) {
        return assertThrows(IllegalArgumentException.class, construct::run).getMessage();
    }

    @Test
    void shouldRejectIndicesAndValuesOfDifferentLengths() {
        assertEquals("indices.length=2 != values.length=3",
                rejection(() -> new SparseVector(10, new int[] {1, 2}, new float[] {1f, 2f, 3f})));
    }

    @Test
    void shouldRejectANegativeLength() {
        assertEquals("length=-1 must be >= 0", rejection(() -> new SparseVector(-1, new int[0], new float[0])));
    }

    @Test
    void shouldRejectAnIndexOutsideTheLengthNamingItsPosition() {
        assertEquals("indices[2]=10 is outside [0, 10)",
                rejection(() -> new SparseVector(10, new int[] {1, 4, 10}, new float[3])));
        assertEquals("indices[0]=-3 is outside [0, 10)",
                rejection(() -> new SparseVector(10, new int[] {-3}, new float[1])));
    }

    @Test
    void shouldRejectIndicesThatDoNotStrictlyIncrease() {
        assertEquals("indices[2]=4 must be greater than indices[1]=4",
                rejection(() -> new SparseVector(10, new int[] {1, 4, 4}, new float[3])));
        assertEquals("indices[1]=0 must be greater than indices[0]=5",
                rejection(() -> new SparseVector(10, new int[] {5, 0}, new float[2])));
    }

    @Test
    void shouldGatherScatterAndAddABlock() {
        float[] dense = {9f, 1f, -2f, 3f, -4f, 5f, 9f};
        SparseVector v = SparseVector.gather(dense, 1, 6, new int[] {1, 3, 4, 77}, 3);
        assertEquals(new SparseVector(5, new int[] {1, 3, 4}, new float[] {-2f, -4f, 5f}), v);
        assertEquals(3, v.nnz());

        float[] target = {7f, 7f, 7f, 7f, 7f, 7f, 7f, 7f};
        v.scatterInto(target, 2);
        assertArrayEquals(new float[] {7f, 7f, 7f, -2f, 7f, -4f, 5f, 7f}, target);
        v.addInto(target, 2);
        assertArrayEquals(new float[] {7f, 7f, 7f, -4f, 7f, -8f, 10f, 7f}, target);
    }

    @Test
    void shouldGatherToTheEndOfTheArrayWithoutAnExplicitEnd() {
        float[] dense = {1f, 2f, 3f, 4f};
        SparseVector v = SparseVector.gather(dense, 1, new int[] {0, 2}, 2);
        assertEquals(new SparseVector(3, new int[] {0, 2}, new float[] {2f, 4f}), v);
    }

    @Test
    void shouldRoundTripATopKSelection() {
        float[] dense = {0.5f, -7f, 0.1f, 3f, -0.2f, 6f};
        int[] indices = new int[3];
        int count = new TopK().select(dense, 0, dense.length, 3, indices);
        float[] back = new float[dense.length];
        SparseVector.gather(dense, 0, dense.length, indices, count).scatterInto(back, 0);
        assertArrayEquals(new float[] {0f, -7f, 0f, 3f, 0f, 6f}, back);
    }

    @Test
    void shouldRejectGatherArgumentsNamingTheValues() {
        float[] dense = new float[5];
        assertEquals("from=2, to=6: need 0 <= from <= to <= dense.length=5",
                rejection(() -> SparseVector.gather(dense, 2, 6, new int[0], 0)));
        assertEquals("count=2 must be in [0, indices.length=1]",
                rejection(() -> SparseVector.gather(dense, 0, 5, new int[1], 2)));
        assertEquals("indices[1]=3 is outside [0, 3)",
                rejection(() -> SparseVector.gather(dense, 2, 5, new int[] {0, 3}, 2)));
    }

    @Test
    void shouldRejectATargetTooShortForTheLength() {
        SparseVector v = new SparseVector(4, new int[] {3}, new float[] {1f});
        assertEquals("offset=2, length=4: need 0 <= offset and offset + length <= dense.length=5",
                rejection(() -> v.scatterInto(new float[5], 2)));
        assertEquals("offset=-1, length=4: need 0 <= offset and offset + length <= dense.length=5",
                rejection(() -> v.addInto(new float[5], -1)));
    }

    @Test
    void shouldCompareByContent() {
        SparseVector a = new SparseVector(4, new int[] {0, 3}, new float[] {1f, 2f});
        SparseVector b = new SparseVector(4, new int[] {0, 3}, new float[] {1f, 2f});
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        assertNotEquals(a, new SparseVector(5, new int[] {0, 3}, new float[] {1f, 2f}));
        assertNotEquals(a, new SparseVector(4, new int[] {0, 3}, new float[] {1f, 2.5f}));
        assertEquals("SparseVector[length=4, indices=[0, 3], values=[1.0, 2.0]]", a.toString());
    }
}

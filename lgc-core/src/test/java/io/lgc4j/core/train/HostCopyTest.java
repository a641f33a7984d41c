package io.lgc4j.core.train;

import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HostCopyTest {

    /** A view into the middle of a buffer (as a layer's part of the flattened gradient is), and a strided one. */
    @Test
    void copiesEveryElementBitForBitOutAndInOfViewsWithOrWithoutTheBulkCopy() {
        Nd4j.getRandom().setSeed(3);
        INDArray whole = Nd4j.rand(DataType.FLOAT, 1, 1_000);
        float before = whole.getFloat(0, 99);
        INDArray middle = whole.get(NDArrayIndex.point(0), NDArrayIndex.interval(100, 700)).reshape(1, 600);
        INDArray strided = Nd4j.rand(DataType.FLOAT, 30, 20).transpose();
        assertTrue(HostCopy.contiguous(middle));
        assertFalse(HostCopy.contiguous(strided));
        for (INDArray view : new INDArray[] {middle, strided}) {
            float[] out = new float[(int) view.length()];
            HostCopy.toHeap(view, out);
            assertArrayEquals(view.dup('c').data().asFloat(), out);
            float[] in = new float[out.length];
            for (int i = 0; i < in.length; i++) {
                in[i] = i == 7 ? Float.intBitsToFloat(0x7fc00123) : -i * 0.25f;  // a NaN with a payload
            }
            HostCopy.fromHeap(in, view);
            float[] back = view.dup('c').data().asFloat();
            for (int i = 0; i < in.length; i++) {
                assertEquals(Float.floatToRawIntBits(in[i]), Float.floatToRawIntBits(back[i]), "element " + i);
            }
        }
        assertEquals(before, whole.getFloat(0, 99), 0f, "outside the view: untouched");
        assertEquals(-0.25f, whole.getFloat(0, 101));
    }

    @Test
    void refusesArraysOfAnotherLength() {
        assertEquals("cannot copy 6 floats to or from an array of 5", assertThrows(IllegalArgumentException.class,
                () -> HostCopy.toHeap(Nd4j.zeros(DataType.FLOAT, 2, 3), new float[5])).getMessage());
    }
}

package io.lgc4j.core.compute;

import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class Nd4jThreadsTest {

    @Test
    void useShouldGiveOpenBlasTheRunsCountAsALaunchedProcessHasIt() {
        int before = Nd4jThreads.current();
        try {
            // as a JVM started without OMP_NUM_THREADS has it: OpenBLAS on the machine's cores
            Nd4j.factory().blas().setMaxThreads(2);
            Nd4jThreads.use(1);
            assertEquals(1, Nd4jThreads.blas());
            if (Nd4jThreads.pool() >= 2) {
                Nd4jThreads.use(2);
                assertEquals(2, Nd4jThreads.blas());
            }
        } finally {
            Nd4jThreads.use(before > 0 ? before : 1);
        }
    }

    /**
     * LeNet-5's dense layer in its backward pass (δ · Wᵀ, [32, 500] · [500, 800]): on this project's machines OpenBLAS
     * gives other bits on two threads than on one, so a JVM started without {@code OMP_NUM_THREADS} (OpenBLAS on every
     * core) trained LeNet-5 to other bits than {@code lgc launch} (one thread) until {@link Nd4jThreads#use} set
     * OpenBLAS's count too.
     */
    @Test
    void aDenseProductShouldHaveALaunchedProcesssBitsWhateverOpenBlasStartedWith() {
        int before = Nd4jThreads.current();
        Nd4j.getRandom().setSeed(7);
        INDArray delta = Nd4j.rand(DataType.FLOAT, 32, 500).subi(0.5);
        INDArray weightsT = Nd4j.rand(DataType.FLOAT, 500, 800).subi(0.5);
        try {
            Nd4j.factory().blas().setMaxThreads(1);
            INDArray launched = delta.mmul(weightsT);
            Nd4j.factory().blas().setMaxThreads(2);
            Nd4jThreads.use(1);
            assertArrayEquals(bits(launched), bits(delta.mmul(weightsT)));
        } finally {
            Nd4jThreads.use(before > 0 ? before : 1);
        }
    }

    private static int[] bits(INDArray a) {
        float[] values = a.data().asFloat();
        int[] bits = new int[values.length];
        for (int i = 0; i < values.length; i++) {
            bits[i] = Float.floatToRawIntBits(values[i]);
        }
        return bits;
    }

    @Test
    void useShouldRefuseACountBelowOne() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Nd4jThreads.use(0));
        assertEquals("compute threads must be at least 1, found 0", e.getMessage());
    }
}

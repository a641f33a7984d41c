package io.lgc4j.core.compute;

import org.junit.jupiter.api.Test;
import org.nd4j.linalg.factory.Nd4j;

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

    @Test
    void useShouldRefuseACountBelowOne() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Nd4jThreads.use(0));
        assertEquals("compute threads must be at least 1, found 0", e.getMessage());
    }
}

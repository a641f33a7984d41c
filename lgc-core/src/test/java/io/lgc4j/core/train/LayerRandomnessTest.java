package io.lgc4j.core.train;

import io.lgc4j.core.data.MemorySource;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * A model that draws random numbers while it trains (Dropout, Gaussian noise, alpha dropout, DropConnect) computes
 * the same bits on every run, on whichever thread: each rank's pass draws from a stream fixed by (run seed, rank,
 * step). Every topology's contract ({@link TopologyContract}) trains such a model twice and resumes it.
 */
class LayerRandomnessTest {

    @Test
    void everyRankAndStepShouldHaveAStreamOfItsOwnThatRepeats() {
        Set<Long> seen = new HashSet<>();
        for (long seed : new long[] {0, 1, 42}) {
            for (int rank = 0; rank < 8; rank++) {
                for (int step = 0; step < 200; step++) {
                    long s = LayerRandomness.streamSeed(seed, rank, step);
                    assertEquals(s, LayerRandomness.streamSeed(seed, rank, step));
                    seen.add(s);
                }
            }
        }
        assertEquals(3 * 8 * 200, seen.size(), "no two (seed, rank, step) share a stream");
    }

    @Test
    void aPassShouldDrawTheSameMasksOnAnyThreadAndOthersAtAnotherStep() throws InterruptedException {
        DataSet batch = TestModels.data(32, 3);
        ReplicaModel replica = ReplicaModel.wrap(TestModels.noisyGraph(5));
        float[][] gradients = new float[3][];
        Nd4j.getRandom().setSeed(99); // what the thread drew before does not matter
        LayerRandomness.beginPass(42, 1, 7);
        replica.computeGradient(batch.getFeatures(), batch.getLabels());
        gradients[0] = replica.gradient().toFloatVector();
        Thread other = new Thread(() -> {
            LayerRandomness.beginPass(42, 1, 7);
            replica.computeGradient(batch.getFeatures(), batch.getLabels());
            gradients[1] = replica.gradient().toFloatVector();
            LayerRandomness.beginPass(42, 1, 8);
            replica.computeGradient(batch.getFeatures(), batch.getLabels());
            gradients[2] = replica.gradient().toFloatVector();
        });
        other.start();
        other.join();
        assertArrayEquals(gradients[0], gradients[1], "the same stream on a new thread");
        assertFalse(java.util.Arrays.equals(gradients[0], gradients[2]), "step 8 draws other masks than step 7");
    }

    @Test
    void aNoisyModelShouldTrainTheSameBitsOnEveryRunOfOneJvm() {
        List<String> first = noisyRun().build().fit(1).replicaChecksums();
        assertEquals(first, noisyRun().build().fit(1).replicaChecksums(), "each run on new rank threads");
        // each rank applies its own gradient here: its replica tells its own stream from the other rank's
        assertNotEquals(first.get(0), first.get(1));
    }

    private static DistributedTrainer.Builder noisyRun() {
        return DistributedTrainer.builder().model(TestModels.noisyGraph(5)).data(MemorySource.of(TestModels.data(192,
                1))).workers(2).batchSizePerWorker(16).seed(11).topology(TestModels.ownGradient());
    }
}

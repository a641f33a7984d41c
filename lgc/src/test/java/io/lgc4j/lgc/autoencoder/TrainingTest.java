package io.lgc4j.lgc.autoencoder;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Online training on synthetic correlated gradients (K = 4 vectors = common part + small per-rank innovation):
 * after 300 steps both reconstruction losses are below 0.3× their first value, and the same seed gives the same
 * weights and losses twice.
 */
class TrainingTest {

    private static final int MU = 128;
    private static final int K = 4;
    private static final int STEPS = 300;

    @Test
    void psReconstructionLossShouldFallBelowThreeTenthsOfItsFirstValue() {
        AutoencoderTrainer trainer = AutoencoderTrainer.ps(
                new PsAutoencoder(AutoencoderSpec.PAPER, MU, K, 0.1, AeTraining.DEFAULT, 21), 21);
        assertConverges(trainer);
    }

    @Test
    void ringReconstructionLossShouldFallBelowThreeTenthsOfItsFirstValue() {
        AutoencoderTrainer trainer = AutoencoderTrainer.ring(
                new RingAutoencoder(AutoencoderSpec.PAPER, MU, K, AeTraining.DEFAULT, 22), 22);
        assertConverges(trainer);
    }

    @Test
    void sameSeedShouldGiveIdenticalWeightsAndLosses() {
        AutoencoderTrainer a = psRun(30);
        AutoencoderTrainer b = psRun(30);
        assertEquals(a.history(), b.history());
        PsAutoencoder pa = (PsAutoencoder) a.autoencoder();
        PsAutoencoder pb = (PsAutoencoder) b.autoencoder();
        assertArrayEquals(pa.encoderBytes(), pb.encoderBytes());
        for (int k = 0; k < K; k++) {
            assertArrayEquals(pa.decoderBytes(k), pb.decoderBytes(k));
        }
        AutoencoderTrainer c = psRun(0);
        assertTrue(!java.util.Arrays.equals(pa.encoderBytes(), ((PsAutoencoder) c.autoencoder()).encoderBytes()),
                "training must change the encoder");
    }

    private static AutoencoderTrainer psRun(int steps) {
        AutoencoderTrainer trainer = AutoencoderTrainer.ps(
                new PsAutoencoder(AutoencoderSpec.PAPER, 64, K, 0.1, AeTraining.DEFAULT, 5), 6);
        SyntheticGradients data = new SyntheticGradients(64, K, 0.2, 7);
        for (int s = 0; s < steps; s++) {
            trainer.step(data.next());
        }
        return trainer;
    }

    private static void assertConverges(AutoencoderTrainer trainer) {
        SyntheticGradients data = new SyntheticGradients(MU, K, 0.2, 3);
        for (int s = 0; s < STEPS; s++) {
            trainer.step(data.next());
        }
        List<AeLosses> h = trainer.history();
        double first = h.get(0).reconstruction();
        double last = h.subList(STEPS - 10, STEPS).stream().mapToDouble(AeLosses::reconstruction).average()
                .orElseThrow();
        assertTrue(last < 0.3 * first, "reconstruction loss " + first + " -> " + last + " (mean of the last 10)");
    }
}

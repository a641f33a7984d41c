package io.lgc4j.lgc.autoencoder;

import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.checkpoint.PartKind;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The linear code is exact inside the span it was fitted on, averages exactly (the decoded mean of the codes is the
 * projection of the mean), ships and restores to the very same basis, and refuses what it cannot do with messages
 * that name the problem.
 */
class LinearRingCodeTest {

    private static final int MU = 40;
    private static final int K = 4;

    /** Steps whose K vectors all lie in the span of two fixed directions u, v. */
    private static float[][][] steps(float[] u, float[] v, int count, SplittableRandom random) {
        float[][][] steps = new float[count][K][MU];
        for (int s = 0; s < count; s++) {
            for (int k = 0; k < K; k++) {
                double a = random.nextGaussian();
                double b = random.nextGaussian();
                for (int i = 0; i < MU; i++) {
                    steps[s][k][i] = (float) (a * u[i] + b * v[i]);
                }
            }
        }
        return steps;
    }

    private static float[] gaussian(SplittableRandom random) {
        float[] x = new float[MU];
        for (int i = 0; i < MU; i++) {
            x[i] = (float) random.nextGaussian();
        }
        return x;
    }

    @Test
    void shouldCarryTheMeanOfVectorsInsideItsSpanThroughTheMeanOfTheirCodes() {
        SplittableRandom random = new SplittableRandom(5);
        float[] u = gaussian(random);
        float[] v = gaussian(random);
        LinearRingCode code = new LinearRingCode(MU, 2);
        float[][][] train = steps(u, v, 6, random);
        AeLosses first = code.trainStep(train[0], 0);
        for (int s = 1; s < train.length; s++) {
            code.trainStep(train[s], s % K);
        }
        assertTrue(first.reconstruction() > 0, "before the fit the loss is the mean's energy");
        code.fit();
        float[][] g = steps(u, v, 1, random)[0];
        float scale = Scale.rms(g[1]);
        float[] meanCode = new float[2];
        float[] mean = new float[MU];
        for (float[] x : g) {
            float[] z = code.encode(x, scale);
            for (int j = 0; j < 2; j++) {
                meanCode[j] += z[j] / K;
            }
            for (int i = 0; i < MU; i++) {
                mean[i] += x[i] / K;
            }
        }
        float[] decoded = code.decode(meanCode, scale);
        for (int i = 0; i < MU; i++) {
            assertEquals(mean[i], decoded[i], 1e-4 * (1 + Math.abs(mean[i])), "position " + i);
        }
        // the loss after the fit, on vectors of the span: nothing left to lose
        assertEquals(0, code.trainStep(g, 1).reconstruction(), 1e-9);
    }

    /** A code of 3 floats fitted on 4 steps of vectors in a random plane. */
    private static LinearRingCode fitted(SplittableRandom random) {
        LinearRingCode code = new LinearRingCode(MU, 3);
        for (float[][] step : steps(gaussian(random), gaussian(random), 4, random)) {
            code.trainStep(step, 0);
        }
        code.fit();
        return code;
    }

    @Test
    void shouldShipAndRestoreTheVeryBasisItEncodesWith() throws CheckpointException {
        SplittableRandom random = new SplittableRandom(8);
        LinearRingCode trainer = fitted(random);
        LinearRingCode peer = new LinearRingCode(MU, 3);
        assertFalse(peer.ready());
        peer.loadBasis(trainer.basisBytes());
        float[] x = gaussian(random);
        assertArrayEquals(trainer.encode(x, 0.5f), peer.encode(x, 0.5f));
        assertArrayEquals(trainer.decode(new float[] {1f, -2f, 0.25f}, 2f), peer.decode(new float[] {1f, -2f, 0.25f},
                2f));

        CheckpointPart.Builder part = CheckpointPart.builder(PartKind.RANK);
        trainer.save(part, "code");
        LinearRingCode restored = new LinearRingCode(MU, 3);
        restored.restore(CheckpointPart.parse(part.build().toBytes(), "x"), "code");
        assertArrayEquals(trainer.encode(x, 0.5f), restored.encode(x, 0.5f));
        float[][] next = steps(gaussian(random), gaussian(random), 1, random)[0];
        assertEquals(trainer.trainStep(next, 2).reconstruction(), restored.trainStep(next, 2).reconstruction());
        restored.fit();
        trainer.fit();
        assertArrayEquals(trainer.basisBytes(), restored.basisBytes(), "the second moment came back whole");
    }

    @Test
    void aReceiverShouldKeepOnlyTheBasisAndRefuseToFit() throws CheckpointException {
        SplittableRandom random = new SplittableRandom(9);
        LinearRingCode trainer = fitted(random);
        LinearRingCode receiver = LinearRingCode.receiver(MU, 3);
        assertTrue(trainer.fits());
        assertFalse(receiver.fits());
        String expected = "this linear code only receives its basis and cannot %s: the trainer's code "
                + "(new LinearRingCode) accumulates the second moment and fits it";
        assertEquals(expected.formatted("train"), assertThrows(IllegalStateException.class,
                () -> receiver.trainStep(new float[][] {gaussian(random)}, 0)).getMessage());
        assertEquals(expected.formatted("fit"),
                assertThrows(IllegalStateException.class, receiver::fit).getMessage());

        CheckpointPart.Builder before = CheckpointPart.builder(PartKind.RANK);
        receiver.save(before, "code");
        CheckpointPart empty = CheckpointPart.parse(before.build().toBytes(), "x");
        assertFalse(empty.has("code/moment"), "a receiver keeps no second moment");
        assertFalse(empty.has("code/basis"));

        receiver.loadBasis(trainer.basisBytes());
        CheckpointPart.Builder part = CheckpointPart.builder(PartKind.RANK);
        receiver.save(part, "code");
        CheckpointPart saved = CheckpointPart.parse(part.build().toBytes(), "x");
        assertFalse(saved.has("code/moment"));
        LinearRingCode restored = LinearRingCode.receiver(MU, 3);
        restored.restore(saved, "code");
        float[] x = gaussian(random);
        assertArrayEquals(trainer.encode(x, 0.5f), restored.encode(x, 0.5f));
        LinearRingCode notYet = LinearRingCode.receiver(MU, 3);
        notYet.loadBasis(trainer.basisBytes());
        notYet.restore(empty, "code");
        assertFalse(notYet.ready(), "a checkpoint from before the switch has no basis");
    }

    @Test
    void shouldRefuseWhatItCannotDoNamingIt() {
        assertEquals("a linear code of a compact vector of 40 values has 1 to 40 floats, got 41",
                assertThrows(IllegalArgumentException.class, () -> new LinearRingCode(MU, 41)).getMessage());
        LinearRingCode code = new LinearRingCode(MU, 2);
        assertEquals("the linear code cannot encode before its basis is fitted or loaded",
                assertThrows(IllegalStateException.class, () -> code.encode(new float[MU], 1f)).getMessage());
        LinearRingCode wider = new LinearRingCode(MU, 3);
        wider.trainStep(new float[][] {gaussian(new SplittableRandom(1))}, 0);
        wider.fit();
        assertThrows(WeightCodec.WeightFormatException.class, () -> code.loadBasis(wider.basisBytes()));
        assertFalse(code.ready(), "a refused form changes nothing");
    }
}

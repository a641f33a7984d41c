package io.lgc4j.lgc.autoencoder;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Shapes: μ round-trips to exactly μ through both autoencoders, and padding never leaks into the output. */
class ShapeTest {

    @ParameterizedTest
    @ValueSource(ints = {1, 15, 16, 1000, 25_000, 100_000})
    void shouldRoundTripEveryLengthToExactlyMu(int mu) {
        float[] v = random(mu, 1);
        RingAutoencoder ring = new RingAutoencoder(AutoencoderSpec.PAPER, mu, 2, AeTraining.PAPER, 7);
        float[] latent = ring.encode(v, Scale.rms(v));
        assertEquals(AutoencoderSpec.PAPER.paddedLength(mu) / 4, latent.length);
        assertEquals(mu, ring.decode(latent, Scale.rms(v)).length);

        PsAutoencoder ps = new PsAutoencoder(AutoencoderSpec.PAPER, mu, 2, 0.1, AeTraining.PAPER, 7);
        float[] psLatent = ps.encode(v, Scale.rms(v));
        assertEquals(latent.length, psLatent.length);
        assertEquals(mu, ps.decode(1, psLatent, ps.innovation(v), Scale.rms(v)).length);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 15, 1000})
    void literalTableTwoDecoderShouldCropItsDoubleLengthOutputToMu(int mu) {
        AutoencoderSpec literal = new AutoencoderSpec(List.of(64, 128, 256, 64), 2, 3, 4,
                List.of(4, 32, 64, 128, 32), List.of(2, 2, 2, 2, 2), 0.01);
        float[] v = random(mu, 2);
        RingAutoencoder ring = new RingAutoencoder(literal, mu, 2, AeTraining.DEFAULT, 7);
        assertEquals(mu, ring.decode(ring.encode(v, 1e-3f), 1e-3f).length);
        PsAutoencoder ps = new PsAutoencoder(literal, mu, 2, 0.1, AeTraining.DEFAULT, 7);
        AeLosses losses = ps.trainStep(new float[][] {v, random(mu, 3)}, 0);
        assertTrue(Double.isFinite(losses.total()) && losses.reconstruction() > 0);
    }

    @Test
    void paddingShouldBeTheEncodersDownsampling() {
        assertEquals(16, AutoencoderSpec.PAPER.paddingMultiple());
        assertEquals(16, AutoencoderSpec.PAPER.paddedLength(1));
        assertEquals(16, AutoencoderSpec.PAPER.paddedLength(16));
        assertEquals(32, AutoencoderSpec.PAPER.paddedLength(17));
        assertEquals(252, AutoencoderSpec.PAPER.latentSize(1000)); // 1000 pads to 1008
    }

    @Test
    void badSpecsAndInputsShouldBeRejectedWithTheReason() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new AutoencoderSpec(
                List.of(64, 128), 2, 3, 4, List.of(4, 32), List.of(2, 1), 0.01));
        assertEquals("the decoder must upsample at least as much as the encoder downsamples (4) and at most 64 "
                + "times more; decoderStrides [2, 1] upsample by 2", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new AutoencoderSpec(
                List.of(64), 2, 3, 4, List.of(4, 32), List.of(2), 0.01));
        assertEquals("decoderStrides must hold one positive stride per decoder layer (2), got [2]", e.getMessage());

        RingAutoencoder ring = new RingAutoencoder(AutoencoderSpec.PAPER, 20, 2, AeTraining.DEFAULT, 1);
        e = assertThrows(IllegalArgumentException.class, () -> ring.encode(new float[21], 1f));
        assertEquals("compact vector must hold 20 floats, got 21", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ring.trainStep(new float[][] {new float[20]}, 0));
        assertEquals("a training step takes one compact vector per rank (2), got 1", e.getMessage());
        float[] nan = new float[20];
        nan[3] = Float.NaN;
        e = assertThrows(IllegalArgumentException.class, () -> ring.trainStep(new float[][] {nan, nan}, 0));
        assertTrue(e.getMessage().startsWith("the compact vector holds a NaN or an infinity"), e.getMessage());
    }

    static float[] random(int n, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) (r.nextGaussian() * 1e-3);
        }
        return v;
    }
}

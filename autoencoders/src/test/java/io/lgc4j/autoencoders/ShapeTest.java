package io.lgc4j.autoencoders;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;

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

    static float[] random(int n, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) (r.nextGaussian() * 1e-3);
        }
        return v;
    }
}

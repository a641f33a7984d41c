package io.lgc4j.lgc.autoencoder;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The weights' byte form: round trip, sizes counted by hand, and every kind of corrupt or mismatched input (the
 * golden files are pinned by {@link WeightsGoldenTest}).
 */
class WeightCodecTest {

    /** A tiny architecture, so the checks stay quick and their messages short. */
    private static final AutoencoderSpec TINY = new AutoencoderSpec(List.of(2), 2, 3, 1, List.of(2), List.of(2),
            0.01);

    @Test
    void shippedWeightsShouldEncodeAndDecodeExactlyLikeTheTrainedOnes() {
        RingAutoencoder trained = new RingAutoencoder(AutoencoderSpec.PAPER, 100, 2, AeTraining.DEFAULT, 1);
        SyntheticGradients data = new SyntheticGradients(100, 2, 0.2, 2);
        for (int s = 0; s < 3; s++) {
            trained.trainStep(data.next(), 0);
        }
        RingAutoencoder receiver = new RingAutoencoder(AutoencoderSpec.PAPER, 100, 2, AeTraining.DEFAULT, 99);
        receiver.loadEncoder(trained.encoderBytes());
        receiver.loadDecoder(trained.decoderBytes());

        float[] g = data.next()[1];
        float[] latent = trained.encode(g, 0.5f);
        assertArrayEquals(latent, receiver.encode(g, 0.5f));
        assertArrayEquals(trained.decode(latent, 0.5f), receiver.decode(latent, 0.5f));
        assertArrayEquals(trained.encoderBytes(), receiver.encoderBytes());
    }

    @Test
    void psDecodersShouldRoundTrip() {
        PsAutoencoder a = new PsAutoencoder(AutoencoderSpec.PAPER, 50, 3, 0.1, AeTraining.DEFAULT, 1);
        PsAutoencoder b = new PsAutoencoder(AutoencoderSpec.PAPER, 50, 3, 0.1, AeTraining.DEFAULT, 2);
        b.loadDecoder(2, a.decoderBytes(2));
        assertArrayEquals(a.decoderBytes(2), b.decoderBytes(2));
    }

    /**
     * The paper's architecture's weight files, counted by hand from {@link AutoencoderSpec#PAPER} (kernel 3; encoder
     * 1 → 64 → 128 → 256 → 64 channels, then 1×1 to 4; decoder 4 → 4 → 32 → 64 → 128 → 32 channels, then 1×1 to 1,
     * from 33 in a parameter server's decoder, whose closing convolution also reads the innovation). A tensor costs
     * 2 (name length) + its name + 1 (rank) + 4 per dimension (weights [1, k, in, out]: 4 dimensions; biases: 1) + 4
     * per float; a file adds 14 bytes of header and a 4-byte CRC, and its size does not depend on μ.
     * <pre>
     * encoder floats: 3·1·64 + 64 + 3·64·128 + 128 + 3·128·256 + 256 + 3·256·64 + 64 + 1·64·4 + 4
     *               = 192 + 64 + 24,576 + 128 + 98,304 + 256 + 49,152 + 64 + 256 + 4 = 172,996 → 691,984 bytes
     * encoder tensor headers: conv1..4.W 4 × (2 + 7 + 1 + 16) = 104, conv1..4.b 4 × (2 + 7 + 1 + 4) = 56,
     *               latent.W 2 + 8 + 1 + 16 = 27, latent.b 2 + 8 + 1 + 4 = 15: 202 bytes
     * encoder file: 18 + 202 + 691,984 = 692,204 bytes
     * ring decoder floats: 3·4·4 + 4 + 3·4·32 + 32 + 3·32·64 + 64 + 3·64·128 + 128 + 3·128·32 + 32 + 1·32·1 + 1
     *               = 48 + 4 + 384 + 32 + 6,144 + 64 + 24,576 + 128 + 12,288 + 32 + 32 + 1 = 43,733 → 174,932 bytes
     * ring decoder tensor headers: deconv1..5.W 5 × (2 + 9 + 1 + 16) = 140, deconv1..5.b 5 × (2 + 9 + 1 + 4) = 80,
     *               out.W 2 + 5 + 1 + 16 = 24, out.b 2 + 5 + 1 + 4 = 12: 256 bytes
     * ring decoder file: 18 + 256 + 174,932 = 175,206 bytes
     * PS decoder: out.W is [1, 1, 33, 1], one float more: 43,734 floats, 175,210 bytes
     * </pre>
     */
    @Test
    void paperWeightFilesShouldHaveTheSizesCountedByHand() {
        for (int mu : new int[] {11, 1000}) {
            RingAutoencoder ring = new RingAutoencoder(AutoencoderSpec.PAPER, mu, 2, AeTraining.DEFAULT, 1);
            PsAutoencoder ps = new PsAutoencoder(AutoencoderSpec.PAPER, mu, 3, 0.1, AeTraining.DEFAULT, 1);
            String at = "μ = " + mu;
            assertEquals(172_996, ring.encoderWeights().size(), at);
            assertEquals(43_733, ring.decoderWeights().size(), at);
            assertEquals(43_734, ps.decoderWeights(2).size(), at);
            assertEquals(692_204, ring.encoderBytes().length, at);
            assertEquals(692_204, ps.encoderBytes().length, at);
            assertEquals(175_206, ring.decoderBytes().length, at);
            assertEquals(175_210, ps.decoderBytes(0).length, at);
        }
    }

    @Test
    void shouldRejectAWrongPart() {
        RingAutoencoder ae = new RingAutoencoder(TINY, 4, 2, AeTraining.DEFAULT, 1);
        assertMessage("autoencoder weights: expected the ENCODER weights, found the RING_DECODER weights",
                () -> ae.loadEncoder(ae.decoderBytes()));
    }

    @Test
    void shouldRejectAnotherMu() {
        RingAutoencoder a = new RingAutoencoder(TINY, 4, 2, AeTraining.DEFAULT, 1);
        RingAutoencoder b = new RingAutoencoder(TINY, 8, 2, AeTraining.DEFAULT, 1);
        assertMessage("autoencoder weights: trained for compact vectors of length μ = 4, but this autoencoder is "
                + "configured for μ = 8", () -> b.loadEncoder(a.encoderBytes()));
    }

    @Test
    void shouldRejectAnotherArchitectureNamingTheShapes() {
        RingAutoencoder a = new RingAutoencoder(TINY, 4, 2, AeTraining.DEFAULT, 1);
        AutoencoderSpec wider = new AutoencoderSpec(List.of(3), 2, 3, 1, List.of(2), List.of(2), 0.01);
        RingAutoencoder b = new RingAutoencoder(wider, 4, 2, AeTraining.DEFAULT, 1);
        assertMessage("autoencoder weights: tensor 'conv1.W' has shape [1, 3, 1, 2], the configuration expects "
                + "[1, 3, 1, 3]", () -> b.loadEncoder(a.encoderBytes()));
        PsAutoencoder ps = new PsAutoencoder(TINY, 4, 2, 0.5, AeTraining.DEFAULT, 1);
        assertMessage("autoencoder weights: expected the PS_DECODER weights, found the RING_DECODER weights",
                () -> ps.loadDecoder(0, a.decoderBytes()));
    }

    @Test
    void shouldRejectCorruptTruncatedAndForeignBytesAndChangeNothing() {
        RingAutoencoder ae = new RingAutoencoder(TINY, 4, 2, AeTraining.DEFAULT, 1);
        byte[] good = ae.encoderBytes();

        byte[] flipped = good.clone();
        flipped[30] ^= 1;
        assertThrows(WeightCodec.WeightFormatException.class, () -> ae.loadEncoder(flipped));

        byte[] version = good.clone();
        version[4] = 2;
        assertMessage("autoencoder weights: version 2, this build reads version 1", () -> ae.loadEncoder(version));

        byte[] magic = good.clone();
        magic[0] = 'X';
        assertThrows(WeightCodec.WeightFormatException.class, () -> ae.loadEncoder(magic));

        assertMessage("autoencoder weights: 10 bytes is shorter than the 18-byte minimum (header and checksum)",
                () -> ae.loadEncoder(java.util.Arrays.copyOf(good, 10)));
        assertThrows(WeightCodec.WeightFormatException.class,
                () -> ae.loadEncoder(java.util.Arrays.copyOf(good, good.length - 9)));

        assertArrayEquals(good, ae.encoderBytes(), "a rejected load must not change the weights");
    }

    @Test
    void shouldRejectAHostileTensorLengthWithAValidChecksum() {
        RingAutoencoder ae = new RingAutoencoder(TINY, 4, 2, AeTraining.DEFAULT, 1);
        byte[] good = ae.encoderBytes();
        // header 14 bytes, then name length u16 of tensor 0: declare a 60,000-byte name, re-seal the checksum
        byte[] hostile = good.clone();
        hostile[14] = (byte) 0x60;
        hostile[15] = (byte) 0xEA;
        reseal(hostile);
        assertMessage("autoencoder weights: tensor 0 declares a name of 60000 bytes; at most 128 fit",
                () -> ae.loadEncoder(hostile));
    }

    private static void reseal(byte[] bytes) {
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(bytes, 0, bytes.length - 4);
        java.nio.ByteBuffer.wrap(bytes).order(java.nio.ByteOrder.LITTLE_ENDIAN)
                .putInt(bytes.length - 4, (int) crc.getValue());
    }

    private static void assertMessage(String expected, org.junit.jupiter.api.function.Executable call) {
        assertEquals(expected, assertThrows(WeightCodec.WeightFormatException.class, call).getMessage());
    }
}

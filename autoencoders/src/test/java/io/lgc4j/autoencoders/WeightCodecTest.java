package io.lgc4j.autoencoders;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.util.HexFormat;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The weights' byte form: round trip, a golden file, and every kind of corrupt or mismatched input. */
class WeightCodecTest {

    /** A tiny architecture, so the golden file stays readable. */
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

    @Test
    void formatShouldMatchTheGoldenFile() throws IOException {
        RingAutoencoder ae = new RingAutoencoder(TINY, 4, 2, AeTraining.DEFAULT, 42);
        String golden;
        try (InputStream in = getClass().getResourceAsStream("/golden/tiny-encoder-weights.hex")) {
            golden = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII).strip();
        }
        assertEquals(golden, HexFormat.of().formatHex(ae.encoderBytes()));
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

package io.lgc4j.lgc.autoencoder;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.FrameCodec;
import io.lgc4j.lgc.wire.Weights;
import io.lgc4j.lgc.wire.WeightsDescriptor;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.comm.StepTag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The weight form ({@link WeightsDescriptor}, written by {@link WeightCodec}) of each part of a tiny autoencoder,
 * pinned by golden files {@code src/test/resources/golden/payload-weights-*.hex}: written byte for byte, loaded by a
 * receiver built from the same configuration, and read field by field at the descriptor's offsets. Rewrite them
 * with {@link #generateGoldenFiles()}, by hand, only when the form changes on purpose (and bump
 * {@link WeightsDescriptor#VERSION}).
 */
class WeightsGoldenTest {
    private static final Path DIRECTORY = Path.of("src/test/resources/golden");
    /** A tiny architecture, so the golden files stay readable. */
    private static final AutoencoderSpec TINY = new AutoencoderSpec(List.of(2), 2, 3, 1, List.of(2), List.of(2),
            0.01);
    private static final int MU = 4;
    private static final long SEED = 42;

    static final String ENCODER_FILE = "payload-weights-encoder.hex";
    static final String RING_DECODER_FILE = "payload-weights-ring-decoder.hex";
    static final String PS_DECODER_FILE = "payload-weights-ps-decoder.hex";
    static final String LINEAR_FILE = "payload-weights-linear.hex";

    private static RingAutoencoder ring(long seed) {
        return new RingAutoencoder(TINY, MU, 2, AeTraining.DEFAULT, seed);
    }

    private static PsAutoencoder ps(long seed) {
        return new PsAutoencoder(TINY, MU, 2, 0.5, AeTraining.DEFAULT, seed);
    }

    /** Each golden file and the weight form this build writes for it. */
    static Map<String, byte[]> forms() {
        Map<String, byte[]> forms = new LinkedHashMap<>();
        forms.put(ENCODER_FILE, ring(SEED).encoderBytes());
        forms.put(RING_DECODER_FILE, ring(SEED).decoderBytes());
        forms.put(PS_DECODER_FILE, ps(SEED).decoderBytes(0));
        forms.put(LINEAR_FILE, linear().basisBytes());
        return forms;
    }

    /** A linear code of 2 floats for μ = 4, fitted on two steps of two ranks' vectors with small whole values. */
    private static LinearRingCode linear() {
        LinearRingCode code = new LinearRingCode(MU, 2);
        code.trainStep(new float[][] {{2, 0, 1, 0}, {1, 1, 0, 0}}, 0);
        code.trainStep(new float[][] {{0, 2, 0, 1}, {1, 0, 0, 2}}, 1);
        code.fit();
        return code;
    }

    /**
     * Rewrites every golden file from {@link #forms()}. Run by hand, from {@code autoencoders}, only when the weight
     * form changes on purpose; never called by a test.
     */
    static void generateGoldenFiles() throws IOException {
        Files.createDirectories(DIRECTORY);
        for (Map.Entry<String, byte[]> e : forms().entrySet()) {
            Files.writeString(DIRECTORY.resolve(e.getKey()), HexFormat.of().formatHex(e.getValue()) + "\n",
                    StandardCharsets.US_ASCII);
        }
    }

    /** Entry point for {@link #generateGoldenFiles()}. */
    public static void main(String[] args) throws IOException {
        generateGoldenFiles();
    }

    private static byte[] golden(String name) {
        try {
            return HexFormat.of().parseHex(Files.readString(DIRECTORY.resolve(name), StandardCharsets.US_ASCII)
                    .trim());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void shouldWriteEachPartAsItsGoldenFile() {
        for (Map.Entry<String, byte[]> e : forms().entrySet()) {
            assertEquals(HexFormat.of().formatHex(golden(e.getKey())), HexFormat.of().formatHex(e.getValue()),
                    e.getKey());
        }
    }

    @Test
    void shouldLoadEachGoldenPartIntoAReceiverOfTheSameConfiguration() {
        RingAutoencoder ring = ring(7);
        ring.loadEncoder(golden(ENCODER_FILE));
        ring.loadDecoder(golden(RING_DECODER_FILE));
        assertArrayEquals(golden(ENCODER_FILE), ring.encoderBytes());
        assertArrayEquals(golden(RING_DECODER_FILE), ring.decoderBytes());
        PsAutoencoder ps = ps(7);
        ps.loadDecoder(1, golden(PS_DECODER_FILE));
        assertArrayEquals(golden(PS_DECODER_FILE), ps.decoderBytes(1));
        LinearRingCode peer = new LinearRingCode(MU, 2);
        peer.loadBasis(golden(LINEAR_FILE));
        assertArrayEquals(golden(LINEAR_FILE), peer.basisBytes());
        assertArrayEquals(linear().encode(new float[] {1, 2, 3, 4}, 1f), peer.encode(new float[] {1, 2, 3, 4}, 1f));
    }

    @Test
    void shouldShipTheFormVerbatimInAnAeWeightsFrame() {
        byte[] form = golden(ENCODER_FILE);
        Frame frame = FrameCodec.decode(new Weights(form).encode(new StepTag(3, Stage.COMPRESSED)));
        assertEquals(Weights.KIND, frame.kind());
        assertArrayEquals(form, Weights.decode(frame).form());
    }

    @Test
    void shouldLayTheHeaderAtTheDescriptorsOffsets() {
        int[] parts = {WeightsDescriptor.PART_ENCODER, WeightsDescriptor.PART_RING_DECODER,
                WeightsDescriptor.PART_PS_DECODER};
        String[] files = {ENCODER_FILE, RING_DECODER_FILE, PS_DECODER_FILE};
        byte[] linear = golden(LINEAR_FILE);
        ByteBuffer l = ByteBuffer.wrap(linear).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(WeightsDescriptor.PART_LINEAR, l.get(WeightsDescriptor.PART_OFFSET));
        assertEquals(1, l.getShort(WeightsDescriptor.TENSOR_COUNT_OFFSET), "one tensor, the basis");
        assertEquals("basis", new String(linear, WeightsDescriptor.HEADER_LENGTH + WeightsDescriptor.NAME_LENGTH_SIZE,
                l.getShort(WeightsDescriptor.HEADER_LENGTH), StandardCharsets.UTF_8));
        for (int i = 0; i < files.length; i++) {
            byte[] form = golden(files[i]);
            ByteBuffer b = ByteBuffer.wrap(form).order(ByteOrder.LITTLE_ENDIAN);
            assertArrayEquals(WeightsDescriptor.MAGIC, Arrays.copyOfRange(form, WeightsDescriptor.MAGIC_OFFSET,
                    WeightsDescriptor.MAGIC_OFFSET + 4), files[i]);
            assertEquals(WeightsDescriptor.VERSION, b.getShort(WeightsDescriptor.VERSION_OFFSET), files[i]);
            assertEquals(parts[i], b.get(WeightsDescriptor.PART_OFFSET), files[i]);
            assertEquals(0, b.get(WeightsDescriptor.RESERVED_OFFSET), files[i]);
            assertEquals(MU, b.getInt(WeightsDescriptor.MU_OFFSET), files[i]);
            assertEquals(4, b.getShort(WeightsDescriptor.TENSOR_COUNT_OFFSET),
                    files[i] + ": two layers, W and b each");
            // the first tensor's name, "conv1.W" (encoder) or "deconv1.W" (decoders), right after the header
            int nameLength = b.getShort(WeightsDescriptor.HEADER_LENGTH);
            String name = new String(form, WeightsDescriptor.HEADER_LENGTH + WeightsDescriptor.NAME_LENGTH_SIZE,
                    nameLength, StandardCharsets.UTF_8);
            assertEquals(i == 0 ? "conv1.W" : "deconv1.W", name, files[i]);
        }
    }
}

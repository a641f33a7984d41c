package io.lgc4j.lgc.autoencoder;

import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import org.nd4j.autodiff.samediff.SDVariable;
import org.nd4j.autodiff.samediff.SameDiff;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

import java.util.Map;
import java.util.SplittableRandom;

/**
 * The ring-allreduce autoencoder (seeds/003 Section IV-B, Fig. 5(b)): one encoder E_c that every rank runs on its
 * compact vector, and one decoder D_c that reads the mean of the K latents (which the ring's allreduce produces) and
 * is trained to reproduce the mean of the K compact vectors (eqs. 8–11).
 *
 * <pre>{@code
 * RingAutoencoder ae = new RingAutoencoder(AutoencoderSpec.PAPER, mu, 4, AeTraining.PAPER, seed);
 * AeLosses losses = ae.trainStep(compacts, leader);        // TOP_K stage, one step per iteration
 * float[] latent = ae.encode(myCompact, scale);            // COMPRESSED stage, every rank
 * float[] mean = ae.decode(meanLatent, scale);             // after the allreduce, every rank
 * }</pre>
 */
public final class RingAutoencoder extends GradientAutoencoder {

    private final WeightSet decoder;
    private SameDiff decodeGraph;

    /** A fresh autoencoder for compact vectors of length {@code mu} from {@code ranks} ranks. */
    public RingAutoencoder(AutoencoderSpec spec, int mu, int ranks, AeTraining training, long seed) {
        this(spec, mu, ranks, training, new SplittableRandom(seed));
    }

    private RingAutoencoder(AutoencoderSpec spec, int mu, int ranks, AeTraining training, SplittableRandom random) {
        super(spec, mu, ranks, training, random);
        this.decoder = ConvStack.decoderWeights(spec, WeightSet.Part.RING_DECODER, random);
    }

    /** The decoder's weights. */
    public WeightSet decoderWeights() {
        return decoder;
    }

    /** The decoder in its shippable byte form. */
    public byte[] decoderBytes() {
        return WeightCodec.write(decoder, mu);
    }

    /** Replaces the decoder's weights with {@code bytes}; a mismatch is rejected and changes nothing. */
    public void loadDecoder(byte[] bytes) {
        WeightCodec.read(bytes, decoder, mu);
    }

    /** The decoder D_c in section {@code prefix/decoder}. */
    @Override
    void saveDecoders(CheckpointPart.Builder part, String prefix) {
        saveWeights(part, prefix + "/decoder", decoder);
    }

    @Override
    void restoreDecoders(CheckpointPart part, String prefix) throws CheckpointException {
        restoreWeights(part, prefix + "/decoder", decoder);
    }

    /**
     * One training step on the K ranks' compact vectors aligned on one support, all divided by the scale of rank
     * {@code referenceRank}'s vector (the leader's, whose scale travels with its indices).
     */
    public AeLosses trainStep(float[][] compacts, int referenceRank) {
        if (referenceRank < 0 || referenceRank >= ranks) {
            throw new IllegalArgumentException("referenceRank must be in [0, " + ranks + "), got " + referenceRank);
        }
        return step(compacts, Scale.rms(compacts[referenceRank]), Map.of());
    }

    /** Decodes the mean latent of the K ranks (each encoded with {@code scale}) into the mean compact vector. */
    public float[] decode(float[] meanLatent, float scale) {
        checkLength("mean latent", meanLatent, latentSize());
        INDArray z = Nd4j.create(meanLatent, new long[] {1, spec.latentChannels(), 1, spec.latentLength(mu)}, 'c');
        return cropped(decodeGraph().output(Map.of(LATENT, z), OUTPUT).get(OUTPUT), scale);
    }

    private SameDiff decodeGraph() {
        if (decodeGraph == null) {
            SameDiff sd = SameDiff.create();
            SDVariable z = sd.placeHolder(LATENT, DataType.FLOAT, 1, spec.latentChannels(), 1,
                    spec.latentLength(mu));
            SDVariable h = ConvStack.upsample(sd, "decoder", z, decoder, spec, paddedLength);
            ConvStack.closing(sd, "decoder", h, decoder).rename(OUTPUT);
            decodeGraph = sd;
        }
        return decodeGraph;
    }

    @Override
    void prepareDecoders() {
        decode(new float[latentSize()], 1f);
    }

    @Override
    Map<String, INDArray> dryRunPlaceholders() {
        return Map.of();
    }

    @Override
    SameDiff buildTrainGraph() {
        SameDiff sd = SameDiff.create();
        SDVariable x = sd.placeHolder(INPUT, DataType.FLOAT, ranks, 1, 1, paddedLength);
        sd.placeHolder(MASK, DataType.FLOAT, 1, 1, 1, paddedLength);
        SDVariable z = ConvStack.encode(sd, "encoder", x, encoder, spec);
        SDVariable h = ConvStack.upsample(sd, "decoder", z.mean(true, 0), decoder, spec, paddedLength);
        SDVariable rec = ConvStack.closing(sd, "decoder", h, decoder);
        addLosses(sd, z, maskedMse(sd, rec, x.mean(true, 0), 1));
        return sd;
    }
}

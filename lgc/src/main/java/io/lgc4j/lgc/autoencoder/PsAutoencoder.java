package io.lgc4j.lgc.autoencoder;

import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.sparse.TopK;
import org.nd4j.autodiff.samediff.SDVariable;
import org.nd4j.autodiff.samediff.SameDiff;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The parameter server's autoencoder (seeds/003 Section IV-A, Figs. 5(a) and 6): one encoder E_c and K decoders
 * D_c^k. Each decoder upsamples the common latent and, before its closing 1×1 convolution, reads rank k's innovation
 * (the top {@code innovationShare} of its compact vector by magnitude, zeros elsewhere) as a second channel.
 *
 * <p>Training (eqs. 5–7): the server encodes all K compact vectors, L_sim pulls the latents together, and the latent
 * of one rank drawn at random each step is the common one every D_k decodes with its own innovation into rank k's
 * vector (L_rec). In use, the leader rank sends latent + innovation, the others only their innovation.
 *
 * <pre>{@code
 * PsAutoencoder ae = new PsAutoencoder(AutoencoderSpec.PAPER, mu, 4, 0.1, AeTraining.PAPER, seed);
 * AeLosses losses = ae.trainStep(compacts, commonRank);           // TOP_K stage, at the server
 * float[] latent = ae.encode(leaderCompact, scale);                // COMPRESSED stage, at the leader
 * float[] rec = ae.decode(k, latent, innovationOfRankK, scale);    // at the server, for every rank k
 * }</pre>
 */
public final class PsAutoencoder extends GradientAutoencoder {

    private static final String INNOVATION = "innovation";
    private static final String COMMON = "common";

    private final double innovationShare;
    private final List<WeightSet> decoders;
    private final SameDiff[] decodeGraphs;
    private final TopK topK = new TopK();

    /**
     * A fresh autoencoder for compact vectors of length {@code mu} from {@code ranks} ranks.
     *
     * @param innovationShare the share of the compact vector kept as innovation (the paper: 0.1)
     */
    public PsAutoencoder(AutoencoderSpec spec, int mu, int ranks, double innovationShare, AeTraining training,
                         long seed) {
        this(spec, mu, ranks, innovationShare, training, new SplittableRandom(seed));
    }

    private PsAutoencoder(AutoencoderSpec spec, int mu, int ranks, double innovationShare, AeTraining training,
                          SplittableRandom random) {
        super(spec, mu, ranks, training, random);
        if (!(innovationShare > 0 && innovationShare <= 1)) {
            throw new IllegalArgumentException("innovationShare must be in (0, 1], got " + innovationShare);
        }
        this.innovationShare = innovationShare;
        List<WeightSet> d = new ArrayList<>(ranks);
        for (int k = 0; k < ranks; k++) {
            d.add(ConvStack.decoderWeights(spec, WeightSet.Part.PS_DECODER, random));
        }
        this.decoders = List.copyOf(d);
        this.decodeGraphs = new SameDiff[ranks];
    }

    /** The share of a compact vector kept as innovation. */
    public double innovationShare() {
        return innovationShare;
    }

    /** The number of innovation values a rank sends: ⌈share·μ⌉. */
    public int innovationCount() {
        return TopK.countFor(mu, innovationShare);
    }

    /** Decoder D_k's weights. */
    public WeightSet decoderWeights(int rank) {
        return decoders.get(checkRank(rank));
    }

    /** Decoder D_k in its byte form (for a server that restarts, or a standby). */
    public byte[] decoderBytes(int rank) {
        return WeightCodec.write(decoderWeights(rank), mu);
    }

    /** Replaces decoder D_k's weights with {@code bytes}; a mismatch is rejected and changes nothing. */
    public void loadDecoder(int rank, byte[] bytes) {
        WeightCodec.read(bytes, decoderWeights(rank), mu);
    }

    /** Decoder D_k in section {@code prefix/decoder-<k>}, for every k. */
    @Override
    void saveDecoders(CheckpointPart.Builder part, String prefix) {
        for (int k = 0; k < ranks; k++) {
            saveWeights(part, prefix + "/decoder-" + k, decoders.get(k));
        }
    }

    /**
     * Writes into {@code into} the state {@link #save} wrote under {@code prefix} for {@code from} ranks as an
     * autoencoder of {@code to} ranks holds it: the encoder as it was; decoder D_k for k &lt; min(K, K') as it was, and
     * for k ≥ K (more ranks) a copy of D_{k mod K}; each tensor's optimizer state with its decoder (a copy's is its
     * source's), the training steps as they were. Fewer ranks drop the decoders D_k, k ≥ K', and their optimizer state.
     *
     * @throws CheckpointException naming a section that is missing or not this autoencoder's
     */
    public static void resize(CheckpointPart old, String prefix, CheckpointPart.Builder into, int from, int to)
            throws CheckpointException {
        into.section(prefix + "/encoder").putBytes(old.bytes(prefix + "/encoder"));
        for (int k = 0; k < to; k++) {
            into.section(prefix + "/decoder-" + k).putBytes(old.bytes(prefix + "/decoder-" + (k % from)));
        }
        regroupTraining(old, prefix + "/training", into.section(prefix + "/training"), names -> {
            // the training graph's order: the decoders' tensors by k, each decoder's in its order, where the old
            // graph has them; a new decoder's right after the last old one's
            int last = -1;
            for (int i = 0; i < names.size(); i++) {
                last = decoderOf(names.get(i)) == from - 1 ? i : last;
            }
            Map<String, String> plan = new LinkedHashMap<>();
            for (int i = 0; i < names.size(); i++) {
                String name = names.get(i);
                if (decoderOf(name) < to) {
                    plan.put(name, name); // the encoder's, and the kept decoders'
                }
                for (int k = from; i == last && k < to; k++) {
                    String source = "decoder" + (k % from);
                    for (String copied : names) {
                        if (decoderOf(copied) == k % from) {
                            plan.put("decoder" + k + copied.substring(source.length()), copied);
                        }
                    }
                }
            }
            return plan;
        });
    }

    /** The rank whose decoder a training tensor belongs to ({@code decoder<k>/…}), or -1 for the encoder's. */
    private static int decoderOf(String tensor) {
        Matcher m = DECODER_TENSOR.matcher(tensor);
        return m.lookingAt() ? Integer.parseInt(m.group(1)) : -1;
    }

    private static final Pattern DECODER_TENSOR = Pattern.compile("decoder(\\d+)\\D");

    @Override
    void restoreDecoders(CheckpointPart part, String prefix) throws CheckpointException {
        for (int k = 0; k < ranks; k++) {
            restoreWeights(part, prefix + "/decoder-" + k, decoders.get(k));
        }
    }

    /**
     * The positions (ascending, within the compact vector) of {@code compact}'s innovation: its
     * {@link #innovationCount()} largest magnitudes.
     */
    public int[] innovationPositions(float[] compact) {
        checkLength("compact vector", compact, mu);
        int[] picked = new int[innovationCount()];
        int count = topK.select(compact, 0, mu, picked.length, picked);
        return Arrays.copyOf(picked, count);
    }

    /** {@code compact} with everything but its innovation set to zero. */
    public float[] innovation(float[] compact) {
        float[] v = new float[mu];
        for (int i : innovationPositions(compact)) {
            v[i] = compact[i];
        }
        return v;
    }

    /**
     * One training step on the K ranks' compact vectors, all divided by the scale of the common rank's vector
     * (drawn at random by the caller each step, seeds/003 Fig. 6).
     */
    public AeLosses trainStep(float[][] compacts, int commonRank) {
        checkRank(commonRank);
        if (compacts.length != ranks) {
            throw new IllegalArgumentException("a training step takes one compact vector per rank (" + ranks
                    + "), got " + compacts.length);
        }
        float scale = Scale.rms(compacts[commonRank]);
        Map<String, INDArray> placeholders = new HashMap<>();
        for (int k = 0; k < ranks; k++) {
            placeholders.put(INNOVATION + k,
                    Nd4j.create(padded(innovation(compacts[k]), scale), new long[] {1, 1, 1, paddedLength}, 'c'));
        }
        float[] oneHot = new float[ranks];
        oneHot[commonRank] = 1f;
        placeholders.put(COMMON, Nd4j.create(oneHot, new long[] {ranks, 1, 1, 1}, 'c'));
        return step(compacts, scale, placeholders);
    }

    /**
     * Decodes rank {@code rank}'s compact vector from the common latent (encoded with {@code scale}) and the rank's
     * innovation ({@code innovation}: length μ, zero outside the innovation positions, in the model's units).
     */
    public float[] decode(int rank, float[] latent, float[] innovation, float scale) {
        checkRank(rank);
        checkLength("latent", latent, latentSize());
        checkLength("innovation", innovation, mu);
        INDArray z = Nd4j.create(latent, new long[] {1, spec.latentChannels(), 1, spec.latentLength(mu)}, 'c');
        INDArray inn = Nd4j.create(padded(innovation, scale), new long[] {1, 1, 1, paddedLength}, 'c');
        return cropped(decodeGraph(rank).output(Map.of(LATENT, z, INNOVATION, inn), OUTPUT).get(OUTPUT), scale);
    }

    private SameDiff decodeGraph(int rank) {
        if (decodeGraphs[rank] == null) {
            SameDiff sd = SameDiff.create();
            SDVariable z = sd.placeHolder(LATENT, DataType.FLOAT, 1, spec.latentChannels(), 1,
                    spec.latentLength(mu));
            SDVariable inn = sd.placeHolder(INNOVATION, DataType.FLOAT, 1, 1, 1, paddedLength);
            decodeOps(sd, "decoder", z, inn, decoders.get(rank)).rename(OUTPUT);
            decodeGraphs[rank] = sd;
        }
        return decodeGraphs[rank];
    }

    @Override
    void prepareDecoders() {
        for (int k = 0; k < ranks; k++) {
            decode(k, new float[latentSize()], new float[mu], 1f);
        }
    }

    @Override
    Map<String, INDArray> dryRunPlaceholders() {
        Map<String, INDArray> placeholders = new HashMap<>();
        for (int k = 0; k < ranks; k++) {
            placeholders.put(INNOVATION + k, Nd4j.zeros(DataType.FLOAT, 1, 1, 1, paddedLength));
        }
        float[] oneHot = new float[ranks];
        oneHot[0] = 1f;
        placeholders.put(COMMON, Nd4j.create(oneHot, new long[] {ranks, 1, 1, 1}, 'c'));
        return placeholders;
    }

    @Override
    SameDiff buildTrainGraph() {
        SameDiff sd = SameDiff.create();
        SDVariable x = sd.placeHolder(INPUT, DataType.FLOAT, ranks, 1, 1, paddedLength);
        sd.placeHolder(MASK, DataType.FLOAT, 1, 1, 1, paddedLength);
        // the common latent is chosen by a one-hot weight over the ranks (a differentiable gather)
        SDVariable common = sd.placeHolder(COMMON, DataType.FLOAT, ranks, 1, 1, 1);
        SDVariable z = ConvStack.encode(sd, "encoder", x, encoder, spec);
        SDVariable zc = z.mul(common).sum(true, 0);
        SDVariable[] recs = new SDVariable[ranks];
        for (int k = 0; k < ranks; k++) {
            SDVariable inn = sd.placeHolder(INNOVATION + k, DataType.FLOAT, 1, 1, 1, paddedLength);
            recs[k] = decodeOps(sd, "decoder" + k, zc, inn, decoders.get(k));
        }
        SDVariable rec = ranks == 1 ? recs[0] : sd.concat(0, recs);
        addLosses(sd, z, maskedMse(sd, rec, x, ranks));
        return sd;
    }

    private SDVariable decodeOps(SameDiff sd, String scope, SDVariable z, SDVariable innovation, WeightSet w) {
        SDVariable h = ConvStack.upsample(sd, scope, z, w, spec, paddedLength);
        return ConvStack.closing(sd, scope, sd.concat(1, h, innovation), w);
    }

    private int checkRank(int rank) {
        if (rank < 0 || rank >= ranks) {
            throw new IllegalArgumentException("rank must be in [0, " + ranks + "), got " + rank);
        }
        return rank;
    }
}

package io.lgc4j.lgc.autoencoder;

import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.checkpoint.Persistent;
import io.lgc4j.core.checkpoint.SectionReader;
import io.lgc4j.core.checkpoint.SectionWriter;
import org.nd4j.linalg.factory.Nd4j;

import java.util.Arrays;

/**
 * LGC-RAR's linear code: the compact vector (divided by the leader's scale) projected on the top f eigenvectors of
 * the second-moment matrix of the compact vectors seen in the TOP_K stage. Linear, so the mean of the ranks' codes is
 * the code of their mean: the ring's allreduce of the codes and one decode give the projection of the true mean.
 * {@link #fit} rounds the basis to float32, the form that ships ({@link WeightSet.Part#LINEAR}), so the trainer codes
 * with exactly what every other rank loads. Not thread-safe.
 *
 * <pre>{@code
 * LinearRingCode code = new LinearRingCode(mu, 108);   // rank 0; the others: LinearRingCode.receiver(mu, 108)
 * code.trainStep(compacts, leader);                   // TOP_K stage, rank 0, every step
 * code.fit(); byte[] basis = code.basisBytes();       // at the switch, shipped to every rank: code.loadBasis(basis)
 * float[] z = code.encode(myCompact, scale);          // COMPRESSED stage, every rank; the ring sums the z
 * float[] mean = code.decode(meanZ, scale);
 * }</pre>
 */
public final class LinearRingCode implements Persistent {

    private static final String BASIS = "basis";

    private final int mu;
    private final int size;
    private final double[][] moment; // null on a receiver
    private long vectors;
    private final WeightSet weights;
    private float[][] basis; // rows: the f directions; null until fitted or loaded

    /**
     * The code that fits the basis (the trainer's): it accumulates the second moment, μ × μ doubles.
     *
     * @param mu   the compact vector's length
     * @param size f, the code's length, in [1, μ]
     */
    public LinearRingCode(int mu, int size) {
        this(mu, size, true);
    }

    /**
     * A code that only loads the basis the trainer fitted ({@link #loadBasis}, or a checkpoint's): no second moment
     * is kept, so {@link #trainStep} and {@link #fit} are refused.
     *
     * @param mu   the compact vector's length
     * @param size f, the code's length, in [1, μ]
     */
    public static LinearRingCode receiver(int mu, int size) {
        return new LinearRingCode(mu, size, false);
    }

    private LinearRingCode(int mu, int size, boolean fits) {
        if (mu < 1) {
            throw new IllegalArgumentException("the compact vector must hold at least one value, got μ = " + mu);
        }
        if (size < 1 || size > mu) {
            throw new IllegalArgumentException("a linear code of a compact vector of " + mu + " values has 1 to " + mu
                    + " floats, got " + size);
        }
        this.mu = mu;
        this.size = size;
        this.moment = fits ? new double[mu][mu] : null;
        this.weights = new WeightSet(WeightSet.Part.LINEAR);
        weights.addZeros(BASIS, new long[] {size, mu});
    }

    /** f, the floats of a code. */
    public int latentSize() {
        return size;
    }

    /** Whether the basis has been fitted or loaded (before, encoding is refused). */
    public boolean ready() {
        return basis != null;
    }

    /**
     * One TOP_K step: the K ranks' compact vectors, each divided by the scale of rank {@code referenceRank}'s (the
     * leader's, as the compressed stage encodes them), join the second moment. Returns the step's loss before it
     * joins, in the units of the autoencoders' L_rec: the mean square of (code of the mean − mean) over the μ
     * positions, with the basis fitted last (all zeros before the first fit: the mean's own energy).
     */
    public AeLosses trainStep(float[][] compacts, int referenceRank) {
        requireFitter("train");
        if (referenceRank < 0 || referenceRank >= compacts.length) {
            throw new IllegalArgumentException("referenceRank must be in [0, " + compacts.length + "), got "
                    + referenceRank);
        }
        double scale = Scale.rms(compacts[referenceRank]);
        double[] mean = new double[mu];
        for (int k = 0; k < compacts.length; k++) {
            if (compacts[k].length != mu) {
                throw new IllegalArgumentException("compact vector of rank " + k + " has " + compacts[k].length
                        + " values, expected " + mu);
            }
            for (int i = 0; i < mu; i++) {
                mean[i] += compacts[k][i] / (double) compacts.length;
            }
        }
        double loss = 0;
        double[] projected = scale == 0 ? new double[mu] : project(mean);
        for (int i = 0; i < mu; i++) {
            double d = scale == 0 ? 0 : (projected[i] - mean[i]) / scale;
            loss += d * d / mu;
        }
        if (scale > 0) {
            double[] v = new double[mu];
            for (float[] compact : compacts) {
                for (int i = 0; i < mu; i++) {
                    v[i] = compact[i] / scale;
                }
                for (int i = 0; i < mu; i++) {
                    if (v[i] == 0) {
                        continue;
                    }
                    double[] row = moment[i];
                    for (int j = 0; j < mu; j++) {
                        row[j] += v[i] * v[j];
                    }
                }
                vectors++;
            }
        }
        return new AeLosses(loss, 0, loss);
    }

    /** Fits the basis to the vectors seen so far: the top f eigenvectors of their second moment, as float32. */
    public void fit() {
        requireFitter("fit");
        SymmetricEigen eigen = SymmetricEigen.of(moment);
        float[] flat = new float[size * mu];
        for (int j = 0; j < size; j++) {
            double[] direction = eigen.vector(j);
            for (int i = 0; i < mu; i++) {
                flat[j * mu + i] = (float) direction[i];
            }
        }
        weights.get(BASIS).assign(Nd4j.create(flat, new long[] {size, mu}, 'c'));
        basis = rows(flat);
    }

    /** The basis in its shippable weight form ({@link WeightSet.Part#LINEAR}); fit or load it first. */
    public byte[] basisBytes() {
        requireReady("ship");
        return WeightCodec.write(weights, mu);
    }

    /** Replaces the basis with {@code bytes}; a form for another part, μ or f is rejected and changes nothing. */
    public void loadBasis(byte[] bytes) {
        WeightCodec.read(bytes, weights, mu);
        basis = rows(weights.get(BASIS).dup('c').data().asFloat());
    }

    /** The code of {@code compact} divided by {@code scale}: its f coordinates on the basis. */
    public float[] encode(float[] compact, float scale) {
        requireReady("encode");
        if (compact.length != mu) {
            throw new IllegalArgumentException("compact vector has " + compact.length + " values, expected " + mu);
        }
        float[] z = new float[size];
        for (int j = 0; j < size; j++) {
            double c = 0;
            float[] row = basis[j];
            for (int i = 0; i < mu; i++) {
                c += (double) row[i] * compact[i];
            }
            z[j] = scale == 0 ? 0f : (float) (c / scale);
        }
        return z;
    }

    /** The vector of code {@code z} (a mean of codes, as the ring delivers it) times {@code scale}. */
    public float[] decode(float[] z, float scale) {
        requireReady("decode");
        if (z.length != size) {
            throw new IllegalArgumentException("code has " + z.length + " floats, expected " + size);
        }
        double[] x = new double[mu];
        for (int j = 0; j < size; j++) {
            float[] row = basis[j];
            for (int i = 0; i < mu; i++) {
                x[i] += (double) row[i] * z[j];
            }
        }
        float[] out = new float[mu];
        for (int i = 0; i < mu; i++) {
            out[i] = (float) (x[i] * scale);
        }
        return out;
    }

    /** Whether this code accumulates the second moment and fits the basis (the trainer's), or only receives it. */
    public boolean fits() {
        return moment != null;
    }

    private void requireFitter(String what) {
        if (moment == null) {
            throw new IllegalStateException("this linear code only receives its basis and cannot " + what
                    + ": the trainer's code (new LinearRingCode) accumulates the second moment and fits it");
        }
    }

    /**
     * Saves, on the code that fits, {@code prefix/moment} (the vector count, int64, then the μ × μ second moment,
     * float64 row by row) and, once fitted or loaded, {@code prefix/basis} (the weight form); a restore of a save
     * before the fit has no basis. A receiver saves its basis only.
     */
    @Override
    public void save(CheckpointPart.Builder part, String prefix) {
        if (moment != null) {
            SectionWriter w = part.section(prefix + "/moment").putLong(vectors);
            for (double[] row : moment) {
                for (double v : row) {
                    w.putDouble(v);
                }
            }
        }
        if (basis != null) {
            part.section(prefix + "/basis").putBytes(basisBytes());
        }
    }

    @Override
    public void restore(CheckpointPart part, String prefix) throws CheckpointException {
        String section = prefix + "/moment";
        if (moment != null) {
            long expected = 8L + 8L * mu * mu;
            int found = part.sectionLength(section);
            if (found != expected) {
                throw SectionChecks.refuse(part, section, "expected the second moment of μ = " + mu + " ("
                        + SectionChecks.count(expected) + " bytes), found " + SectionChecks.count(found) + " bytes");
            }
        }
        String basisSection = prefix + "/basis";
        byte[] shipped = part.has(basisSection) ? part.bytes(basisSection) : null;
        if (shipped != null) {
            try {
                loadBasis(shipped);
            } catch (WeightCodec.WeightFormatException e) {
                CheckpointException refused = SectionChecks.refuse(part, basisSection, e.getMessage());
                refused.initCause(e);
                throw refused;
            }
        } else {
            basis = null;
        }
        if (moment == null) {
            return;
        }
        SectionReader r = part.section(section);
        vectors = r.getLong();
        for (double[] row : moment) {
            for (int j = 0; j < mu; j++) {
                row[j] = r.getDouble();
            }
        }
    }

    /** The projection of {@code x} on the basis (zero when there is none yet). */
    private double[] project(double[] x) {
        double[] p = new double[mu];
        if (basis == null) {
            return p;
        }
        for (float[] row : basis) {
            double c = 0;
            for (int i = 0; i < mu; i++) {
                c += row[i] * x[i];
            }
            for (int i = 0; i < mu; i++) {
                p[i] += c * row[i];
            }
        }
        return p;
    }

    private float[][] rows(float[] flat) {
        float[][] r = new float[size][];
        for (int j = 0; j < size; j++) {
            r[j] = Arrays.copyOfRange(flat, j * mu, (j + 1) * mu);
        }
        return r;
    }

    private void requireReady(String what) {
        if (basis == null) {
            throw new IllegalStateException("the linear code cannot " + what + " before its basis is fitted or "
                    + "loaded");
        }
    }
}

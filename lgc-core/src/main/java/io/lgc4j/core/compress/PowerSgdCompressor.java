package io.lgc4j.core.compress;

import io.lgc4j.core.checkpoint.CheckpointException;
import io.lgc4j.core.checkpoint.CheckpointPart;
import io.lgc4j.core.checkpoint.Persistent.Regrouping;
import io.lgc4j.core.checkpoint.SectionReader;
import io.lgc4j.core.checkpoint.SectionWriter;
import io.lgc4j.core.layout.ParamBlock;
import io.lgc4j.core.settings.SettingsException;

import io.lgc4j.core.protocol.LowRankPlan;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;

/**
 * PowerSGD (Vogels, Karimireddy and Jaggi, NeurIPS 2019) as PyTorch's {@code powerSGD_hook} runs it: one step of
 * subspace iteration per training step, warm-started from the previous step's Q, with error feedback. Per factored
 * block ({@link LowRankPlan}): P = mean M·Q, P̂ = Gram–Schmidt(P), Q̄ = mean Mᵀ·P̂, applied = P̂·Q̄ᵀ,
 * memory = M − applied. Plain blocks are averaged exactly and keep no memory.
 *
 * <p>The first Q (and every Q without warm start) is drawn from (seed, step, block) and orthonormalized, the same on
 * every rank. Arithmetic is plain Java in a fixed order with double accumulation: the same inputs give the same bits
 * on every rank and every run.
 *
 * <pre>{@code
 * LowRankCompressor psgd = new PowerSgdCompressor(new PowerSgdCompressor.Settings(2, 2.0, true, true), seed);
 * }</pre>
 */
public final class PowerSgdCompressor implements LowRankCompressor {

    /**
     * The settings of {@code compressor: {type: powersgd}}.
     *
     * @param rank               the approximation rank r, {@code >= 1} (PyTorch's {@code matrix_approximation_rank})
     * @param minCompressionRate a block is factored only when its factors are this many times smaller than it,
     *                           {@code >= 0} (PyTorch's {@code min_compression_rate}, default 2)
     * @param warmStart          reuse the previous step's Q (PyTorch's {@code warm_start}); else a fresh random Q
     *                           each step
     * @param errorFeedback      keep M − applied as the memory (PyTorch's {@code use_error_feedback}); else none
     */
    public record Settings(int rank, double minCompressionRate, boolean warmStart, boolean errorFeedback) {
        /** Checks every component, naming the first that is out of range. */
        public Settings {
            SettingsException.require(rank >= 1, "rank", "must be >= 1, found " + rank);
            SettingsException.require(minCompressionRate >= 0 && minCompressionRate < Double.POSITIVE_INFINITY,
                    "minCompressionRate", "must be finite and >= 0, found " + minCompressionRate);
        }

        /** Rank {@code rank} with PyTorch's defaults: min compression rate 2, warm start, error feedback. */
        public Settings(int rank) {
            this(rank, DEFAULT_MIN_COMPRESSION_RATE, true, true);
        }
    }

    /** PyTorch's default {@code min_compression_rate}. */
    public static final double DEFAULT_MIN_COMPRESSION_RATE = 2.0;

    /** Registers {@code powersgd} (META-INF/services). */
    public static final class Provider implements CompressorProvider<Settings> {
        @Override
        public String type() {
            return "powersgd";
        }

        @Override
        public Class<Settings> settingsType() {
            return Settings.class;
        }

        /** Rank 1, min compression rate 2, warm start and error feedback on: PyTorch's defaults. */
        @Override
        public Optional<Settings> defaults() {
            return Optional.of(new Settings(1));
        }

        /** PowerSGD drawing its first Qs from the run's {@code seed}. */
        @Override
        public Optional<Compressor> create(Settings settings, long seed) {
            return Optional.of(new PowerSgdCompressor(settings, seed));
        }
    }

    private final Settings settings;
    private final long seed;

    /**
     * @param settings rank and options
     * @param seed     the run's seed; every rank must be given the same
     */
    public PowerSgdCompressor(Settings settings, long seed) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.seed = seed;
    }

    @Override
    public String name() {
        return "powersgd";
    }

    @Override
    public Settings settings() {
        return settings;
    }

    @Override
    public String toString() {
        return "powersgd(rank=" + settings.rank() + ", minCompressionRate=" + settings.minCompressionRate()
                + (settings.warmStart() ? "" : ", no warm start") + (settings.errorFeedback() ? "" : ", no memory")
                + ", seed=" + seed + ")";
    }

    /** The fraction of {@code block}'s bytes a rank sends per step: its P and Q over its size, or 1 when plain. */
    @Override
    public double density(int step, ParamBlock block) {
        int rows = LowRankPlan.rows(block);
        int cols = LowRankPlan.cols(block);
        int r = LowRankPlan.factoredRank(rows, cols, settings.rank(), settings.minCompressionRate());
        return new LowRankPlan.Entry(block, rows, cols, r, 0, r > 0 ? 0 : -1).density();
    }

    /** The plan must exist: the rank fits some block, and some block is factored. */
    @Override
    public void check(List<ParamBlock> blocks) {
        plan(blocks);
    }

    @Override
    public LowRankPlan plan(List<ParamBlock> blocks) {
        return LowRankPlan.of(blocks, settings.rank(), settings.minCompressionRate());
    }

    @Override
    public State newRank(List<ParamBlock> blocks) {
        return new RankState(plan(blocks), new Region(blocks), settings, seed);
    }

    /** One rank: its memory (region coordinates), each factored block's Q and, within a step, M and P̂. */
    private static final class RankState implements State {
        private final LowRankPlan plan;
        private final Region region;
        private final Settings settings;
        private final long seed;
        /** Compensated in place: M within a step, M − P̂·Q̄ᵀ (what the factors did not carry) after it. */
        private final ErrorFeedback memory;
        private final float[][] q;
        private final float[] orthonormalP;
        private final float[] plainMean;
        /** Per block, the round it waits for: 0 project (between steps), 1 back, 2 finish. */
        private final byte[] round;
        private int[] all = new int[0];
        private OfferTap tap;
        /** The step some block has begun and not finished, or -1. */
        private int openStep = -1;
        private int blocksOpen;

        RankState(LowRankPlan plan, Region region, Settings settings, long seed) {
            this.plan = plan;
            this.region = region;
            this.settings = settings;
            this.seed = seed;
            this.memory = ErrorFeedback.inPlace(region, "memory");
            this.q = new float[region.blockCount()][];
            this.orthonormalP = new float[plan.pLength()];
            this.plainMean = new float[plan.plainLength()];
            this.round = new byte[region.blockCount()];
        }

        /**
         * The memory M − P̂·Q̄ᵀ (region coordinates) and each factored block's warm-start Q (absent before its first
         * step); M and P̂ live within a step only.
         */
        @Override
        public void save(CheckpointPart.Builder part, String prefix) {
            if (openStep >= 0) {
                throw new IllegalStateException("PowerSGD rank state: save called while step " + openStep
                        + " is open: a state is saved between steps");
            }
            memory.save(part, prefix);
            SectionWriter w = part.section(prefix + "/q");
            for (float[] block : q) {
                w.putInt(block == null ? -1 : block.length);
                if (block != null) {
                    w.putFloats(block);
                }
            }
        }

        @Override
        public Regrouping regrouping(String prefix) {
            // Q̄ is the mean every rank holds alike; the memory M − P̂Q̄ᵀ is each rank's
            return memory.regrouping(prefix).and(prefix + "/q", Regrouping.Rule.REPLICATED);
        }

        @Override
        public void restore(CheckpointPart part, String prefix) throws CheckpointException {
            memory.restore(part, prefix);
            SectionReader r = part.section(prefix + "/q");
            float[][] read = new float[q.length][];
            for (int b = 0; b < q.length; b++) {
                int length = r.getInt();
                LowRankPlan.Entry e = plan.entry(b);
                int expected = e.factored() ? e.cols() * e.rank() : -1;
                if (length != -1 && length != expected) {
                    throw new CheckpointException("section '" + prefix + "/q': block " + e.block().qualifiedName()
                            + " has a Q of " + length + " floats, expected " + (expected < 0 ? "none (a plain block)"
                            : expected + " (" + e.cols() + " × " + e.rank() + ")"));
                }
                read[b] = length < 0 ? null : r.getFloats(length);
            }
            r.end();
            System.arraycopy(read, 0, q, 0, q.length);
        }

        @Override
        public LowRankPlan plan() {
            return plan;
        }

        @Override
        public void project(float[] gradient, int step, int from, int to, float[] first) {
            requireLength(first, plan.firstLength(), "first");
            advance(from, to, 0, step, "project");
            float[] m = memory.compensated();
            for (int b = from; b < to; b++) {
                LowRankPlan.Entry e = plan.entry(b);
                ParamBlock block = e.block();
                int start = region.start(b);
                memory.compensate(b, gradient); // M = memory + gradient, in place
                if (tap != null) { // PowerSGD offers all of M and takes no entry out
                    tap.offered(block, m, start, everyIndex(block.length()), block.length());
                }
                if (!e.factored()) {
                    System.arraycopy(m, start, first, e.first(), block.length());
                    continue;
                }
                if (q[b] == null || !settings.warmStart()) {
                    q[b] = randomOrthonormal(e.cols(), e.rank(), step, b);
                }
                multiply(m, start, e.rows(), e.cols(), q[b], e.rank(), first, e.first());
            }
        }

        @Override
        public void back(float[] firstMean, int step, int from, int to, float[] second) {
            requireLength(firstMean, plan.firstLength(), "first");
            requireLength(second, plan.secondLength(), "second");
            advance(from, to, 1, step, "back");
            for (int b = from; b < to; b++) {
                LowRankPlan.Entry e = plan.entry(b);
                if (!e.factored()) {
                    int at = e.first() - plan.pLength();
                    System.arraycopy(firstMean, e.first(), plainMean, at, e.block().length());
                    continue;
                }
                System.arraycopy(firstMean, e.first(), orthonormalP, e.first(), e.rows() * e.rank());
                orthonormalize(orthonormalP, e.first(), e.rows(), e.rank());
                multiplyTransposed(memory.compensated(), region.start(b), e.rows(), e.cols(), orthonormalP, e.first(),
                        e.rank(), second, e.second());
            }
        }

        @Override
        public void finish(float[] secondMean, int step, int from, int to, float[] gradient) {
            requireLength(secondMean, plan.secondLength(), "second");
            advance(from, to, 2, step, "finish");
            float[] m = memory.compensated(); // M becomes the memory in place: M − applied, or 0
            for (int b = from; b < to; b++) {
                LowRankPlan.Entry e = plan.entry(b);
                ParamBlock block = e.block();
                int start = region.start(b);
                if (!e.factored()) {
                    System.arraycopy(plainMean, e.first() - plan.pLength(), gradient, block.offset(), block.length());
                    Arrays.fill(m, start, start + block.length(), 0f);
                    continue;
                }
                float[] qMean = new float[e.cols() * e.rank()];
                System.arraycopy(secondMean, e.second(), qMean, 0, qMean.length);
                apply(orthonormalP, e.first(), qMean, e.rows(), e.cols(), e.rank(), gradient, block.offset(), m, start,
                        settings.errorFeedback());
                q[b] = qMean; // warm start: every rank holds the same mean
            }
            blocksOpen -= to - from;
            if (blocksOpen == 0) {
                openStep = -1;
            }
        }

        @Override
        public void tap(OfferTap tap) {
            this.tap = tap;
        }

        @Override
        public float[] residual() {
            return memory.residual();
        }

        /**
         * Absorbed into the memory M when this PowerSGD keeps one ({@code errorFeedback}); without it the residual is
         * dropped, as every step drops what its factors did not carry. The warm-start Qs are this state's own: a
         * warm-up's are never carried.
         */
        @Override
        public boolean absorb(float[] residual) {
            if (!settings.errorFeedback()) {
                return false;
            }
            memory.absorb(residual);
            return true;
        }

        private int[] everyIndex(int n) {
            if (all.length < n) {
                all = new int[n];
                for (int i = 0; i < n; i++) {
                    all[i] = i;
                }
            }
            return all;
        }

        /**
         * Moves blocks {@code from..to} from round {@code expected} to the next: the rounds come in order, all three
         * for one step, and every block begun is of the open step.
         */
        private void advance(int from, int to, int expected, int step, String call) {
            Objects.checkFromToIndex(from, to, round.length);
            String[] calls = {"project", "back", "finish"};
            for (int b = from; b < to; b++) {
                boolean otherStep = openStep >= 0 && step != openStep;
                if (round[b] != expected || otherStep) {
                    String block = from == 0 && to == round.length ? "" : " of block " + b + " (blocks " + from + ".."
                            + to + ")";
                    throw new IllegalStateException("PowerSGD rank state: " + call + "(step " + step + ")" + block
                            + " called while " + (openStep < 0 ? "no step is open" : "step " + openStep + " waits for "
                            + calls[round[b]]) + ": each step calls project, back,"
                            + " finish in that order");
                }
            }
            if (expected == 0 && to > from) {
                openStep = step;
                blocksOpen += to - from;
            }
            for (int b = from; b < to; b++) {
                round[b] = (byte) ((expected + 1) % 3);
            }
        }

        private static void requireLength(float[] payload, int expected, String which) {
            if (payload.length != expected) {
                throw new IllegalArgumentException("expected a " + which + " payload of " + expected
                        + " floats, found " + payload.length);
            }
        }

        /** A rows × r matrix, N(0, 1) drawn from (seed, step, block), orthonormalized: the same on every rank. */
        private float[] randomOrthonormal(int rows, int r, int step, int block) {
            long mixed = seed * 0x9E3779B97F4A7C15L + (settings.warmStart() ? 0 : step) * 0xBF58476D1CE4E5B9L
                    + block * 0x94D049BB133111EBL;
            Random random = new Random(mixed);
            float[] m = new float[rows * r];
            for (int i = 0; i < m.length; i++) {
                m[i] = (float) random.nextGaussian();
            }
            orthonormalize(m, 0, rows, r);
            return m;
        }
    }

    /*
     * The three products below visit every element of M once per step, so they decide PowerSGD's CPU. Each sums in
     * double, in the order the definitions give (over c, over i, over j ascending, from 0.0), so the bits are those of
     * the plain triple loops (PowerSgdCompressorTest keeps those as the reference); the loops are only arranged so
     * that the JIT keeps the sums in registers and runs the independent ones side by side in vector registers (the
     * factors' columns copied out contiguous first).
     */

    /** out[at + i·r + j] = Σ_c m[start + i·cols + c] · q[c·r + j]: P = M·Q. */
    static void multiply(float[] m, int start, int rows, int cols, float[] q, int r, float[] out, int at) {
        if (r == 1) {
            for (int i = 0; i < rows; i++) {
                int row = start + i * cols;
                double a0 = 0;
                for (int c = 0; c < cols; c++) {
                    a0 += (double) m[row + c] * q[c];
                }
                out[at + i] = (float) a0;
            }
            return;
        }
        if (r == 2) {
            float[][] qc = columns(q, cols, 2);
            float[] q0 = qc[0];
            float[] q1 = qc[1];
            for (int i = 0; i < rows; i++) {
                int row = start + i * cols;
                double a0 = 0;
                double a1 = 0;
                for (int c = 0; c < cols; c++) {
                    double v = m[row + c];
                    a0 += v * q0[c];
                    a1 += v * q1[c];
                }
                out[at + i * 2] = (float) a0;
                out[at + i * 2 + 1] = (float) a1;
            }
            return;
        }
        float[][] qc = columns(q, cols, r);
        for (int i = 0; i < rows; i++) {
            int row = start + i * cols;
            for (int j = 0; j < r; j++) {
                float[] qj = qc[j];
                double a = 0;
                for (int c = 0; c < cols; c++) {
                    a += (double) m[row + c] * qj[c];
                }
                out[at + i * r + j] = (float) a;
            }
        }
    }

    /** out[at + c·r + j] = Σ_i m[start + i·cols + c] · p[pAt + i·r + j]: Q = Mᵀ·P. */
    static void multiplyTransposed(float[] m, int start, int rows, int cols, float[] p, int pAt, int r, float[] out,
                                   int at) {
        double[] acc = new double[r * cols];   // column j of Q at acc[j·cols ..]
        for (int i = 0; i < rows; i++) {
            int row = start + i * cols;
            for (int j = 0; j < r; j++) {
                double pij = p[pAt + i * r + j];
                int aj = j * cols;
                for (int c = 0; c < cols; c++) {
                    acc[aj + c] += m[row + c] * pij;
                }
            }
        }
        for (int c = 0; c < cols; c++) {
            for (int j = 0; j < r; j++) {
                out[at + c * r + j] = (float) acc[j * cols + c];
            }
        }
    }

    /**
     * applied = P̂·Q̄ᵀ (rows × cols; {@code p} rows × r from {@code pAt}, {@code q} cols × r, both row-major) into
     * {@code gradient} from {@code at}, and the memory {@code m} from {@code start} becomes M − applied, or 0 without
     * error feedback.
     */
    static void apply(float[] p, int pAt, float[] q, int rows, int cols, int r, float[] gradient, int at, float[] m,
                      int start, boolean errorFeedback) {
        float[][] qc = columns(q, cols, r);
        double[] sum = new double[cols];
        for (int row = 0; row < rows; row++) {
            Arrays.fill(sum, 0.0);
            for (int j = 0; j < r; j++) {
                double pj = p[pAt + row * r + j];
                float[] qj = qc[j];
                for (int col = 0; col < cols; col++) {
                    sum[col] += pj * qj[col];
                }
            }
            int g = at + row * cols;
            int k = start + row * cols;
            for (int col = 0; col < cols; col++) {
                float applied = (float) sum[col];
                gradient[g + col] = applied;
                m[k + col] = errorFeedback ? m[k + col] - applied : 0f;
            }
        }
    }

    /** The r columns of a row-major n × r matrix, each contiguous. */
    private static float[][] columns(float[] a, int n, int r) {
        float[][] c = new float[r][n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < r; j++) {
                c[j][i] = a[i * r + j];
            }
        }
        return c;
    }

    /**
     * Gram–Schmidt on the r columns of the rows × r row-major matrix at {@code m[at..]}, in place: each column is
     * made orthogonal to the ones before it, then scaled to unit norm. PyTorch's {@code _orthogonalize_gram_schmidt}
     * does one pass in the tensor's precision; here the columns are worked on in double and each is projected out
     * twice ("twice is enough", Giraud et al. 2005): with warm start P = M·Mᵀ·P̂ has the square of M's condition
     * number, and one float pass loses orthogonality enough to show at full rank. A column of norm 0 (nothing left
     * after the projections) stays zero instead of turning NaN.
     */
    static void orthonormalize(float[] m, int at, int rows, int r) {
        double[][] col = new double[r][rows];
        for (int j = 0; j < r; j++) {
            for (int i = 0; i < rows; i++) {
                col[j][i] = m[at + i * r + j];
            }
        }
        for (int j = 0; j < r; j++) {
            double[] c = col[j];
            for (int pass = 0; pass < 2; pass++) {
                for (int k = 0; k < j; k++) {
                    double[] done = col[k];
                    double dot = 0;
                    for (int i = 0; i < rows; i++) {
                        dot += c[i] * done[i];
                    }
                    for (int i = 0; i < rows; i++) {
                        c[i] -= dot * done[i];
                    }
                }
            }
            double norm = 0;
            for (int i = 0; i < rows; i++) {
                norm += c[i] * c[i];
            }
            norm = Math.sqrt(norm);
            for (int i = 0; i < rows; i++) {
                c[i] = norm > 0 ? c[i] / norm : 0;
            }
        }
        for (int j = 0; j < r; j++) {
            for (int i = 0; i < rows; i++) {
                m[at + i * r + j] = (float) col[j][i];
            }
        }
    }
}

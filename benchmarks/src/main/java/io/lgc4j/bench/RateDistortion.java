package io.lgc4j.bench;

import io.lgc4j.lgc.autoencoder.AeTraining;
import io.lgc4j.lgc.autoencoder.AutoencoderSpec;
import io.lgc4j.lgc.autoencoder.AutoencoderTrainer;
import io.lgc4j.lgc.autoencoder.PsAutoencoder;
import io.lgc4j.lgc.autoencoder.RingAutoencoder;
import io.lgc4j.lgc.autoencoder.Scale;
import io.lgc4j.lgc.autoencoder.SymmetricEigen;
import io.lgc4j.core.sparse.TopK;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;

/**
 * How well each code carries the ranks' mean compact vector for the floats it sends: the learned codes (LGC-RAR's
 * and LGC-PS's autoencoders, latent at float32 and at 8 bits) against codes with nothing learned (PCA, top-f on the
 * leader's support, random-f, innovation only, and the top-f of the mean as a bound), at the same floats per rank, on
 * recorded compact vectors ({@link CompactVectorRecorder}). The first {@code trainSteps} steps train the autoencoders
 * online ({@link AutoencoderTrainer}) and fit PCA; every later step is scored with every code frozen (except the
 * "continued" rows) by the relative error ‖a − m‖ / ‖m‖ and the cosine of the delivered mean a against the true mean
 * m, as the diagnostic mode scores a run. Each code's definition: {@code docs/architecture/lgc.md}.
 */
public final class RateDistortion {

    /** The PS innovation share (Algorithm 1). */
    public static final double INNOVATION_SHARE = 0.1;

    private RateDistortion() {
    }

    /**
     * What to run.
     *
     * @param trainSteps recorded steps the codes are fitted on; the rest are scored
     * @param channels   latent channels of the autoencoders compared (the paper: 4, a latent of about μ / 4)
     * @param training   the autoencoders' optimizer and losses
     * @param seed       autoencoder initialization, the PS common-rank draws and the random positions
     */
    public record Settings(int trainSteps, List<Integer> channels, AeTraining training, long seed) {

        /** Rejects bad values, naming the field and the value. */
        public Settings {
            if (trainSteps < 1) {
                throw new IllegalArgumentException("trainSteps must be >= 1, got " + trainSteps);
            }
            channels = List.copyOf(channels);
            if (channels.isEmpty() || channels.stream().anyMatch(c -> c < 1)) {
                throw new IllegalArgumentException("channels must be a non-empty list of positive counts, got "
                        + channels);
            }
            if (training == null) {
                throw new IllegalArgumentException("training must be given");
            }
        }
    }

    /**
     * One code's scores over the scored steps.
     *
     * @param family      "ring" (every rank sends f floats) or "PS" (the PS codes and the exact codes at their floats)
     * @param code        the code's name
     * @param floats      floats per rank per step, on average over the ranks
     * @param bytes       bytes per rank per step for those floats (4 each, 1 for an 8-bit latent value, plus 4 for
     *                    the latent's scale)
     * @param errors      per scored step, the relative error
     * @param cosines     per scored step, the cosine
     */
    public record Row(String family, String code, double floats, double bytes, double[] errors, double[] cosines) {

        /** The mean relative error. */
        public double meanError() {
            return Arrays.stream(errors).average().orElse(Double.NaN);
        }

        /** The mean relative error over the first (or the second) half of the scored steps. */
        public double halfError(boolean second) {
            int h = errors.length / 2;
            return Arrays.stream(errors, second ? h : 0, second ? errors.length : h).average().orElse(Double.NaN);
        }

        /** The mean cosine. */
        public double meanCosine() {
            return Arrays.stream(cosines).average().orElse(Double.NaN);
        }
    }

    /** Fits every code on the first {@code trainSteps} steps of {@code source} and scores it on the rest. */
    public static List<Row> run(AeConvergence.Source source, Settings s, PrintStream log) {
        Split split = Split.of(source, s.trainSteps());
        Map<String, Row> rows = new LinkedHashMap<>();
        TreeSet<Integer> exactSizes = new TreeSet<>();
        int innovationCount = TopK.countFor(split.mu(), INNOVATION_SHARE);
        for (int c : s.channels()) {
            addLearnedRows(c, split, s, innovationCount, log, rows, exactSizes);
        }
        rows.put("ps/innovation", innovationRow(split, s, innovationCount));
        exactSizes.add(innovationCount);

        double[][] basis = secondMomentEigenvectors(split.train(), split.leaders(), split.mu());
        TopK topK = new TopK();
        for (int f : exactSizes) {
            addExactRows(f, split, s, basis, topK, rows);
        }
        return new ArrayList<>(rows.values());
    }

    /**
     * A recording split for {@link #run}.
     *
     * @param mu            the compact vector's length
     * @param ranks         the vectors per step
     * @param train         the steps the codes are fitted on, the recording's first
     * @param leaders       every recorded step's leader, the training steps' first
     * @param scored        the steps the codes are scored on, the rest
     * @param scoredLeaders the scored steps' leaders
     */
    private record Split(int mu, int ranks, List<float[][]> train, int[] leaders, List<float[][]> scored,
                         int[] scoredLeaders) {

        /** {@code source} split after {@code trainSteps} steps; rejects a source without leaders or steps to score. */
        static Split of(AeConvergence.Source source, int trainSteps) {
            int n = source.steps().size();
            if (source.leaders() == null) {
                throw new IllegalArgumentException("the source has no leaders: rate-distortion needs a recording");
            }
            if (trainSteps >= n) {
                throw new IllegalArgumentException("trainSteps (" + trainSteps + ") must leave steps to score: the "
                        + "source holds " + n + " steps");
            }
            return new Split(source.mu(), source.ranks(), source.steps().subList(0, trainSteps), source.leaders(),
                    source.steps().subList(trainSteps, n), Arrays.copyOfRange(source.leaders(), trainSteps, n));
        }
    }

    /** LGC-RAR's and LGC-PS's autoencoders of one latent size, each with its trainer (as the runs train them). */
    private record Learned(RingAutoencoder ring, AutoencoderTrainer ringTrainer, PsAutoencoder ps,
                           AutoencoderTrainer psTrainer) {

        /** Both autoencoders, initialized from the settings' seed. */
        static Learned create(AutoencoderSpec spec, Split split, Settings s) {
            RingAutoencoder ring = new RingAutoencoder(spec, split.mu(), split.ranks(), s.training(), s.seed());
            AutoencoderTrainer ringTrainer = AutoencoderTrainer.ring(ring, s.seed());
            PsAutoencoder ps = new PsAutoencoder(spec, split.mu(), split.ranks(), INNOVATION_SHARE, s.training(),
                    s.seed());
            return new Learned(ring, ringTrainer, ps, AutoencoderTrainer.ps(ps, s.seed()));
        }

        /** One training step of both on a step's vectors {@code g}, the ring's scale reference its leader's. */
        void train(float[][] g, int leader) {
            ringTrainer.step(g, leader);
            psTrainer.step(g);
        }
    }

    /**
     * The scores of the learned codes of one latent size: LGC-RAR at float32 and at 8 bits, LGC-PS, and the
     * continued rows (empty when there are none).
     */
    private record LearnedScores(Scores ring, Scores ring8, Scores ps, Scores ringContinued, Scores psContinued) {
    }

    /**
     * The learned codes' rows at {@code c} latent channels: the autoencoders trained on the training steps, then
     * scored frozen; at the paper's latent also a copy that trains on every scored step after scoring it. Adds the
     * rows to {@code rows} and their floats per rank to {@code exactSizes}, where the exact codes are scored too.
     */
    private static void addLearnedRows(int c, Split split, Settings s, int innovationCount, PrintStream log,
                                       Map<String, Row> rows, Set<Integer> exactSizes) {
        AutoencoderSpec spec = withChannels(c);
        int latent = spec.latentSize(split.mu());
        exactSizes.add(latent);
        long start = System.nanoTime();
        Learned frozen = Learned.create(spec, split, s);
        boolean continued = c == AutoencoderSpec.PAPER.latentChannels(); // the paper's latent only: it costs 2×
        // the continued rows train a second copy on from the same start: same seed, same steps, same weights
        Learned goingOn = continued ? Learned.create(spec, split, s) : null;
        for (int t = 0; t < split.train().size(); t++) {
            frozen.train(split.train().get(t), split.leaders()[t]);
            if (continued) {
                goingOn.train(split.train().get(t), split.leaders()[t]);
            }
        }
        log.printf(Locale.ROOT, "latent %d channels (%d floats): trained on %d steps in %.1f s%n", c, latent,
                split.train().size(), (System.nanoTime() - start) / 1e9);
        LearnedScores scores = scoreLearned(frozen, goingOn, split);
        String tag = String.format(Locale.ROOT, "%d ch", c);
        rows.put("ring/lgc/" + c, scores.ring().row("ring", "LGC-RAR (" + tag + ")", latent, 4.0 * latent + 4));
        rows.put("ring/lgc8/" + c, scores.ring8().row("ring", "LGC-RAR, 8-bit latent (" + tag + ")", latent,
                latent + 4.0 + 4));
        double psFloats = (double) latent / split.ranks() + innovationCount;
        rows.put("ps/lgc/" + c, scores.ps().row("PS", "LGC-PS (" + tag + ")", psFloats,
                4.0 * psFloats + 4.0 / split.ranks()));
        exactSizes.add((int) Math.round(psFloats));
        if (continued) {
            rows.put("ring/lgc-cont/" + c, scores.ringContinued().row("ring",
                    "LGC-RAR (" + tag + "), training on every scored step after scoring it", latent,
                    4.0 * latent + 4));
            rows.put("ps/lgc-cont/" + c, scores.psContinued().row("PS",
                    "LGC-PS (" + tag + "), training on every scored step after scoring it", psFloats,
                    4.0 * psFloats + 4.0 / split.ranks()));
        }
    }

    /**
     * Scores the frozen codes on every scored step and, with {@code goingOn} (null: none), that copy too, training
     * it on each step after scoring it.
     */
    private static LearnedScores scoreLearned(Learned frozen, Learned goingOn, Split split) {
        int steps = split.scored().size();
        LearnedScores scores = new LearnedScores(new Scores(steps), new Scores(steps), new Scores(steps),
                new Scores(steps), new Scores(steps));
        for (int t = 0; t < steps; t++) {
            float[][] g = split.scored().get(t);
            int leader = split.scoredLeaders()[t];
            double[] mean = mean(g);
            double[][] ringMeans = ringMeans(frozen.ring(), g, leader);
            scores.ring().add(t, mean, ringMeans[0]);
            scores.ring8().add(t, mean, ringMeans[1]);
            scores.ps().add(t, mean, psMean(frozen.ps(), g, leader));
            if (goingOn != null) {
                scores.ringContinued().add(t, mean, ringMeans(goingOn.ring(), g, leader)[0]);
                scores.psContinued().add(t, mean, psMean(goingOn.ps(), g, leader));
                goingOn.train(g, leader);
            }
        }
        return scores;
    }

    /** The mean of the K innovations alone (LGC-PS without the decoders' output), on every scored step. */
    private static Row innovationRow(Split split, Settings s, int innovationCount) {
        Scores innovation = new Scores(split.scored().size());
        PsAutoencoder innovationOnly = new PsAutoencoder(AutoencoderSpec.PAPER, split.mu(), split.ranks(),
                INNOVATION_SHARE, s.training(), s.seed());
        for (int t = 0; t < split.scored().size(); t++) {
            float[][] g = split.scored().get(t);
            double[] a = new double[split.mu()];
            for (float[] v : g) {
                float[] inn = innovationOnly.innovation(v);
                for (int i = 0; i < split.mu(); i++) {
                    a[i] += inn[i] / (double) split.ranks();
                }
            }
            innovation.add(t, mean(g), a);
        }
        return innovation.row("PS", "innovation only (each rank's top 10 %)", innovationCount,
                4.0 * innovationCount);
    }

    /**
     * The codes with nothing learned at {@code f} floats per rank, scored on every scored step: PCA on
     * {@code basis}, top-f on the leader's support, random-f, and the bound, top-f of the mean.
     */
    private static void addExactRows(int f, Split split, Settings s, double[][] basis, TopK topK,
                                     Map<String, Row> rows) {
        int mu = split.mu();
        List<float[][]> scored = split.scored();
        Scores pca = new Scores(scored.size());
        Scores leaderTop = new Scores(scored.size());
        Scores random = new Scores(scored.size());
        Scores oracle = new Scores(scored.size());
        int[] picked = new int[Math.min(f, mu)];
        for (int t = 0; t < scored.size(); t++) {
            float[][] g = scored.get(t);
            double[] mean = mean(g);
            pca.add(t, mean, project(basis, mean, Math.min(f, mu)));
            int count = topK.select(g[split.scoredLeaders()[t]], 0, mu, picked.length, picked);
            leaderTop.add(t, mean, keep(mean, Arrays.copyOf(picked, count)));
            random.add(t, mean, keep(mean, randomPositions(mu, picked.length,
                    new SplittableRandom(s.seed() * 1_000_003L + s.trainSteps() + t))));
            float[] meanF = new float[mu];
            for (int i = 0; i < mu; i++) {
                meanF[i] = (float) mean[i];
            }
            count = topK.select(meanF, 0, mu, picked.length, picked);
            oracle.add(t, mean, keep(mean, Arrays.copyOf(picked, count)));
        }
        rows.put("exact/pca/" + f, pca.row("exact", "PCA fitted on the training steps", f, 4.0 * f));
        rows.put("exact/top/" + f, leaderTop.row("exact", "top-f on the leader's support", f, 4.0 * f));
        rows.put("exact/random/" + f, random.row("exact", "random-f, seeded positions", f, 4.0 * f));
        rows.put("exact/oracle/" + f, oracle.row("exact", "top-f of the mean (a bound, not a code)", f,
                4.0 * f));
    }

    /** The paper's architecture with {@code channels} latent channels (a latent of about μ · channels / 16). */
    static AutoencoderSpec withChannels(int channels) {
        AutoencoderSpec p = AutoencoderSpec.PAPER;
        return new AutoencoderSpec(p.encoderFilters(), p.encoderStride(), p.kernel(), channels, p.decoderFilters(),
                p.decoderStrides(), p.leakyAlpha());
    }

    /**
     * LGC-RAR's delivered mean, with the latents at float32 and at 8 bits: the decoder on the mean of the K latents,
     * each encoded with the leader's scale.
     */
    private static double[][] ringMeans(RingAutoencoder ae, float[][] g, int leader) {
        float scale = Scale.rms(g[leader]);
        float[] sum = new float[ae.latentSize()];
        float[] sum8 = new float[ae.latentSize()];
        for (float[] v : g) {
            float[] z = ae.encode(v, scale);
            float[] z8 = quantized(z);
            for (int i = 0; i < z.length; i++) {
                sum[i] += z[i];
                sum8[i] += z8[i];
            }
        }
        for (int i = 0; i < sum.length; i++) {
            sum[i] /= g.length;
            sum8[i] /= g.length;
        }
        return new double[][] {toDouble(ae.decode(sum, scale)), toDouble(ae.decode(sum8, scale))};
    }

    /** LGC-PS's delivered mean: the K decoders on the leader's latent, each rank's innovation put over its output. */
    private static double[] psMean(PsAutoencoder ae, float[][] g, int leader) {
        float scale = Scale.rms(g[leader]);
        float[] latent = ae.encode(g[leader], scale);
        double[] a = new double[g[0].length];
        for (int k = 0; k < g.length; k++) {
            float[] innovation = ae.innovation(g[k]);
            float[] rec = ae.decode(k, latent, innovation, scale);
            for (int i = 0; i < a.length; i++) {
                a[i] += (innovation[i] != 0 ? innovation[i] : rec[i]) / (double) g.length;
            }
        }
        return a;
    }

    /**
     * {@code z} sent at 8 bits: each value rounded to the nearest of 255 levels spanning ±max|z| (the scale, one
     * float, travels with it), and read back.
     */
    static float[] quantized(float[] z) {
        float max = 0;
        for (float v : z) {
            max = Math.max(max, Math.abs(v));
        }
        float[] q = new float[z.length];
        if (max == 0) {
            return q;
        }
        float step = max / 127f;
        for (int i = 0; i < z.length; i++) {
            q[i] = Math.round(z[i] / step) * step;
        }
        return q;
    }

    /**
     * The eigenvectors of the second-moment matrix of the training steps' vectors (each divided by its step's
     * leader's RMS, as the autoencoders see them), by descending eigenvalue: row j is the j-th basis vector.
     */
    static double[][] secondMomentEigenvectors(List<float[][]> steps, int[] leaders, int mu) {
        double[][] moment = new double[mu][mu];
        int count = 0;
        for (int t = 0; t < steps.size(); t++) {
            float[][] g = steps.get(t);
            double scale = Scale.rms(g[leaders[t]]);
            if (scale == 0) {
                continue;
            }
            double[] x = new double[mu];
            for (float[] v : g) {
                for (int i = 0; i < mu; i++) {
                    x[i] = v[i] / scale;
                }
                for (int i = 0; i < mu; i++) {
                    if (x[i] == 0) {
                        continue;
                    }
                    for (int j = 0; j < mu; j++) {
                        moment[i][j] += x[i] * x[j]; // exactly symmetric, as the eigensolver requires
                    }
                }
                count++;
            }
        }
        if (count > 0) {
            for (double[] row : moment) {
                for (int j = 0; j < mu; j++) {
                    row[j] /= count;
                }
            }
        }
        return SymmetricEigen.of(moment).vectors();
    }

    /** The projection of {@code x} onto the first {@code f} basis vectors. */
    static double[] project(double[][] basis, double[] x, int f) {
        double[] a = new double[x.length];
        for (int j = 0; j < f; j++) {
            double c = 0;
            for (int i = 0; i < x.length; i++) {
                c += basis[j][i] * x[i];
            }
            for (int i = 0; i < x.length; i++) {
                a[i] += c * basis[j][i];
            }
        }
        return a;
    }

    /** {@code f} distinct positions of [0, mu), by Floyd's algorithm. */
    static int[] randomPositions(int mu, int f, SplittableRandom random) {
        LinkedHashSet<Integer> chosen = new LinkedHashSet<>();
        for (int j = mu - f; j < mu; j++) {
            int r = random.nextInt(j + 1);
            chosen.add(chosen.contains(r) ? j : r);
        }
        return chosen.stream().mapToInt(Integer::intValue).toArray();
    }

    private static double[] keep(double[] x, int[] positions) {
        double[] a = new double[x.length];
        for (int i : positions) {
            a[i] = x[i];
        }
        return a;
    }

    private static double[] mean(float[][] g) {
        double[] m = new double[g[0].length];
        for (float[] v : g) {
            for (int i = 0; i < m.length; i++) {
                m[i] += v[i] / (double) g.length;
            }
        }
        return m;
    }

    private static double[] toDouble(float[] x) {
        double[] d = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            d[i] = x[i];
        }
        return d;
    }

    /** Relative error and cosine per scored step. */
    private static final class Scores {
        private final double[] errors;
        private final double[] cosines;

        Scores(int steps) {
            errors = new double[steps];
            cosines = new double[steps];
        }

        void add(int t, double[] truth, double[] delivered) {
            double diff = 0;
            double norm = 0;
            double dot = 0;
            double dnorm = 0;
            for (int i = 0; i < truth.length; i++) {
                diff += (delivered[i] - truth[i]) * (delivered[i] - truth[i]);
                norm += truth[i] * truth[i];
                dot += delivered[i] * truth[i];
                dnorm += delivered[i] * delivered[i];
            }
            errors[t] = norm == 0 ? 0 : Math.sqrt(diff / norm);
            cosines[t] = norm == 0 || dnorm == 0 ? 0 : dot / Math.sqrt(norm * dnorm);
        }

        Row row(String family, String code, double floats, double bytes) {
            return new Row(family, code, floats, bytes, errors, cosines);
        }
    }

    /**
     * The rows of one or more recordings (each {@link #run}'s list, the same codes in the same order) as a Markdown
     * table: per code the mean over the recordings of each recording's mean, and with several recordings the
     * standard deviation of the relative error across them.
     */
    public static void print(PrintStream out, List<List<Row>> perRecording) {
        List<Row> first = requireAligned(perRecording);
        int n = perRecording.size();
        out.println("| family | code | floats / rank / step | bytes / rank / step | rel. error, mean"
                + (n > 1 ? " ± sd over " + n + " recordings" : "") + " | first half | second half | cosine, mean |");
        out.println("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |");
        for (int j = 0; j < first.size(); j++) {
            double[] errors = new double[n];
            double firstHalf = 0;
            double secondHalf = 0;
            double cosine = 0;
            for (int r = 0; r < n; r++) {
                Row row = perRecording.get(r).get(j);
                errors[r] = row.meanError();
                firstHalf += row.halfError(false) / n;
                secondHalf += row.halfError(true) / n;
                cosine += row.meanCosine() / n;
            }
            double mean = Arrays.stream(errors).average().orElse(Double.NaN);
            String error = n > 1 ? String.format(Locale.ROOT, "%.3f ± %.3f", mean, sd(errors, mean))
                    : String.format(Locale.ROOT, "%.3f", mean);
            Row r = first.get(j);
            out.printf(Locale.ROOT, "| %s | %s | %.1f | %.1f | %s | %.3f | %.3f | %.3f |%n", r.family(), r.code(),
                    r.floats(), r.bytes(), error, firstHalf, secondHalf, cosine);
        }
    }

    /** The rows of one or more recordings as CSV with a header line, one line per recording and code. */
    public static String csv(List<String> recordings, List<List<Row>> perRecording) {
        requireAligned(perRecording);
        StringBuilder b = new StringBuilder("recording,family,code,floats_per_rank,bytes_per_rank,rel_error_mean,"
                + "rel_error_first_half,rel_error_second_half,cosine_mean,scored_steps\n");
        for (int i = 0; i < perRecording.size(); i++) {
            for (Row r : perRecording.get(i)) {
                b.append(String.format(Locale.ROOT, "%s,%s,\"%s\",%.2f,%.2f,%.6f,%.6f,%.6f,%.6f,%d%n",
                        recordings.get(i), r.family(), r.code(), r.floats(), r.bytes(), r.meanError(),
                        r.halfError(false), r.halfError(true), r.meanCosine(), r.errors().length));
            }
        }
        return b.toString();
    }

    private static List<Row> requireAligned(List<List<Row>> perRecording) {
        if (perRecording.isEmpty()) {
            throw new IllegalArgumentException("no recordings to tabulate");
        }
        List<Row> first = perRecording.get(0);
        for (List<Row> rows : perRecording) {
            boolean same = rows.size() == first.size();
            for (int j = 0; same && j < rows.size(); j++) {
                same = rows.get(j).code().equals(first.get(j).code()) && rows.get(j).floats() == first.get(j).floats();
            }
            if (!same) {
                throw new IllegalArgumentException("the recordings' codes differ (another μ or channel list?): "
                        + "they cannot share a table");
            }
        }
        return first;
    }

    private static double sd(double[] values, double mean) {
        if (values.length < 2) {
            return 0;
        }
        double sum = 0;
        for (double v : values) {
            sum += (v - mean) * (v - mean);
        }
        return Math.sqrt(sum / (values.length - 1));
    }
}

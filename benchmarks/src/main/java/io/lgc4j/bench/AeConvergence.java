package io.lgc4j.bench;

import io.lgc4j.lgc.autoencoder.AeLosses;
import io.lgc4j.lgc.autoencoder.AeTraining;
import io.lgc4j.lgc.autoencoder.AutoencoderSpec;
import io.lgc4j.lgc.autoencoder.AutoencoderTrainer;
import io.lgc4j.lgc.autoencoder.PsAutoencoder;
import io.lgc4j.lgc.autoencoder.RingAutoencoder;
import io.lgc4j.lgc.autoencoder.Scale;
import io.lgc4j.lgc.autoencoder.SyntheticGradients;
import io.lgc4j.core.sparse.TopK;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.Sgd;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The analog of the paper's Fig. 14: the reconstruction loss of the autoencoders over their online training (the
 * TOP_K stage), with the similarity loss off (λ2 = 0) and on (λ2 = 0.5), for the parameter server and the ring, as
 * Markdown tables, on {@link SyntheticGradients} and, when given, a recorded {@link CompactVectorFile}. Every
 * configuration of one data source trains a fresh autoencoder ({@link AutoencoderTrainer}) from the same seed on the
 * same steps, so columns differ only by topology and λ2. A row is the mean loss within ±{@code window} steps; below
 * each table, the {@link Baselines} that learning nothing would score. Details: {@code docs/architecture/lgc.md}.
 *
 * <pre>{@code
 * AeConvergence.run(System.out, AeConvergence.Settings.DEFAULT, recordingOrNull, csvOrNull);
 * }</pre>
 */
public final class AeConvergence {

    /** The λ2 values compared, as in Fig. 14. */
    public static final double[] LAMBDA_SIM = {0.0, 0.5};
    /** The PS innovation share (Algorithm 1). */
    public static final double INNOVATION_SHARE = 0.1;

    private AeConvergence() {
    }

    /** The optimizers the command offers. */
    public enum Optimizer {
        /** Plain SGD, the paper's choice (learning rate 1e-3). */
        SGD,
        /** Adam, this project's default ({@link AeTraining#DEFAULT}). */
        ADAM;

        /** A fresh updater configuration at learning rate {@code lr}. */
        public IUpdater create(double lr) {
            return this == SGD ? new Sgd(lr) : new Adam(lr);
        }
    }

    /**
     * What to run.
     *
     * @param mu         length of the synthetic vectors
     * @param workers    K of the synthetic vectors (a recording brings its own)
     * @param innovation size of the synthetic per-rank part relative to the common part
     * @param steps      training steps per configuration
     * @param optimizer  the optimizer
     * @param lr         its learning rate
     * @param seed       seed of the autoencoders, the synthetic data and the common-rank draw
     * @param every      steps between table rows
     * @param window     a row averages the steps within ± this many steps
     */
    public record Settings(int mu, int workers, double innovation, int steps, Optimizer optimizer, double lr,
                           long seed, int every, int window) {

        /** μ = 1000, K = 4, innovation 0.2, 300 steps, Adam 1e-3, seed 42, rows every 25 steps, ±5-step window. */
        public static final Settings DEFAULT = new Settings(1000, 4, 0.2, 300, Optimizer.ADAM, 1e-3, 42, 25, 5);

        /** Rejects bad values, naming the field and the value. */
        public Settings {
            if (mu < 1) {
                throw new IllegalArgumentException("mu must be >= 1, got " + mu);
            }
            if (workers < 1) {
                throw new IllegalArgumentException("workers must be >= 1, got " + workers);
            }
            if (!(innovation >= 0) || Double.isInfinite(innovation)) {
                throw new IllegalArgumentException("innovation must be finite and >= 0, got " + innovation);
            }
            if (steps < 1) {
                throw new IllegalArgumentException("steps must be >= 1, got " + steps);
            }
            if (optimizer == null) {
                throw new IllegalArgumentException("optimizer must be given (sgd or adam)");
            }
            if (!(lr > 0) || Double.isInfinite(lr)) {
                throw new IllegalArgumentException("lr must be finite and > 0, got " + lr);
            }
            if (every < 1) {
                throw new IllegalArgumentException("every must be >= 1, got " + every);
            }
            if (window < 0) {
                throw new IllegalArgumentException("window must be >= 0, got " + window);
            }
        }

        /** The same settings with another optimizer and learning rate. */
        public Settings with(Optimizer newOptimizer, double newLr) {
            return new Settings(mu, workers, innovation, steps, newOptimizer, newLr, seed, every, window);
        }
    }

    /**
     * Training data: per step the K compact vectors and, for recorded data, the leader.
     *
     * @param name        how the tables name it
     * @param description where it comes from
     * @param mu          vector length
     * @param ranks       K
     * @param steps       per step, K vectors
     * @param leaders     per step the leader, or null when the data has none
     */
    public record Source(String name, String description, int mu, int ranks, List<float[][]> steps, int[] leaders) {
    }

    /**
     * One configuration's losses, one entry per step.
     *
     * @param topology       "PS" or "ring"
     * @param lambdaSim      λ2
     * @param reconstruction L_rec before each step's update
     * @param similarity     L_sim before each step's update
     * @param total          λ1·L_rec + λ2·L_sim
     */
    public record Curve(String topology, double lambdaSim, double[] reconstruction, double[] similarity,
                        double[] total) {

        /** The mean of {@code values} over steps within ±{@code half} of {@code step}, clipped to the run. */
        static double window(double[] values, int step, int half) {
            int from = Math.max(0, step - half);
            int to = Math.min(values.length - 1, step + half);
            double sum = 0;
            for (int i = from; i <= to; i++) {
                sum += values[i];
            }
            return sum / (to - from + 1);
        }
    }

    /**
     * What a source's vectors look like, and the L_rec a trivial decoder would score on them, from the data alone:
     * the yardsticks a trained autoencoder has to beat.
     *
     * @param correlation  median over steps of the mean Pearson correlation between two ranks' vectors
     * @param spread       median over steps of sqrt(Σ_k ‖g_k − ḡ‖² / (K·‖ḡ‖²)), the ranks' spread around their mean
     * @param psZeros      per step, the PS L_rec of decoders that output zeros (the energy of the targets), expected
     *                     over a uniformly drawn common rank
     * @param psInnovation per step, the PS L_rec of decoders that output exactly each rank's innovation (its top
     *                     {@link #INNOVATION_SHARE} values, which they are given) and zeros elsewhere, expected the same
     *                     way
     * @param ringZeros    per step, the ring L_rec of a decoder that outputs zeros, scaled by the leader's vector when
     *                     the data has leaders, else expected over a uniformly drawn reference rank
     */
    public record Baselines(double correlation, double spread, double[] psZeros, double[] psInnovation,
                            double[] ringZeros) {
    }

    /** Computes the {@link Baselines} of {@code source}. */
    public static Baselines baselines(Source source) {
        int n = source.steps().size();
        int ranks = source.ranks();
        int mu = source.mu();
        int innovationCount = TopK.countFor(mu, INNOVATION_SHARE);
        TopK topK = new TopK();
        int[] picked = new int[innovationCount];
        double[] correlations = new double[n];
        double[] spreads = new double[n];
        double[] psZeros = new double[n];
        double[] psInnovation = new double[n];
        double[] ringZeros = new double[n];
        for (int t = 0; t < n; t++) {
            float[][] g = source.steps().get(t);
            double[] mean = new double[mu];
            double[] energy = new double[ranks];
            double[] outsideInnovation = new double[ranks];
            for (int k = 0; k < ranks; k++) {
                for (int i = 0; i < mu; i++) {
                    mean[i] += g[k][i] / (double) ranks;
                    energy[k] += (double) g[k][i] * g[k][i];
                }
                int count = topK.select(g[k], 0, mu, innovationCount, picked);
                double inside = 0;
                for (int j = 0; j < count; j++) {
                    inside += (double) g[k][picked[j]] * g[k][picked[j]];
                }
                outsideInnovation[k] = energy[k] - inside;
            }
            double meanEnergy = 0;
            for (double m : mean) {
                meanEnergy += m * m;
            }
            double deviation = 0;
            for (int k = 0; k < ranks; k++) {
                for (int i = 0; i < mu; i++) {
                    deviation += (g[k][i] - mean[i]) * (g[k][i] - mean[i]);
                }
            }
            spreads[t] = meanEnergy == 0 ? 0 : Math.sqrt(deviation / (ranks * meanEnergy));
            correlations[t] = meanPairwiseCorrelation(g);
            double totalEnergy = 0;
            double totalOutside = 0;
            for (int k = 0; k < ranks; k++) {
                totalEnergy += energy[k];
                totalOutside += outsideInnovation[k];
            }
            double psZ = 0;
            double psI = 0;
            double ringZ = 0;
            for (int c = 0; c < ranks; c++) {
                double scale = Scale.rms(g[c]);
                double s2 = scale * scale;
                psZ += totalEnergy / (s2 * ranks * mu) / ranks;
                psI += totalOutside / (s2 * ranks * mu) / ranks;
                ringZ += meanEnergy / (s2 * mu) / ranks;
            }
            psZeros[t] = psZ;
            psInnovation[t] = psI;
            if (source.leaders() != null) {
                double scale = Scale.rms(g[source.leaders()[t]]);
                ringZ = meanEnergy / (scale * scale * mu);
            }
            ringZeros[t] = ringZ;
        }
        return new Baselines(median(correlations), median(spreads), psZeros, psInnovation, ringZeros);
    }

    private static double meanPairwiseCorrelation(float[][] g) {
        double sum = 0;
        int pairs = 0;
        for (int a = 0; a < g.length; a++) {
            for (int b = a + 1; b < g.length; b++) {
                sum += correlation(g[a], g[b]);
                pairs++;
            }
        }
        return pairs == 0 ? 1 : sum / pairs;
    }

    private static double correlation(float[] x, float[] y) {
        double mx = 0;
        double my = 0;
        for (int i = 0; i < x.length; i++) {
            mx += x[i];
            my += y[i];
        }
        mx /= x.length;
        my /= y.length;
        double sxy = 0;
        double sxx = 0;
        double syy = 0;
        for (int i = 0; i < x.length; i++) {
            sxy += (x[i] - mx) * (y[i] - my);
            sxx += (x[i] - mx) * (x[i] - mx);
            syy += (y[i] - my) * (y[i] - my);
        }
        return sxx == 0 || syy == 0 ? 0 : sxy / Math.sqrt(sxx * syy);
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int m = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
    }

    /** {@code steps} steps of synthetic correlated vectors. */
    public static Source synthetic(Settings s) {
        SyntheticGradients g = new SyntheticGradients(s.mu(), s.workers(), s.innovation(), s.seed());
        List<float[][]> steps = new ArrayList<>(s.steps());
        for (int i = 0; i < s.steps(); i++) {
            steps.add(g.next());
        }
        return new Source("synthetic", String.format(Locale.ROOT, "SyntheticGradients(μ = %d, K = %d, innovation "
                + "%.2f, seed %d)", s.mu(), s.workers(), s.innovation(), s.seed()), s.mu(), s.workers(), steps, null);
    }

    /** The first {@code maxSteps} steps of a recording (all of them when it holds fewer). */
    public static Source recorded(Path file, int maxSteps) throws IOException {
        try (CompactVectorFile.Reader reader = CompactVectorFile.open(file)) {
            CompactVectorFile.Header h = reader.header();
            int n = Math.min(maxSteps, h.steps());
            if (n == 0) {
                throw new CompactVectorFormatException(file, "expected at least one recorded step, found none");
            }
            List<float[][]> steps = new ArrayList<>(n);
            int[] leaders = new int[n];
            for (int i = 0; i < n; i++) {
                CompactVectorFile.Step step = reader.next();
                steps.add(step.compacts());
                leaders[i] = step.leader();
            }
            return new Source("recorded", String.format(Locale.ROOT, "%s (μ = %d, K = %d, first %d of %d recorded "
                    + "steps)", file, h.mu(), h.ranks(), n, h.steps()), h.mu(), h.ranks(), steps, leaders);
        }
    }

    /** Trains PS and ring autoencoders at every λ2 on {@code source}; PS first, then ring, λ2 ascending. */
    public static List<Curve> train(Source source, Settings s, PrintStream log) {
        List<Curve> curves = new ArrayList<>();
        for (String topology : List.of("PS", "ring")) {
            for (double lambda : LAMBDA_SIM) {
                long start = System.nanoTime();
                AeTraining training = new AeTraining(s.optimizer().create(s.lr()), 1.0, lambda);
                AutoencoderTrainer trainer = topology.equals("PS")
                        ? AutoencoderTrainer.ps(new PsAutoencoder(AutoencoderSpec.PAPER, source.mu(), source.ranks(),
                                INNOVATION_SHARE, training, s.seed()), s.seed())
                        : AutoencoderTrainer.ring(new RingAutoencoder(AutoencoderSpec.PAPER, source.mu(),
                                source.ranks(), training, s.seed()), s.seed());
                int n = source.steps().size();
                double[] rec = new double[n];
                double[] sim = new double[n];
                double[] total = new double[n];
                for (int i = 0; i < n; i++) {
                    float[][] compacts = source.steps().get(i);
                    AeLosses l = topology.equals("ring") && source.leaders() != null
                            ? trainer.step(compacts, source.leaders()[i])
                            : trainer.step(compacts);
                    rec[i] = l.reconstruction();
                    sim[i] = l.similarity();
                    total[i] = l.total();
                }
                curves.add(new Curve(topology, lambda, rec, sim, total));
                log.printf(Locale.ROOT, "%s, %s, λ2 = %.1f: %d steps in %.1f s%n", source.name(), topology, lambda, n,
                        (System.nanoTime() - start) / 1e9);
            }
        }
        return curves;
    }

    /** Prints the table of one source's curves, with the data's correlation and the trivial decoders' losses. */
    public static void print(PrintStream out, Source source, List<Curve> curves, Baselines baselines, Settings s) {
        int n = curves.get(0).reconstruction().length;
        out.printf(Locale.ROOT, "%nReconstruction loss L_rec, %s: %s; %s lr %s; rows: mean over the steps within ±%d "
                + "of the step shown (clipped to steps 0..%d)%n", source.name(), source.description(),
                s.optimizer() == Optimizer.SGD ? "SGD" : "Adam", s.lr(), s.window(), n - 1);
        out.printf(Locale.ROOT, "Data: the ranks' vectors correlate %.3f (median over steps of the mean pairwise Pearson"
                + " correlation); spread around their mean ‖g_k − ḡ‖/‖ḡ‖ = %.3f (median)%n%n", baselines.correlation(),
                baselines.spread());
        StringBuilder header = new StringBuilder("| step |");
        StringBuilder rule = new StringBuilder("|---:|");
        for (Curve c : curves) {
            header.append(String.format(Locale.ROOT, " %s, λ2 = %.1f |", c.topology(), c.lambdaSim()));
            rule.append("---:|");
        }
        out.println(header);
        out.println(rule);
        List<Integer> rows = new ArrayList<>();
        for (int step = 0; step < n; step += s.every()) {
            rows.add(step);
        }
        if (rows.get(rows.size() - 1) != n) {
            rows.add(n);
        }
        for (int step : rows) {
            StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "| %d |", step));
            for (Curve c : curves) {
                row.append(' ').append(loss(Curve.window(c.reconstruction(), step, s.window()))).append(" |");
            }
            out.println(row);
        }
        StringBuilder ratio = new StringBuilder("| last / first |");
        StringBuilder sim = new StringBuilder("| L_sim, last / first |");
        for (Curve c : curves) {
            ratio.append(String.format(Locale.ROOT, " %.3f |", Curve.window(c.reconstruction(), n, s.window())
                    / Curve.window(c.reconstruction(), 0, s.window())));
            sim.append(String.format(Locale.ROOT, " %s / %s |", loss(Curve.window(c.similarity(), n, s.window())),
                    loss(Curve.window(c.similarity(), 0, s.window()))));
        }
        out.println(ratio);
        out.println(sim);
        StringBuilder zeros = new StringBuilder(String.format(Locale.ROOT,
                "| baseline: decoder outputs zeros, window of step %d |", n));
        StringBuilder innovation = new StringBuilder(String.format(Locale.ROOT,
                "| baseline: decoder outputs the innovation (PS), window of step %d |", n));
        StringBuilder relative = new StringBuilder("| last / zeros baseline |");
        for (Curve c : curves) {
            boolean ps = c.topology().equals("PS");
            double zero = Curve.window(ps ? baselines.psZeros() : baselines.ringZeros(), n, s.window());
            zeros.append(' ').append(loss(zero)).append(" |");
            innovation.append(' ').append(ps ? loss(Curve.window(baselines.psInnovation(), n, s.window())) : "–")
                    .append(" |");
            relative.append(String.format(Locale.ROOT, " %.3f |", Curve.window(c.reconstruction(), n, s.window())
                    / zero));
        }
        out.println(zeros);
        out.println(innovation);
        out.println(relative);
    }

    /** Writes every step's losses of every curve of every source. */
    public static void writeCsv(Path file, List<Source> sources, List<List<Curve>> curves, List<Baselines> baselines,
                                Settings s) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            w.write("data,topology,lambda_sim,optimizer,lr,step,reconstruction,similarity,total,zeros_baseline,"
                    + "innovation_baseline\n");
            for (int d = 0; d < sources.size(); d++) {
                Baselines b = baselines.get(d);
                for (Curve c : curves.get(d)) {
                    boolean ps = c.topology().equals("PS");
                    for (int i = 0; i < c.reconstruction().length; i++) {
                        w.write(String.format(Locale.ROOT, "%s,%s,%s,%s,%s,%d,%s,%s,%s,%s,%s%n", sources.get(d).name(),
                                c.topology(), c.lambdaSim(), s.optimizer().name().toLowerCase(Locale.ROOT), s.lr(), i,
                                c.reconstruction()[i], c.similarity()[i], c.total()[i],
                                ps ? b.psZeros()[i] : b.ringZeros()[i], ps ? String.valueOf(b.psInnovation()[i]) : ""));
                    }
                }
            }
        }
    }

    /**
     * Trains on synthetic data and, when {@code recording} is not null, on the recording; prints a table per source;
     * writes every step's losses to {@code csv} when it is not null.
     */
    public static void run(PrintStream out, Settings s, Path recording, Path csv) throws IOException {
        List<Source> sources = new ArrayList<>();
        sources.add(synthetic(s));
        if (recording != null) {
            sources.add(recorded(recording, s.steps()));
        }
        out.printf(Locale.ROOT, "Autoencoder convergence (Fig. 14 analog): AutoencoderSpec.PAPER, λ1 = 1,"
                + " λ2 in {0, 0.5}, PS innovation %.0f %%, online training batch 1, %s lr %s, %d steps, seed %d%n%s%n",
                100 * INNOVATION_SHARE, s.optimizer() == Optimizer.SGD ? "SGD" : "Adam", s.lr(), s.steps(), s.seed(),
                BenchEnvironment.describe(s.seed()));
        List<List<Curve>> curves = new ArrayList<>();
        List<Baselines> baselines = new ArrayList<>();
        for (Source source : sources) {
            curves.add(train(source, s, out));
            baselines.add(baselines(source));
        }
        for (int d = 0; d < sources.size(); d++) {
            print(out, sources.get(d), curves.get(d), baselines.get(d), s);
        }
        if (csv != null) {
            writeCsv(csv, sources, curves, baselines, s);
            out.printf(Locale.ROOT, "%nevery step's losses: %s%n", csv);
        }
    }

    private static String loss(double v) {
        if (v != 0 && Math.abs(v) < 1e-3) {
            return String.format(Locale.ROOT, "%.2e", v);
        }
        return String.format(Locale.ROOT, "%.4f", v);
    }
}

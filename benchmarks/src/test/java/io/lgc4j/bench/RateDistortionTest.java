package io.lgc4j.bench;

import io.lgc4j.lgc.autoencoder.AeTraining;
import io.lgc4j.lgc.autoencoder.SyntheticGradients;
import io.lgc4j.runner.Nd4jEnvironment;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rate-distortion comparison scores every code on the steps after the training ones, with the invariants an
 * exact code must keep (it keeps a part of the mean: error² + cosine² = 1), the bound below every f-position code,
 * and the linear code exact on vectors inside its span.
 */
class RateDistortionTest {

    private static final int MU = 48;
    private static final int K = 4;

    @BeforeAll
    static void nd4j() {
        Nd4jEnvironment.configure();
    }

    private static AeConvergence.Source recording(Path dir, int steps) throws IOException {
        Path file = dir.resolve("cv.bin");
        SyntheticGradients g = new SyntheticGradients(MU, K, 0.5, 3);
        try (CompactVectorFile.Writer w = CompactVectorFile.create(file, K, MU, steps)) {
            for (int s = 0; s < steps; s++) {
                w.append(s % K, g.next());
            }
        }
        return AeConvergence.recorded(file, Integer.MAX_VALUE);
    }

    @Test
    void shouldScoreEveryCodeOnTheStepsAfterTraining(@TempDir Path dir) throws IOException {
        AeConvergence.Source source = recording(dir, 10);
        RateDistortion.Settings settings = new RateDistortion.Settings(6, List.of(4), AeTraining.DEFAULT, 7);

        List<RateDistortion.Row> rows = RateDistortion.run(source, settings, new PrintStream(
                new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));

        Map<String, RateDistortion.Row> byName = rows.stream().collect(Collectors.toMap(
                r -> r.code() + " @" + Math.round(r.floats()), Function.identity()));
        // μ = 48: latent 4 channels × 3 = 12 floats; PS: 12 / 4 + 5 innovation values = 8; innovation: 5
        assertTrue(byName.containsKey("LGC-RAR (4 ch) @12"), byName.keySet().toString());
        assertTrue(byName.containsKey("LGC-RAR, 8-bit latent (4 ch) @12"), byName.keySet().toString());
        assertTrue(byName.containsKey("LGC-PS (4 ch) @8"), byName.keySet().toString());
        assertTrue(byName.containsKey("innovation only (each rank's top 10 %) @5"), byName.keySet().toString());
        // the continued rows start from the frozen code's weights and move away from them; the frozen rows do not
        for (String code : List.of("LGC-RAR (4 ch)", "LGC-PS (4 ch)")) {
            RateDistortion.Row frozen = byName.get(code + (code.startsWith("LGC-RAR") ? " @12" : " @8"));
            RateDistortion.Row going = byName.get(code + ", training on every scored step after scoring it"
                    + (code.startsWith("LGC-RAR") ? " @12" : " @8"));
            assertEquals(frozen.errors()[0], going.errors()[0], code);
            assertTrue(frozen.errors()[3] != going.errors()[3], code + ": " + Arrays.toString(frozen.errors()) + " "
                    + Arrays.toString(going.errors()));
        }
        assertEquals(12 + 4 + 4, byName.get("LGC-RAR, 8-bit latent (4 ch) @12").bytes(), 1e-9);
        assertEquals(4 * 12 + 4, byName.get("LGC-RAR (4 ch) @12").bytes(), 1e-9);
        for (int f : new int[] {5, 8, 12}) {
            for (String code : List.of("PCA fitted on the training steps", "top-f on the leader's support",
                    "random-f, seeded positions", "top-f of the mean (a bound, not a code)")) {
                RateDistortion.Row row = byName.get(code + " @" + f);
                assertTrue(row != null, code + " @" + f + " in " + byName.keySet());
                assertEquals(4, row.errors().length, "scored steps: 10 − 6");
                for (int t = 0; t < 4; t++) {
                    // a code that keeps a part of the mean (coordinates or a projection): the rest is the error
                    double e = row.errors()[t];
                    double c = row.cosines()[t];
                    assertEquals(1.0, e * e + c * c, 1e-9, code + " @" + f + " step " + t);
                }
            }
            RateDistortion.Row bound = byName.get("top-f of the mean (a bound, not a code) @" + f);
            for (String code : List.of("top-f on the leader's support", "random-f, seeded positions")) {
                RateDistortion.Row row = byName.get(code + " @" + f);
                for (int t = 0; t < 4; t++) {
                    assertTrue(bound.errors()[t] <= row.errors()[t] + 1e-12, code + " @" + f + " step " + t);
                }
            }
        }
        for (RateDistortion.Row row : rows) {
            for (double e : row.errors()) {
                assertTrue(Double.isFinite(e) && e >= 0, row.code() + ": " + Arrays.toString(row.errors()));
            }
        }
        ByteArrayOutputStream md = new ByteArrayOutputStream();
        RateDistortion.print(new PrintStream(md, true, StandardCharsets.UTF_8), List.of(rows, rows));
        List<String> lines = md.toString(StandardCharsets.UTF_8).lines().toList();
        assertEquals(rows.size() + 2, lines.size());
        assertTrue(lines.get(0).contains("rel. error, mean ± sd over 2 recordings"), lines.get(0));
        RateDistortion.Row top = byName.get("top-f on the leader's support @12");
        String expected = String.format(java.util.Locale.ROOT, "| exact | top-f on the leader's support | 12.0 | 48.0 | "
                + "%.3f ± 0.000 |", top.meanError());
        assertTrue(lines.stream().anyMatch(l -> l.startsWith(expected)), expected + " in\n" + lines);
        String csv = RateDistortion.csv(List.of("a.bin", "b.bin"), List.of(rows, rows));
        assertEquals(2 * rows.size() + 1, csv.lines().count());
        assertTrue(csv.lines().skip(1).allMatch(l -> l.startsWith("a.bin,") || l.startsWith("b.bin,")), csv);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RateDistortion.print(
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                List.of(rows, rows.subList(1, rows.size()))));
        assertEquals("the recordings' codes differ (another μ or channel list?): they cannot share a table",
                e.getMessage());
    }

    @Test
    void shouldBeExactForTheLinearCodeInsideItsSpan() {
        // every training vector lies in the span of two directions: two eigenvectors carry any such mean exactly
        SplittableRandom random = new SplittableRandom(11);
        float[] u = new float[MU];
        float[] v = new float[MU];
        for (int i = 0; i < MU; i++) {
            u[i] = (float) random.nextGaussian();
            v[i] = (float) random.nextGaussian();
        }
        List<float[][]> steps = new ArrayList<>();
        for (int s = 0; s < 8; s++) {
            float[][] g = new float[K][MU];
            for (int k = 0; k < K; k++) {
                double a = random.nextGaussian();
                double b = random.nextGaussian();
                for (int i = 0; i < MU; i++) {
                    g[k][i] = (float) (a * u[i] + b * v[i]);
                }
            }
            steps.add(g);
        }
        double[][] basis = RateDistortion.secondMomentEigenvectors(steps, new int[8], MU);
        double[] x = new double[MU];
        for (int i = 0; i < MU; i++) {
            x[i] = 0.3 * u[i] - 1.7 * v[i];
        }
        double[] p = RateDistortion.project(basis, x, 2);
        for (int i = 0; i < MU; i++) {
            assertEquals(x[i], p[i], 1e-4 * (1 + Math.abs(x[i])), "position " + i);
        }
        for (int a = 0; a < 3; a++) {
            for (int b = 0; b < 3; b++) {
                double dot = 0;
                for (int i = 0; i < MU; i++) {
                    dot += basis[a][i] * basis[b][i];
                }
                assertEquals(a == b ? 1 : 0, dot, 1e-9, "basis vectors " + a + ", " + b);
            }
        }
    }

    @Test
    void shouldFindEigenvectorsThatTheMatrixOnlyScales() {
        SplittableRandom random = new SplittableRandom(3);
        int n = 30;
        double[][] b = new double[n][n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                b[i][j] = random.nextGaussian();
            }
        }
        double[][] m = new double[n][n]; // BᵀB: symmetric, eigenvalues spread over orders of magnitude
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                for (int k = 0; k < n; k++) {
                    m[i][j] += b[k][i] * b[k][j];
                }
            }
        }
        double[][] copy = new double[n][];
        for (int i = 0; i < n; i++) {
            copy[i] = m[i].clone();
        }
        double[][] basis = io.lgc4j.lgc.autoencoder.SymmetricEigen.of(copy).vectors();
        double previous = Double.POSITIVE_INFINITY;
        for (double[] v : basis) {
            double[] mv = new double[n];
            double lambda = 0;
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) {
                    mv[i] += m[i][j] * v[j];
                }
                lambda += v[i] * mv[i];
            }
            for (int i = 0; i < n; i++) {
                assertEquals(lambda * v[i], mv[i], 1e-8 * (1 + Math.abs(lambda)), "M v = λ v at " + i);
            }
            assertTrue(lambda <= previous + 1e-9, "descending: " + lambda + " after " + previous);
            previous = lambda;
        }
    }

    @Test
    void shouldQuantizeToWithinHalfALevelAndDrawDistinctPositions() {
        float[] z = {0.5f, -1.27f, 0.001f, 1.0f};
        float[] q = RateDistortion.quantized(z);
        for (int i = 0; i < z.length; i++) {
            assertTrue(Math.abs(q[i] - z[i]) <= 1.27f / 127 / 2 + 1e-7, i + ": " + q[i] + " vs " + z[i]);
        }
        assertEquals(-1.27f, q[1], 1e-6);
        assertTrue(Arrays.equals(new float[3], RateDistortion.quantized(new float[3])));
        int[] picked = RateDistortion.randomPositions(50, 20, new SplittableRandom(5));
        assertEquals(20, picked.length);
        assertEquals(20, Arrays.stream(picked).distinct().count());
        assertTrue(Arrays.stream(picked).allMatch(i -> i >= 0 && i < 50), Arrays.toString(picked));
        assertEquals(50, RateDistortion.randomPositions(50, 50, new SplittableRandom(5)).length);
    }

    @Test
    void shouldRefuseARecordingWithNothingLeftToScore(@TempDir Path dir) throws IOException {
        AeConvergence.Source source = recording(dir, 5);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RateDistortion.run(source,
                new RateDistortion.Settings(5, List.of(4), AeTraining.DEFAULT, 1), System.err));
        assertEquals("trainSteps (5) must leave steps to score: the source holds 5 steps", e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> new RateDistortion.Settings(0, List.of(4), AeTraining.DEFAULT, 1));
        assertEquals("trainSteps must be >= 1, got 0", e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> new RateDistortion.Settings(3, List.of(4, 0), AeTraining.DEFAULT, 1));
        assertEquals("channels must be a non-empty list of positive counts, got [4, 0]", e.getMessage());
    }
}

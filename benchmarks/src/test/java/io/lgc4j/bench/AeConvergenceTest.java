package io.lgc4j.bench;

import io.lgc4j.lgc.autoencoder.SyntheticGradients;
import io.lgc4j.runner.Nd4jEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The convergence table trains PS and ring at both λ2 on synthetic and recorded vectors, prints one row per
 * checkpoint plus the ratio, and writes every step's losses to the CSV.
 */
class AeConvergenceTest {

    private static final AeConvergence.Settings SMALL = new AeConvergence.Settings(24, 3, 0.2, 7,
            AeConvergence.Optimizer.ADAM, 1e-3, 5, 3, 1);

    @Test
    void shouldTableAndCsvEveryConfigurationOfBothSources(@TempDir Path dir) throws IOException {
        Nd4jEnvironment.configure();
        Path recording = dir.resolve("cv.bin");
        SyntheticGradients g = new SyntheticGradients(20, 2, 0.3, 9);
        try (CompactVectorFile.Writer w = CompactVectorFile.create(recording, 2, 20, 5)) {
            for (int s = 0; s < 5; s++) {
                w.append(s % 2, g.next());
            }
        }
        Path csv = dir.resolve("out/losses.csv");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        AeConvergence.run(new PrintStream(bytes, true, StandardCharsets.UTF_8), SMALL, recording, csv);

        String out = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(out.contains("| step | PS, λ2 = 0.0 | PS, λ2 = 0.5 | ring, λ2 = 0.0 | ring, λ2 = 0.5 |"), out);
        // synthetic: 7 steps, rows at 0, 3, 6 and 7; recorded: 5 steps (the recording is shorter), rows 0, 3, 5
        for (String row : List.of("| 0 |", "| 3 |", "| 6 |", "| 7 |", "| 5 |")) {
            assertTrue(out.contains(row), row + " in\n" + out);
        }
        assertEquals(2, out.lines().filter(l -> l.startsWith("| last / first |")).count(), out);
        assertEquals(2, out.lines().filter(l -> l.startsWith("| last / zeros baseline |")).count(), out);
        assertTrue(out.contains("| baseline: decoder outputs the innovation (PS), window of step 7 |"), out);
        assertTrue(out.contains("SyntheticGradients(μ = 24, K = 3, innovation 0.20, seed 5)"), out);
        assertTrue(out.contains("(μ = 20, K = 2, first 5 of 5 recorded steps)"), out);
        List<String> lines = Files.readAllLines(csv);
        assertEquals("data,topology,lambda_sim,optimizer,lr,step,reconstruction,similarity,total,zeros_baseline,"
                + "innovation_baseline", lines.get(0));
        assertEquals(1 + 4 * 7 + 4 * 5, lines.size());
        assertTrue(lines.get(1).startsWith("synthetic,PS,0.0,adam,0.001,0,"), lines.get(1));
        String last = lines.get(lines.size() - 1);
        assertTrue(last.startsWith("recorded,ring,0.5,adam,0.001,4,"), last);
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",");
            double rec = Double.parseDouble(f[6]);
            assertTrue(Double.isFinite(rec) && rec > 0, line);
        }
    }

    @Test
    void shouldScoreTrivialDecodersFromTheDataAlone() {
        // two ranks, identical vectors: correlation 1, no spread; a zero output scores exactly the unit energy
        float[] v = {3, -1, 0.5f, 2, -2, 1, 0, -0.25f, 1.5f, -3};
        float[][] same = {v.clone(), v.clone()};
        AeConvergence.Source identical = new AeConvergence.Source("t", "t", 10, 2, List.of(same, same), null);
        AeConvergence.Baselines b = AeConvergence.baselines(identical);
        assertEquals(1.0, b.correlation(), 1e-9);
        assertEquals(0.0, b.spread(), 1e-9);
        assertEquals(1.0, b.psZeros()[1], 1e-6);
        assertEquals(1.0, b.ringZeros()[0], 1e-6);
        // the innovation is the top ceil(0.1·10) = 1 value, 3 at index 0 (the tie with -3 goes to the lower
        // index): energy 9 of 30.5625
        assertEquals(1.0 - 9 / 30.5625, b.psInnovation()[0], 1e-6);

        // opposite vectors: correlation -1, the mean is zero; the ring's zero output is then exact
        float[] w = v.clone();
        for (int i = 0; i < w.length; i++) {
            w[i] = -w[i];
        }
        AeConvergence.Source opposite = new AeConvergence.Source("t", "t", 10, 2, List.<float[][]>of(
                new float[][] {v, w}), new int[] {1});
        AeConvergence.Baselines o = AeConvergence.baselines(opposite);
        assertEquals(-1.0, o.correlation(), 1e-9);
        assertEquals(0.0, o.ringZeros()[0], 1e-12);
    }

    @Test
    void shouldAverageTheWindowClippedToTheRun() {
        double[] v = {1, 2, 3, 4, 5, 6};
        assertEquals(2.0, AeConvergence.Curve.window(v, 0, 2), 1e-12);
        assertEquals(3.0, AeConvergence.Curve.window(v, 2, 1), 1e-12);
        assertEquals(5.5, AeConvergence.Curve.window(v, 6, 2), 1e-12, "the end row averages the last steps");
        assertEquals(6.0, AeConvergence.Curve.window(v, 6, 1), 1e-12);
        assertEquals(4.0, AeConvergence.Curve.window(v, 3, 0), 1e-12);
    }

    @Test
    void shouldRejectSettingsNamingTheOption() {
        assertEquals("lr must be finite and > 0, got 0.0", assertThrows(IllegalArgumentException.class,
                () -> SMALL.with(AeConvergence.Optimizer.SGD, 0)).getMessage());
        assertEquals("window must be >= 0, got -1", assertThrows(IllegalArgumentException.class,
                () -> new AeConvergence.Settings(24, 3, 0.2, 7, AeConvergence.Optimizer.SGD, 1e-3, 5, 3, -1))
                .getMessage());
    }
}

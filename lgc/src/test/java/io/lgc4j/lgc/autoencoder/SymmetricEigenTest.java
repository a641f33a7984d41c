package io.lgc4j.lgc.autoencoder;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link SymmetricEigen}: a known spectrum comes back, every pair satisfies M v = λ v with orthonormal vectors — also
 * for the rank-deficient second moments the linear code fits, repeated eigenvalues and zero rows — and bad matrices
 * are refused naming the entry.
 */
class SymmetricEigenTest {

    @Test
    void shouldRecoverAKnownSpectrumAndItsVectors() {
        int n = 12;
        SplittableRandom random = new SplittableRandom(3);
        double[][] q = orthonormalRows(n, random);
        double[] lambda = new double[n];
        for (int j = 0; j < n; j++) {
            lambda[j] = 10 - 1.5 * j; // distinct, both signs, descending
        }
        double[][] m = new double[n][n];
        for (int i = 0; i < n; i++) {
            for (int k = 0; k < n; k++) {
                double s = 0;
                for (int j = 0; j < n; j++) {
                    s += q[j][i] * lambda[j] * q[j][k];
                }
                m[i][k] = s;
            }
        }
        symmetrize(m);
        double[][] before = copy(m);
        SymmetricEigen e = SymmetricEigen.of(m);
        assertArrayEquals(before[5], m[5], "the input is left unchanged");
        assertEquals(n, e.size());
        for (int j = 0; j < n; j++) {
            assertEquals(lambda[j], e.value(j), 1e-12, "eigenvalue " + j);
            double[] v = e.vector(j);
            double dot = 0;
            for (int i = 0; i < n; i++) {
                dot += v[i] * q[j][i];
            }
            assertEquals(1, Math.abs(dot), 1e-12, "eigenvector " + j + " is the known one, up to its sign");
        }
        assertPairs(before, e, 1e-13);
    }

    @ParameterizedTest(name = "n = {0}")
    @ValueSource(ints = {1, 2, 7, 60, 200})
    void aSecondMomentOfFewerVectorsThanDimensionsShouldDecomposeExactly(int n) {
        SplittableRandom random = new SplittableRandom(n);
        double[][] m = new double[n][n];
        int vectors = Math.max(1, n / 3);
        for (int s = 0; s < vectors; s++) {
            double[] x = new double[n];
            for (int i = 0; i < n; i++) {
                x[i] = random.nextGaussian() * (1 + i % 5);
            }
            for (int i = 0; i < n; i++) {
                for (int k = 0; k < n; k++) {
                    m[i][k] += x[i] * x[k];
                }
            }
        }
        SymmetricEigen e = SymmetricEigen.of(m);
        assertPairs(m, e, 1e-13);
        for (int j = vectors; j < n; j++) {
            assertEquals(0, e.value(j), 1e-12 * e.value(0), "rank " + vectors + ": eigenvalue " + j + " vanishes");
        }
        for (int j = 0; j < n; j++) {
            double[] v = e.vector(j);
            int largest = 0;
            for (int i = 1; i < n; i++) {
                if (Math.abs(v[i]) > Math.abs(v[largest])) {
                    largest = i;
                }
            }
            assertTrue(v[largest] > 0, "eigenvector " + j + "'s largest entry is positive");
        }
    }

    @Test
    void repeatedEigenvaluesAndZeroRowsShouldStillGiveAnOrthonormalBasis() {
        double[][] identity = new double[6][6];
        for (int i = 0; i < 6; i++) {
            identity[i][i] = 2;
        }
        assertPairs(identity, SymmetricEigen.of(identity), 1e-15);

        double[][] sparse = new double[5][5]; // rows 1 and 3 all zero: the reduction's zero-scale branch
        sparse[0][0] = 4;
        sparse[2][2] = -1;
        sparse[0][2] = sparse[2][0] = 0.5;
        sparse[4][4] = 3;
        sparse[0][4] = sparse[4][0] = -2;
        SymmetricEigen e = SymmetricEigen.of(sparse);
        assertPairs(sparse, e, 1e-14);
        assertEquals(0, e.value(2), 1e-14, "two zero rows: a double zero eigenvalue in the middle");
        assertEquals(0, e.value(3), 1e-14);

        assertEquals(0, SymmetricEigen.of(new double[0][]).size());
        SymmetricEigen one = SymmetricEigen.of(new double[][] {{-3}});
        assertEquals(-3, one.value(0));
        assertArrayEquals(new double[] {1}, one.vector(0));
    }

    @Test
    void shouldRefuseWhatIsNotAFiniteSymmetricMatrixNamingTheEntry() {
        assertEquals("expected a square matrix: row 1 has 3 entries, not 2", assertThrows(
                IllegalArgumentException.class, () -> SymmetricEigen.of(new double[][] {{1, 2}, {2, 1, 0}}))
                .getMessage());
        assertEquals("expected a symmetric matrix: entry (1, 0) is 2.5, entry (0, 1) 2.0", assertThrows(
                IllegalArgumentException.class, () -> SymmetricEigen.of(new double[][] {{1, 2}, {2.5, 1}}))
                .getMessage());
        assertEquals("expected finite entries, found NaN at (1, 1)", assertThrows(IllegalArgumentException.class,
                () -> SymmetricEigen.of(new double[][] {{1, 0}, {0, Double.NaN}})).getMessage());
        // 0.0 and -0.0 count as equal: a second moment's skipped zero products leave signed zeros
        assertEquals(2, SymmetricEigen.of(new double[][] {{1, 0.0}, {-0.0, 1}}).size());
    }

    /** Every pair: ‖M v − λ v‖ ≤ tolerance · max |λ|, unit length, orthogonal to every other, λ descending. */
    private static void assertPairs(double[][] m, SymmetricEigen e, double tolerance) {
        int n = m.length;
        double top = Math.max(Math.abs(e.value(0)), Math.abs(e.value(n - 1)));
        double[][] v = e.vectors();
        for (int j = 0; j < n; j++) {
            if (j > 0) {
                assertTrue(e.value(j) <= e.value(j - 1), "descending at " + j);
            }
            double residual = 0;
            for (int i = 0; i < n; i++) {
                double s = 0;
                for (int k = 0; k < n; k++) {
                    s += m[i][k] * v[j][k];
                }
                residual += (s - e.value(j) * v[j][i]) * (s - e.value(j) * v[j][i]);
            }
            assertTrue(Math.sqrt(residual) <= tolerance * Math.max(top, 1) * n,
                    "‖M v − λ v‖ = " + Math.sqrt(residual) + " for pair " + j);
            for (int k = 0; k <= j; k++) {
                double dot = 0;
                for (int i = 0; i < n; i++) {
                    dot += v[j][i] * v[k][i];
                }
                assertEquals(j == k ? 1 : 0, dot, 1e-13 * n, "v" + j + " · v" + k);
            }
        }
    }

    private static double[][] orthonormalRows(int n, SplittableRandom random) {
        double[][] q = new double[n][n];
        for (int j = 0; j < n; j++) {
            for (int i = 0; i < n; i++) {
                q[j][i] = random.nextGaussian();
            }
            for (int k = 0; k < j; k++) {
                double dot = 0;
                for (int i = 0; i < n; i++) {
                    dot += q[j][i] * q[k][i];
                }
                for (int i = 0; i < n; i++) {
                    q[j][i] -= dot * q[k][i];
                }
            }
            double norm = 0;
            for (int i = 0; i < n; i++) {
                norm += q[j][i] * q[j][i];
            }
            for (int i = 0; i < n; i++) {
                q[j][i] /= Math.sqrt(norm);
            }
        }
        return q;
    }

    private static void symmetrize(double[][] m) {
        for (int i = 0; i < m.length; i++) {
            for (int k = 0; k < i; k++) {
                m[k][i] = m[i][k];
            }
        }
    }

    private static double[][] copy(double[][] m) {
        double[][] c = new double[m.length][];
        for (int i = 0; i < m.length; i++) {
            c[i] = m[i].clone();
        }
        return c;
    }
}

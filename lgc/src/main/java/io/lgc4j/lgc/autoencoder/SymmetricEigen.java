package io.lgc4j.lgc.autoencoder;

import java.util.Arrays;

/**
 * Eigenvalues and eigenvectors of a real symmetric matrix, in double: Householder reduction to tridiagonal form, then
 * the implicit QL algorithm with Wilkinson shifts on the tridiagonal matrix (Wilkinson and Reinsch's tred2 and tql2,
 * the method of EISPACK), O(n³). Rank-deficient matrices — a second moment of fewer vectors than dimensions, the
 * linear code's usual case — are handled like any other: their zero eigenvalues come out as tiny values of either
 * sign.
 *
 * <p>Two solvers were tried and dropped: cyclic Jacobi rotations (correct, but over a minute at n = 854 on this
 * machine under load, long enough to stall the ring at the switch), and ND4J's
 * {@code Eigen.symmetricGeneralizedEigenvalues} (its vectors fail {@code M v = λ v} by 15 % at n = 427). The
 * transformation is kept transposed, eigenvector j being row j, so that the O(n³) loops walk contiguous rows.
 *
 * <pre>{@code
 * SymmetricEigen e = SymmetricEigen.of(m);     // m is not modified
 * double[] first = e.vector(0);                // the eigenvector of the largest eigenvalue, e.value(0)
 * }</pre>
 */
public final class SymmetricEigen {

    private static final double EPS = Math.ulp(1.0);
    /** QL iterations allowed per eigenvalue before giving up (two or three are typical). */
    private static final int MAX_ITERATIONS = 60;

    private final double[] values;   // descending
    private final double[][] vectors; // row j: the eigenvector of values[j], unit length

    private SymmetricEigen(double[] values, double[][] vectors) {
        this.values = values;
        this.vectors = vectors;
    }

    /**
     * Decomposes the symmetric matrix {@code a} (left unchanged).
     *
     * @throws IllegalArgumentException when {@code a} is not square and symmetric, or holds a NaN or an infinity
     * @throws ArithmeticException      when an eigenvalue does not converge (not seen on finite input)
     */
    public static SymmetricEigen of(double[][] a) {
        int n = a.length;
        for (int i = 0; i < n; i++) {
            if (a[i].length != n) {
                throw new IllegalArgumentException("expected a square matrix: row " + i + " has " + a[i].length
                        + " entries, not " + n);
            }
            for (int j = 0; j <= i; j++) {
                if (!Double.isFinite(a[i][j])) {
                    throw new IllegalArgumentException("expected finite entries, found " + a[i][j] + " at (" + i
                            + ", " + j + ")");
                }
                if (a[i][j] != a[j][i]) { // 0.0 and -0.0 are equal
                    throw new IllegalArgumentException("expected a symmetric matrix: entry (" + i + ", " + j
                            + ") is " + a[i][j] + ", entry (" + j + ", " + i + ") " + a[j][i]);
                }
            }
        }
        if (n == 0) {
            return new SymmetricEigen(new double[0], new double[0][]);
        }
        double[][] w = new double[n][];
        for (int i = 0; i < n; i++) {
            w[i] = a[i].clone();
        }
        double[] d = new double[n];
        double[] e = new double[n];
        tridiagonalize(w, d, e); // w[j]: column j of the transformation, contiguous for the QL sweeps
        diagonalize(w, d, e);
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (x, y) -> Double.compare(d[y], d[x]));
        double[] values = new double[n];
        double[][] vectors = new double[n][];
        for (int j = 0; j < n; j++) {
            values[j] = d[order[j]];
            vectors[j] = signed(w[order[j]]);
        }
        return new SymmetricEigen(values, vectors);
    }

    /** The matrix's order. */
    public int size() {
        return values.length;
    }

    /** The j-th largest eigenvalue. */
    public double value(int j) {
        return values[j];
    }

    /** The eigenvector of {@link #value(int) value(j)}: unit length, its largest-magnitude entry positive (a copy). */
    public double[] vector(int j) {
        return vectors[j].clone();
    }

    /** The eigenvectors by descending eigenvalue, row j the j-th (copies). */
    public double[][] vectors() {
        double[][] out = new double[vectors.length][];
        for (int j = 0; j < vectors.length; j++) {
            out[j] = vectors[j].clone();
        }
        return out;
    }

    /** The sign every solver agrees on: the largest-magnitude entry (the first of equals) made positive. */
    private static double[] signed(double[] x) {
        int largest = 0;
        for (int i = 1; i < x.length; i++) {
            if (Math.abs(x[i]) > Math.abs(x[largest])) {
                largest = i;
            }
        }
        if (x[largest] < 0) {
            for (int i = 0; i < x.length; i++) {
                x[i] = -x[i];
            }
        }
        return x;
    }

    /**
     * Householder reduction of the symmetric matrix in {@code u} to a tridiagonal one: on return {@code d} holds its
     * diagonal, {@code e[1..n)} its subdiagonal ({@code e[0]} = 0), and {@code u} the transpose of the orthogonal
     * transformation Q with A = Q T Qᵀ (row j of {@code u} is column j of Q). The method as written works on the
     * lower triangle and on Q's columns; here every index pair is swapped (A is its own transpose), so that the
     * O(n³) loops walk rows.
     */
    private static void tridiagonalize(double[][] u, double[] d, double[] e) {
        int n = u.length;
        System.arraycopy(u[n - 1], 0, d, 0, n); // row n − 1 = column n − 1: A is symmetric
        for (int i = n - 1; i > 0; i--) {
            // the Householder vector of column i's part above the diagonal, scaled against underflow
            double scale = 0;
            for (int k = 0; k < i; k++) {
                scale += Math.abs(d[k]);
            }
            if (scale == 0) {
                e[i] = d[i - 1];
                for (int j = 0; j < i; j++) {
                    d[j] = u[j][i - 1];
                    u[j][i] = 0;
                    u[i][j] = 0;
                }
                d[i] = 0;
            } else {
                d[i] = reflect(u, d, e, i, scale);
            }
        }
        accumulate(u, d);
        e[0] = 0;
    }

    /**
     * Step i of {@link #tridiagonalize} when column i's part above the diagonal ({@code d[0..i)}, summing to
     * {@code scale} in absolute value) is not zero: its Householder reflection applied to the leading i × i block.
     *
     * @return h, half the squared norm of the Householder vector (scaled), which the accumulation divides by
     */
    private static double reflect(double[][] u, double[] d, double[] e, int i, double scale) {
        double h = 0;
        for (int k = 0; k < i; k++) {
            d[k] /= scale;
            h += d[k] * d[k];
        }
        double f = d[i - 1];
        double g = Math.sqrt(h);
        if (f > 0) {
            g = -g;
        }
        e[i] = scale * g;
        h -= f * g;
        d[i - 1] = f - g;
        for (int j = 0; j < i; j++) {
            e[j] = 0;
        }
        // p = A x / h, into e
        for (int j = 0; j < i; j++) {
            f = d[j];
            u[i][j] = f;
            double[] uj = u[j];
            g = e[j] + uj[j] * f;
            for (int k = j + 1; k < i; k++) {
                g += uj[k] * d[k];
                e[k] += uj[k] * f;
            }
            e[j] = g;
        }
        f = 0;
        for (int j = 0; j < i; j++) {
            e[j] /= h;
            f += e[j] * d[j];
        }
        double hh = f / (h + h);
        for (int j = 0; j < i; j++) {
            e[j] -= hh * d[j];
        }
        // A ← A − x qᵀ − q xᵀ on the (swapped) triangle
        for (int j = 0; j < i; j++) {
            f = d[j];
            g = e[j];
            double[] uj = u[j];
            for (int k = j; k < i; k++) {
                uj[k] -= f * e[k] + g * d[k];
            }
            d[j] = uj[i - 1];
            uj[i] = 0;
        }
        return h;
    }

    /** The transformations of {@link #tridiagonalize} accumulated into {@code u}; {@code d} gets the diagonal. */
    private static void accumulate(double[][] u, double[] d) {
        int n = u.length;
        for (int i = 0; i < n - 1; i++) {
            u[i][n - 1] = u[i][i];
            u[i][i] = 1;
            double h = d[i + 1];
            double[] next = u[i + 1];
            if (h != 0) {
                for (int k = 0; k <= i; k++) {
                    d[k] = next[k] / h;
                }
                for (int j = 0; j <= i; j++) {
                    double[] uj = u[j];
                    double g = 0;
                    for (int k = 0; k <= i; k++) {
                        g += next[k] * uj[k];
                    }
                    for (int k = 0; k <= i; k++) {
                        uj[k] -= g * d[k];
                    }
                }
            }
            for (int k = 0; k <= i; k++) {
                next[k] = 0;
            }
        }
        for (int j = 0; j < n; j++) {
            d[j] = u[j][n - 1];
            u[j][n - 1] = 0;
        }
        u[n - 1][n - 1] = 1;
    }

    /**
     * Implicit QL with shifts on the tridiagonal matrix ({@code d}, {@code e} as {@link #tridiagonalize} leaves them),
     * rotating the rows of {@code w} (the transformation's columns): on return {@code d} holds the eigenvalues and
     * row j of {@code w} the eigenvector of {@code d[j]}.
     */
    private static void diagonalize(double[][] w, double[] d, double[] e) {
        int n = d.length;
        System.arraycopy(e, 1, e, 0, n - 1);
        e[n - 1] = 0;
        double f = 0;
        double tst1 = 0;
        for (int l = 0; l < n; l++) {
            tst1 = Math.max(tst1, Math.abs(d[l]) + Math.abs(e[l]));
            int m = l;
            while (m < n - 1 && Math.abs(e[m]) > EPS * tst1) {
                m++;
            }
            if (m > l) {
                int iterations = 0;
                do {
                    if (++iterations > MAX_ITERATIONS) {
                        throw new ArithmeticException("eigenvalue " + l + " of " + n + " did not converge in "
                                + MAX_ITERATIONS + " QL iterations");
                    }
                    // the shift: the eigenvalue of the leading 2 × 2 block nearer d[l]
                    double g = d[l];
                    double p = (d[l + 1] - g) / (2 * e[l]);
                    double r = Math.hypot(p, 1);
                    if (p < 0) {
                        r = -r;
                    }
                    d[l] = e[l] / (p + r);
                    d[l + 1] = e[l] * (p + r);
                    double dl1 = d[l + 1];
                    double h = g - d[l];
                    for (int i = l + 2; i < n; i++) {
                        d[i] -= h;
                    }
                    f += h;
                    // the QL sweep from m up to l
                    p = d[m];
                    double c = 1;
                    double c2 = c;
                    double c3 = c;
                    double el1 = e[l + 1];
                    double s = 0;
                    double s2 = 0;
                    for (int i = m - 1; i >= l; i--) {
                        c3 = c2;
                        c2 = c;
                        s2 = s;
                        g = c * e[i];
                        h = c * p;
                        r = Math.hypot(p, e[i]);
                        e[i + 1] = s * r;
                        s = e[i] / r;
                        c = p / r;
                        p = c * d[i] - s * g;
                        d[i + 1] = h + s * (c * g + s * d[i]);
                        double[] wi = w[i];
                        double[] wi1 = w[i + 1];
                        for (int k = 0; k < n; k++) {
                            double t = wi1[k];
                            wi1[k] = s * wi[k] + c * t;
                            wi[k] = c * wi[k] - s * t;
                        }
                    }
                    p = -s * s2 * c3 * el1 * e[l] / dl1;
                    e[l] = s * p;
                    d[l] = c * p;
                } while (Math.abs(e[l]) > EPS * tst1);
            }
            d[l] += f;
            e[l] = 0;
        }
    }
}

package io.lgc4j.bench.jmh;

import io.lgc4j.core.sparse.TopK;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * {@link TopK#select(float[], int, int, int, int[])}: the {@code k = ratio · n} entries of largest magnitude of
 * {@code n} Gaussian floats (a fixed seed), with one reused selector as the compressors use it.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Xmx1g")
public class TopKSelectBenchmark {

    /** Seed of the Gaussian values. */
    static final long SEED = 20_240_601L;

    /** Entries in the range. */
    @Param({"1000000"})
    int n;

    /** Share selected: 0.1% (LGC's and the sparsifiers' default) and 1%. */
    @Param({"0.001", "0.01"})
    double ratio;

    float[] values;
    int[] selected;
    int k;
    TopK topK;

    /** Draws the values and sizes the output. */
    @Setup
    public void setUp() {
        Random random = new Random(SEED);
        values = new float[n];
        for (int i = 0; i < n; i++) {
            values[i] = (float) random.nextGaussian();
        }
        k = TopK.countFor(n, ratio);
        selected = new int[k];
        topK = new TopK();
    }

    /** One selection; returns the count (the indices are in {@link #selected}). */
    @Benchmark
    public int select() {
        return topK.select(values, 0, n, k, selected);
    }
}

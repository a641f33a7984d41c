package io.lgc4j.bench.jmh;

import io.lgc4j.core.codec.IndexCodec;
import io.lgc4j.core.codec.IndexCodecs;
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

import java.util.Arrays;
import java.util.BitSet;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The index codecs ({@link IndexCodecs}: {@code deflate}, the default, and {@code rice}) encoding and decoding one
 * uniform random {@code k}-subset of {@code [0, n)} at density {@code k / n} (a fixed seed; the decoded set is checked
 * against the original once in {@link #setUp}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Xmx1g")
public class IndexCodecBenchmark {

    /** Seed of the index set. */
    static final long SEED = 20_240_601L;

    /** The codec's name in {@link IndexCodecs}. */
    @Param({"deflate", "rice"})
    String codec;

    /** The length of the vector the indices point into. */
    @Param({"1000000"})
    int n;

    /** Share of {@code [0, n)} in the set: 0.1%. */
    @Param({"0.001"})
    double density;

    IndexCodec indexCodec;
    int[] indices;
    byte[] encoded;

    /** Draws the set, encodes it once and checks that it decodes back. */
    @Setup
    public void setUp() {
        indexCodec = IndexCodecs.byName(codec);
        indices = uniformSubset(n, (int) Math.round(density * n), new SplittableRandom(SEED));
        encoded = indexCodec.encode(indices, indices.length, n);
        if (!Arrays.equals(indices, indexCodec.decode(encoded, n, indices.length))) {
            throw new IllegalStateException(codec + " does not decode what it encoded");
        }
    }

    /** Encodes the set. */
    @Benchmark
    public byte[] encode() {
        return indexCodec.encode(indices, indices.length, n);
    }

    /** Decodes the encoded set. */
    @Benchmark
    public int[] decode() {
        return indexCodec.decode(encoded, n, indices.length);
    }

    /** A uniform random {@code k}-subset of {@code [0, n)}, sorted (Floyd's algorithm). */
    static int[] uniformSubset(int n, int k, SplittableRandom random) {
        BitSet chosen = new BitSet(n);
        for (int j = n - k; j < n; j++) {
            int t = random.nextInt(j + 1);
            chosen.set(chosen.get(t) ? j : t);
        }
        return chosen.stream().toArray();
    }
}

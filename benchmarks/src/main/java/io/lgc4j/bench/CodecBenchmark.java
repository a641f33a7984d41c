package io.lgc4j.bench;

import io.lgc4j.core.codec.DeflateIndexCodec;
import io.lgc4j.core.codec.IndexCodec;
import io.lgc4j.core.codec.IndexCodecs;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.function.LongSupplier;
import java.util.zip.Inflater;

/**
 * Index codecs side by side: bits per index against the bound {@code log2 C(n,k) / k}, and encode and decode
 * throughput, as a Markdown table.
 *
 * <p>Every codec in {@link IndexCodecs} is measured, plus an ablation row (the byte-plane content as one plain zlib
 * stream); every encoding is decoded and compared before it counts. Throughput is MB/s of int32 indices per second
 * of the thread's CPU time. The protocol: {@code docs/results/bench/README.md}.
 *
 * <pre>{@code
 * CodecBenchmark.run(System.out);                          // synthetic: n = 1M and 25M
 * CodecBenchmark.run(System.out, recordedSets, layerLength); // sets recorded from training
 * }</pre>
 */
public final class CodecBenchmark {
    /** Fraction of the indices selected in the synthetic sets. */
    public static final double DENSITY = 0.001;
    /** Seed of the synthetic sets. */
    public static final long SEED = 20_240_601L;
    private static final int[] SYNTHETIC_N = {1_000_000, 25_000_000};
    /** Sets per synthetic n: about 16k indices at 1M, 100k at 25M. */
    private static final int[] SYNTHETIC_SETS = {16, 4};
    private static final long WARMUP_NANOS = 300_000_000L;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final int ROUNDS = 5;
    private static final long ROUND_NANOS = 200_000_000L;
    /** Where measured results go so that the JIT cannot drop the work that made them. */
    private static volatile long sink;

    private CodecBenchmark() {
    }

    /** Runs {@link #run(PrintStream)} on standard output. */
    public static void main(String[] args) {
        run(System.out);
    }

    /** Benchmarks every codec on uniform random 0.1%-density sets at n = 1M and 25M and prints the table. */
    public static void run(PrintStream out) {
        List<Workload> workloads = new ArrayList<>();
        for (int w = 0; w < SYNTHETIC_N.length; w++) {
            int n = SYNTHETIC_N[w];
            int k = (int) Math.round(n * DENSITY);
            SplittableRandom random = new SplittableRandom(SEED + n);
            List<int[]> sets = new ArrayList<>();
            for (int s = 0; s < SYNTHETIC_SETS[w]; s++) {
                sets.add(uniformSubset(n, k, random));
            }
            workloads.add(new Workload(n, sets));
        }
        out.printf(Locale.ROOT, "Index codecs on uniform random k-subsets of [0, n), k = n/1000, seed %d; %s%n%n", SEED,
                environment());
        print(out, workloads);
    }

    /**
     * Benchmarks every codec on index sets recorded from training and prints the table.
     *
     * @param realIndexSets sorted, strictly increasing index sets, each in {@code [0, n)}
     * @param n the length of the vector the indices point into
     * @throws IllegalArgumentException if there are no sets or a set is not sorted or not within {@code [0, n)}
     */
    public static void run(PrintStream out, List<int[]> realIndexSets, int n) {
        if (realIndexSets.isEmpty()) {
            throw new IllegalArgumentException("realIndexSets must not be empty");
        }
        long indices = realIndexSets.stream().mapToLong(set -> set.length).sum();
        out.printf(Locale.ROOT,
                "Index codecs on %d recorded index sets, n = %d, mean k = %.1f (density %.4f%%); %s%n%n",
                realIndexSets.size(), n, (double) indices / realIndexSets.size(),
                100.0 * indices / realIndexSets.size() / n, environment());
        print(out, List.of(new Workload(n, List.copyOf(realIndexSets))));
    }

    /** The index sets of one table block: all share {@code n}. */
    private record Workload(int n, List<int[]> sets) {
        long indices() {
            return sets.stream().mapToLong(set -> set.length).sum();
        }

        String kLabel() {
            int min = sets.stream().mapToInt(set -> set.length).min().orElse(0);
            int max = sets.stream().mapToInt(set -> set.length).max().orElse(0);
            return min == max ? String.format(Locale.ROOT, "%,d", min)
                    : String.format(Locale.ROOT, "%,d..%,d", min, max);
        }
    }

    private static void print(PrintStream out, List<Workload> workloads) {
        out.println("| n | k | codec | bits/index | over bound | encode MB/s | decode MB/s |");
        out.println("| ---: | ---: | --- | ---: | ---: | ---: | ---: |");
        for (Workload workload : workloads) {
            double bound = boundBits(workload) / workload.indices();
            for (String name : IndexCodecs.names()) {
                if (name.equals(IndexCodecs.DEFAULT_NAME)) {
                    continue;
                }
                IndexCodec codec = IndexCodecs.byName(name);
                String label = codec.name().equals(IndexCodecs.defaultCodec().name()) ? name + " (default)" : name;
                double bits = bitsPerIndex(codec, workload);
                double[] throughput = throughput(codec, workload);
                row(out, workload, label, bits, bound, String.format(Locale.ROOT, "%.0f", throughput[0]),
                        String.format(Locale.ROOT, "%.0f", throughput[1]));
                if (codec instanceof DeflateIndexCodec deflate
                        && deflate.transform() == DeflateIndexCodec.Transform.GAPS_BYTE_PLANES) {
                    row(out, workload, "ablation: its content as one plain zlib stream",
                            plainStreamBitsPerIndex(codec, workload), bound, "", "");
                }
            }
            row(out, workload, "bound log2 C(n,k) / k", bound, bound, "", "");
        }
    }

    private static void row(PrintStream out, Workload workload, String label, double bits, double bound,
            String encode, String decode) {
        out.printf(Locale.ROOT, "| %s | %s | %s | %.3f | %+.3f | %s | %s |%n", nLabel(workload.n()),
                workload.kLabel(), label, bits, bits - bound, encode, decode);
    }

    private static String nLabel(int n) {
        if (n % 1_000_000 == 0) {
            return n / 1_000_000 + "M";
        }
        return String.format(Locale.ROOT, "%,d", n);
    }

    private static String environment() {
        return "Java " + Runtime.version() + ", " + System.getProperty("os.arch")
                + ", one thread, MB/s of int32 indices per "
                + (cpuClock() ? "second of thread CPU time" : "second of wall time");
    }

    /** Bits per index over the workload, checking every round trip. */
    private static double bitsPerIndex(IndexCodec codec, Workload workload) {
        long bytes = 0;
        for (int[] set : workload.sets()) {
            byte[] encoded = codec.encode(set, set.length, workload.n());
            if (!Arrays.equals(set, codec.decode(encoded, workload.n(), set.length))) {
                throw new IllegalStateException(codec.name() + " does not round-trip a set of " + set.length);
            }
            bytes += encoded.length;
        }
        return 8.0 * bytes / workload.indices();
    }

    /** The ablation: the codec's inflated content deflated again as one stream at level 9, default strategy. */
    private static double plainStreamBitsPerIndex(IndexCodec codec, Workload workload) {
        long bytes = 0;
        for (int[] set : workload.sets()) {
            byte[] content = inflate(codec.encode(set, set.length, workload.n()));
            Deflater deflater = new Deflater(Deflater.BEST_COMPRESSION);
            try {
                deflater.setInput(content);
                deflater.finish();
                byte[] buffer = new byte[content.length + 1024];
                while (!deflater.finished()) {
                    bytes += deflater.deflate(buffer);
                }
            } finally {
                deflater.end();
            }
        }
        return 8.0 * bytes / workload.indices();
    }

    private static byte[] inflate(byte[] zlib) {
        Inflater inflater = new Inflater();
        try {
            inflater.setInput(zlib);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buffer = new byte[1 << 16];
            while (!inflater.finished()) {
                int inflated = inflater.inflate(buffer);
                if (inflated == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
                    throw new IllegalStateException("not a complete zlib stream");
                }
                out.write(buffer, 0, inflated);
            }
            return out.toByteArray();
        } catch (DataFormatException e) {
            throw new IllegalStateException("not a zlib stream: " + e.getMessage(), e);
        } finally {
            inflater.end();
        }
    }

    /** Encode and decode MB/s of int32 indices: {@code [encode, decode]}. */
    private static double[] throughput(IndexCodec codec, Workload workload) {
        List<byte[]> encoded = new ArrayList<>();
        for (int[] set : workload.sets()) {
            encoded.add(codec.encode(set, set.length, workload.n()));
        }
        double megabytes = 4.0 * workload.indices() / 1e6;
        double encode = megabytes * bestPassesPerSecond(() -> encodeAll(codec, workload));
        double decode = megabytes * bestPassesPerSecond(() -> decodeAll(codec, workload, encoded));
        return new double[] {encode, decode};
    }

    /**
     * Passes of {@code pass} per second of this thread's CPU time (wall time where the JVM cannot measure it) in the
     * fastest of {@link #ROUNDS} rounds of at least {@link #ROUND_NANOS}, after a warm-up. CPU time, because this
     * benchmark runs on shared machines where wall time measures the scheduler; the fastest round, because it is
     * the one least disturbed by other work.
     */
    private static double bestPassesPerSecond(LongSupplier pass) {
        long checksum = 0;
        long warmupEnd = now() + WARMUP_NANOS;
        while (now() < warmupEnd) {
            checksum += pass.getAsLong();
        }
        double best = 0;
        for (int round = 0; round < ROUNDS; round++) {
            long start = now();
            long passes = 0;
            long elapsed;
            do {
                checksum += pass.getAsLong();
                passes++;
                elapsed = now() - start;
            } while (elapsed < ROUND_NANOS);
            best = Math.max(best, passes / (elapsed / 1e9));
        }
        sink = checksum;
        return best;
    }

    private static boolean cpuClock() {
        return THREADS.isCurrentThreadCpuTimeSupported() && THREADS.isThreadCpuTimeEnabled();
    }

    /** This thread's CPU time in nanoseconds, or wall time if the JVM cannot measure CPU time. */
    private static long now() {
        return cpuClock() ? THREADS.getCurrentThreadCpuTime() : System.nanoTime();
    }

    private static long encodeAll(IndexCodec codec, Workload workload) {
        long bytes = 0;
        for (int[] set : workload.sets()) {
            bytes += codec.encode(set, set.length, workload.n()).length;
        }
        return bytes;
    }

    private static long decodeAll(IndexCodec codec, Workload workload, List<byte[]> encoded) {
        long sum = 0;
        for (int i = 0; i < encoded.size(); i++) {
            int[] set = codec.decode(encoded.get(i), workload.n(), workload.sets().get(i).length);
            sum += set.length == 0 ? 0 : set[set.length - 1];
        }
        return sum;
    }

    /** Σ over the sets of {@code log2 C(n, k)}, as a sum of logarithms (exact enough, no lgamma needed). */
    private static double boundBits(Workload workload) {
        double bits = 0;
        for (int[] set : workload.sets()) {
            bits += log2Binomial(workload.n(), set.length);
        }
        return bits;
    }

    /** {@code log2 C(n, k) = Σ_{i<k} log2((n - i) / (k - i))}. */
    static double log2Binomial(int n, int k) {
        int smaller = Math.min(k, n - k);
        double nats = 0;
        for (int i = 0; i < smaller; i++) {
            nats += Math.log((double) (n - i) / (smaller - i));
        }
        return nats / Math.log(2);
    }

    /** A uniform random {@code k}-subset of {@code [0, n)}, sorted: Floyd's algorithm, exactly uniform. */
    static int[] uniformSubset(int n, int k, SplittableRandom random) {
        BitSet chosen = new BitSet(n);
        for (int j = n - k; j < n; j++) {
            int t = random.nextInt(j + 1);
            chosen.set(chosen.get(t) ? j : t);
        }
        return chosen.stream().toArray();
    }
}

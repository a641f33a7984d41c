package io.lgc4j.ring.collective;

import io.lgc4j.core.comm.Direction;
import io.lgc4j.core.comm.FrameDescriptor;
import io.lgc4j.core.comm.InProcessCluster;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.TrafficMeter;
import io.lgc4j.core.metrics.PhaseClock;
import io.lgc4j.core.comm.ValueEncoding;
import io.lgc4j.core.stage.Stage;
import io.lgc4j.core.comm.StepTag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RingAllReduceTest {

    @ParameterizedTest(name = "K={0}, n={1}")
    @CsvSource({"2, 1001", "3, 1000", "4, 1001", "7, 1000", "7, 5", "4, 3", "1, 17", "3, 100003"})
    void shouldLeaveEveryRankWithIdenticalBytesEqualToTheDenseSum(int k, int n) throws Exception {
        float[][] inputs = new float[k][n];
        Random random = new Random(31L * k + n);
        double[] exact = new double[n];
        for (int r = 0; r < k; r++) {
            for (int i = 0; i < n; i++) {
                inputs[r][i] = (float) random.nextGaussian();
                exact[i] += inputs[r][i];
            }
        }
        float[][] outputs = new float[k][];
        TrafficMeter.Snapshot traffic;
        try (InProcessCluster cluster = new InProcessCluster(k)) {
            ExecutorService pool = Executors.newFixedThreadPool(k);
            List<Future<float[]>> futures = new ArrayList<>();
            for (int r = 0; r < k; r++) {
                int rank = r;
                futures.add(pool.submit(() -> {
                    float[] data = inputs[rank].clone();
                    new RingAllReduce(cluster.transport(rank), rank, k).sum(data, new StepTag(7, Stage.FULL),
                            new PhaseClock());
                    return data;
                }));
            }
            for (int r = 0; r < k; r++) {
                outputs[r] = futures.get(r).get();
            }
            pool.shutdown();
            traffic = cluster.meter().snapshot();
        }
        for (int r = 1; r < k; r++) {
            assertArrayEquals(outputs[0], outputs[r], "rank " + r + " differs from rank 0");
        }
        for (int i = 0; i < n; i++) {
            assertEquals(exact[i], outputs[0][i], 1e-4 * (1 + Math.abs(exact[i])), "element " + i);
        }
        // Traffic: each rank sends 2(K-1) chunks; the chunks differ by at most one element when K does not
        // divide n, so a rank's payload lies within 2(K-1)*floor(n/K)*4 .. 2(K-1)*ceil(n/K)*4 and all ranks
        // together send exactly 2(K-1)*n*4 payload bytes.
        long totalPayload = 0;
        for (int r = 0; r < k; r++) {
            long payload = traffic.bytes(r, Direction.SENT, TrafficKind.VALUES);
            long headers = traffic.bytes(r, Direction.SENT, TrafficKind.HEADER);
            assertEquals(2L * (k - 1) * FrameDescriptor.OVERHEAD, headers, "headers of rank " + r);
            assertTrue(payload >= 2L * (k - 1) * (n / k) * 4 && payload <= 2L * (k - 1) * ((n + k - 1) / k) * 4,
                    "payload of rank " + r + ": " + payload);
            assertEquals(payload, traffic.bytes((r + 1) % k, Direction.RECEIVED, TrafficKind.VALUES),
                    "what rank " + r + " sent is what its right neighbour received");
            totalPayload += payload;
        }
        assertEquals(2L * (k - 1) * n * 4, totalPayload);
        if (n % k == 0) {
            for (int r = 0; r < k; r++) {
                assertEquals(2L * (k - 1) * n / k * 4, traffic.bytes(r, Direction.SENT, TrafficKind.VALUES));
            }
        }
    }

    /**
     * In half precision the owner of each reduced chunk rounds its own copy before the all-gather, so every rank ends
     * with the same bits, each the sum within the roundings on the way (K of them, each at most 2^-8 of a partial sum
     * in bf16, 2^-11 of its frame's largest in fp16); every chunk costs 2 bytes a value, plus fp16's 2-byte scale.
     */
    @ParameterizedTest(name = "{2}, K={0}, n={1}")
    @CsvSource({"2, 1001, FP16", "4, 1001, BF16", "4, 1000, FP16", "7, 5, BF16", "7, 3000, FP16", "3, 100003, BF16"})
    void halfPrecisionShouldLeaveEveryRankWithIdenticalBitsNearTheSum(int k, int n, ValueEncoding values)
            throws Exception {
        float[][] inputs = new float[k][n];
        Random random = new Random(37L * k + n);
        double[] exact = new double[n];
        double max = 0;
        for (int r = 0; r < k; r++) {
            for (int i = 0; i < n; i++) {
                inputs[r][i] = (float) (random.nextGaussian() * Math.pow(10, random.nextInt(5) - 2));
                exact[i] += inputs[r][i];
                max = Math.max(max, Math.abs(inputs[r][i]));
            }
        }
        float[][] outputs = new float[k][];
        TrafficMeter.Snapshot traffic;
        try (InProcessCluster cluster = new InProcessCluster(k)) {
            ExecutorService pool = Executors.newFixedThreadPool(k);
            List<Future<float[]>> futures = new ArrayList<>();
            for (int r = 0; r < k; r++) {
                int rank = r;
                futures.add(pool.submit(() -> {
                    float[] data = inputs[rank].clone();
                    new RingAllReduce(cluster.transport(rank), rank, k).sum(data, new StepTag(7, Stage.FULL, values),
                            new PhaseClock());
                    return data;
                }));
            }
            for (int r = 0; r < k; r++) {
                outputs[r] = futures.get(r).get();
            }
            pool.shutdown();
            traffic = cluster.meter().snapshot();
        }
        for (int r = 1; r < k; r++) {
            assertArrayEquals(outputs[0], outputs[r], "rank " + r + " differs from rank 0");
        }
        double eps = values == ValueEncoding.BF16 ? 0x1p-8 : 0x1p-11;
        for (int i = 0; i < n; i++) {
            assertEquals(exact[i], outputs[0][i], k * k * eps * max, "element " + i); // K roundings of sums ≤ K·max
        }
        long totalPayload = 0;
        for (int r = 0; r < k; r++) {
            totalPayload += traffic.bytes(r, Direction.SENT, TrafficKind.VALUES);
        }
        assertEquals(2L * (k - 1) * (2L * n + values.headerLength() * k), totalPayload);
    }

    /** What every rank holds after running {@code each} on its copy of the inputs, and the run's traffic. */
    private record Run(float[][][] outputs, TrafficMeter.Snapshot traffic) {
    }

    /** One rank's work: given its allreduce and its copies of the vectors, runs the collective(s) on them. */
    private interface RankWork {
        void run(RingAllReduce ring, float[][] vectors);
    }

    private static Run run(int k, float[][][] inputs, int directBelowBytes, RankWork work) throws Exception {
        float[][][] outputs = new float[k][][];
        try (InProcessCluster cluster = new InProcessCluster(k)) {
            ExecutorService pool = Executors.newFixedThreadPool(k);
            List<Future<float[][]>> futures = new ArrayList<>();
            for (int r = 0; r < k; r++) {
                int rank = r;
                futures.add(pool.submit(() -> {
                    float[][] vectors = new float[inputs.length][];
                    for (int v = 0; v < inputs.length; v++) {
                        vectors[v] = inputs[v][rank].clone();
                    }
                    work.run(new RingAllReduce(cluster.transport(rank), rank, k, directBelowBytes), vectors);
                    return vectors;
                }));
            }
            for (int r = 0; r < k; r++) {
                outputs[r] = futures.get(r).get(60, java.util.concurrent.TimeUnit.SECONDS);
            }
            pool.shutdown();
            return new Run(outputs, cluster.meter().snapshot());
        }
    }

    private static float[][] gaussian(int k, int n, long seed) {
        Random random = new Random(seed);
        float[][] x = new float[k][n];
        for (float[] rank : x) {
            for (int i = 0; i < n; i++) {
                rank[i] = (float) (random.nextGaussian() * Math.pow(10, random.nextInt(7) - 3));
            }
        }
        return x;
    }

    /**
     * Sums run together in the same hops ({@link RingAllReduce#run}) give each rank the bits each gives alone, with the
     * same frames and bytes, in 2(K−1) hops instead of 2(K−1) per sum; a pass of a ring of one does nothing.
     */
    @ParameterizedTest(name = "{2}, K={0}, n={1}")
    @CsvSource({"1, 17, FP32", "2, 1001, FP32", "3, 40, FP16", "4, 1001, FP32", "4, 7, BF16", "7, 300, FP16"})
    void passesRunTogetherShouldGiveTheBitsOfEachAlone(int k, int n, ValueEncoding values) throws Exception {
        float[][][] inputs = {gaussian(k, n, 1), gaussian(k, n / 3 + 1, 2)};
        StepTag tag = new StepTag(3, Stage.TOP_K, values);
        Run alone = run(k, inputs, 0, (ring, v) -> {
            ring.sum(v[0], TrafficKind.VALUES, tag, new PhaseClock());
            ring.sum(v[1], TrafficKind.LATENT, tag, new PhaseClock());
        });
        Run together = run(k, inputs, 0, (ring, v) -> ring.run(new PhaseClock(),
                ring.sumPass(v[0], TrafficKind.VALUES, tag), null, ring.sumPass(v[1], TrafficKind.LATENT, tag)));
        for (int r = 0; r < k; r++) {
            for (int v = 0; v < inputs.length; v++) {
                assertArrayEquals(alone.outputs()[r][v], together.outputs()[r][v], "rank " + r + ", vector " + v);
                assertArrayEquals(together.outputs()[0][v], together.outputs()[r][v], "rank " + r + " vs rank 0");
            }
            for (TrafficKind kind : new TrafficKind[] {TrafficKind.VALUES, TrafficKind.LATENT, TrafficKind.HEADER}) {
                assertEquals(alone.traffic().bytes(r, Direction.SENT, kind),
                        together.traffic().bytes(r, Direction.SENT, kind), "rank " + r + ", " + kind);
            }
        }
    }

    /**
     * An fp32 sum below the threshold goes direct: every rank sends its vector once to each other rank (K−1 frames,
     * (K−1)·n floats) and sums each chunk in the ring's order, so it holds exactly the ring's bits. At or above the
     * threshold, and in half precision, the sum rides the ring.
     */
    @ParameterizedTest(name = "K={0}, n={1}")
    @CsvSource({"2, 1001", "3, 40", "4, 1001", "4, 3", "5, 257", "7, 300", "1, 9"})
    void aDirectSumShouldHoldTheRingsBits(int k, int n) throws Exception {
        float[][][] inputs = {gaussian(k, n, 7)};
        StepTag tag = new StepTag(5, Stage.TOP_K);
        RankWork sum = (ring, v) -> ring.sum(v[0], TrafficKind.VALUES, tag, new PhaseClock());
        Run ring = run(k, inputs, 0, sum);
        Run direct = run(k, inputs, 4 * n + 1, sum);
        Run atThreshold = run(k, inputs, 4 * n, sum);
        for (int r = 0; r < k; r++) {
            assertArrayEquals(ring.outputs()[r][0], direct.outputs()[r][0], "rank " + r);
            long frames = k == 1 ? 0 : k - 1;
            assertEquals(frames * FrameDescriptor.OVERHEAD, direct.traffic().bytes(r, Direction.SENT,
                    TrafficKind.HEADER), "rank " + r + ": one frame to each other rank");
            assertEquals(frames * 4L * n, direct.traffic().bytes(r, Direction.SENT, TrafficKind.VALUES));
            assertEquals(ring.traffic().bytes(r, Direction.SENT, TrafficKind.HEADER),
                    atThreshold.traffic().bytes(r, Direction.SENT, TrafficKind.HEADER), "not below: the ring");
        }
        StepTag half = new StepTag(5, Stage.TOP_K, ValueEncoding.FP16);
        RankWork halfSum = (r, v) -> r.sum(v[0], TrafficKind.VALUES, half, new PhaseClock());
        Run halfRing = run(k, inputs, 0, halfSum);
        Run halfDirect = run(k, inputs, 4 * n + 1, halfSum);
        for (int r = 0; r < k; r++) {
            assertArrayEquals(halfRing.outputs()[r][0], halfDirect.outputs()[r][0], "fp16 rank " + r);
            assertEquals(halfRing.traffic().bytes(r, Direction.SENT, TrafficKind.HEADER),
                    halfDirect.traffic().bytes(r, Direction.SENT, TrafficKind.HEADER), "fp16 rides the ring");
        }
    }

    /** A direct sum riding the same hop as ring sums (DENSE blocks, say) keeps every sum's bits. */
    @ParameterizedTest(name = "K={0}")
    @CsvSource({"3", "4"})
    void aDirectSumShouldRideBesideRingSums(int k) throws Exception {
        float[][][] inputs = {gaussian(k, 2000, 11), gaussian(k, 30, 12), gaussian(k, 500, 13)};
        StepTag tag = new StepTag(9, Stage.COMPRESSED);
        RankWork three = (ring, v) -> ring.run(new PhaseClock(), ring.sumPass(v[0], TrafficKind.VALUES, tag),
                ring.sumPass(v[1], TrafficKind.LATENT, tag), ring.sumPass(v[2], TrafficKind.VALUES, tag));
        Run ring = run(k, inputs, 0, three);
        Run mixed = run(k, inputs, 4 * 500 + 1, three); // the 30 and the 500 go direct, the 2000 rides the ring
        for (int r = 0; r < k; r++) {
            for (int v = 0; v < inputs.length; v++) {
                assertArrayEquals(ring.outputs()[r][v], mixed.outputs()[r][v], "rank " + r + ", vector " + v);
            }
        }
    }

    /**
     * A vector summed piece by piece (backward overlap: the last elements first) in the whole vector's chunks holds the
     * whole sum's bits in fp32 and bf16, also when a piece goes direct; in fp16 (a scale per frame) every rank still
     * holds the same bits. A chunk a piece leaves empty sends no frame.
     */
    @ParameterizedTest(name = "{2}, K={0}, n={1}, direct below {3} B")
    @CsvSource({"2, 1001, FP32, 0", "3, 1000, FP32, 0", "4, 1001, FP32, 0", "7, 300, FP32, 0", "4, 1001, BF16, 0",
            "4, 1001, FP32, 1000", "5, 257, FP32, 400", "4, 1001, FP16, 0", "1, 17, FP32, 0"})
    void aVectorSummedPieceByPieceShouldHoldTheWholeSumsBits(int k, int n, ValueEncoding values, int direct)
            throws Exception {
        float[][][] inputs = {gaussian(k, n, 21)};
        StepTag tag = new StepTag(2, Stage.FULL, values);
        int[] cuts = {n, n - n / 3, n / 2 + 1, n / 7, 0}; // pieces from the end, one inside a single chunk
        Run whole = run(k, inputs, 0, (ring, v) -> ring.sum(v[0], TrafficKind.VALUES, tag, new PhaseClock()));
        Run pieces = run(k, inputs, direct, (ring, v) -> {
            for (int p = 0; p + 1 < cuts.length; p++) {
                ring.run(new PhaseClock(), ring.sumPass(v[0], cuts[p + 1], cuts[p], TrafficKind.VALUES, tag));
            }
        });
        for (int r = 0; r < k; r++) {
            assertArrayEquals(pieces.outputs()[0][0], pieces.outputs()[r][0], "rank " + r + " vs rank 0");
            if (values != ValueEncoding.FP16) {
                assertArrayEquals(whole.outputs()[r][0], pieces.outputs()[r][0], "rank " + r);
            }
        }
        if (values == ValueEncoding.FP16) {
            for (int i = 0; i < n; i++) {
                assertEquals(whole.outputs()[0][0][i], pieces.outputs()[0][0][i],
                        2e-3f * (Math.abs(whole.outputs()[0][0][i]) + 1e-3f), "element " + i);
            }
        }
        if (k > 1 && direct == 0) {
            // the last piece (0..n/7) lies in chunk 0: K−1 reduce and K−1 gather frames of it, none of the others'
            Run first = run(k, inputs, 0, (ring, v) -> ring.run(new PhaseClock(),
                    ring.sumPass(v[0], 0, n / 7, TrafficKind.VALUES, tag)));
            long frames = 0;
            for (int r = 0; r < k; r++) {
                frames += first.traffic().bytes(r, Direction.SENT, TrafficKind.HEADER) / FrameDescriptor.OVERHEAD;
            }
            assertEquals(2L * (k - 1), frames);
        }
    }

    @org.junit.jupiter.api.Test
    void aPieceShouldLieInTheVector() {
        try (InProcessCluster cluster = new InProcessCluster(2)) {
            RingAllReduce ring = new RingAllReduce(cluster.transport(0), 0, 2);
            IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    () -> ring.sumPass(new float[10], 4, 11, TrafficKind.VALUES, new StepTag(0, Stage.FULL)));
            assertEquals("a range of a vector of 10 elements, found 4..11", e.getMessage());
        }
    }

    @org.junit.jupiter.api.Test
    void shouldRefuseANegativeThreshold() {
        try (InProcessCluster cluster = new InProcessCluster(2)) {
            IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    () -> new RingAllReduce(cluster.transport(0), 0, 2, -1));
            assertEquals("directBelowBytes must be >= 0, found -1", e.getMessage());
        }
    }
}

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
}

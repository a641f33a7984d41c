package io.lgc4j.core.train;

import io.lgc4j.core.comm.Frame;
import io.lgc4j.core.comm.InProcessCluster;
import io.lgc4j.core.comm.TrafficKind;
import io.lgc4j.core.comm.Transport;
import io.lgc4j.core.data.MemorySource;
import io.lgc4j.core.layout.GradientLayout;
import io.lgc4j.core.protocol.FloatFrames;
import io.lgc4j.core.runtime.ClusterConnection;
import io.lgc4j.core.runtime.ClusterConnector;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.nd4j.linalg.dataset.DataSet;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each endpoint of a run built as its own process would build it (its own trainer, its own data, one endpoint of a
 * cluster), here on threads joined by an in-process cluster: the workers agree on the data before step 0, a worker
 * whose data differs is refused naming both counts, the relay server learns the run's length from rank 0, and the
 * run equals the in-process one bit for bit; every endpoint's {@code fit} returns the run's outcome.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClusterDataTest {

    /** A server that sums the workers' gradients in rank order and sends every worker the mean. */
    static final class Relay implements Topology {
        @Override
        public String name() {
            return "relay";
        }

        @Override
        public int serviceEndpoints(int workers) {
            return 1;
        }

        @Override
        public GradientExchange worker(int rank, int workers, Transport transport, GradientLayout layout) {
            return (tag, gradient, clock) -> {
                transport.send(workers, FloatFrames.encode(gradient, 0, gradient.length, TrafficKind.VALUES,
                        tag.stage(), tag.step()));
                FloatFrames.copyInto(transport.receive(workers), gradient, 0, gradient.length);
            };
        }

        @Override
        public List<ServiceLoop> services(int workers, List<Transport> transports, GradientLayout layout) {
            Transport t = transports.get(0);
            return List.of(() -> {
                float[] sum = new float[layout.length()];
                float[] one = new float[layout.length()];
                Frame first = null;
                for (int r = 0; r < workers; r++) {
                    Frame f = t.receive(r);
                    first = first == null ? f : first;
                    FloatFrames.copyInto(f, one, 0, one.length);
                    for (int i = 0; i < sum.length; i++) {
                        sum[i] += one[i];
                    }
                }
                for (int i = 0; i < sum.length; i++) {
                    sum[i] /= workers;
                }
                int step = first.step();
                byte[] mean = FloatFrames.encode(sum, 0, sum.length, TrafficKind.VALUES, first.stage(), step);
                for (int r = 0; r < workers; r++) {
                    t.send(r, mean);
                }
                return step;
            });
        }
    }

    /** Endpoint e of an in-process cluster, as a process would join a network one. */
    private record Joined(InProcessCluster cluster, int endpoint) implements ClusterConnector {
        @Override
        public ClusterConnection connect(int endpoints, IntFunction<String> names) {
            assertEquals(cluster.endpoints(), endpoints);
            return new ClusterConnection() {
                @Override
                public int endpoint() {
                    return endpoint;
                }

                @Override
                public Transport transport() {
                    return cluster.unmetered(endpoint);
                }

                @Override
                public void abort(int lostEndpoint, String reason) {
                    cluster.close();
                }

                @Override
                public void close() {
                }
            };
        }
    }

    private static DistributedTrainer.Builder trainer(DataSet data) {
        return DistributedTrainer.builder().model(TestModels.mlp(3)).data(data).workers(2).batchSizePerWorker(8)
                .topology(new Relay()).seed(5);
    }

    /** Runs endpoints 0..2 (two workers and the relay), endpoint e on {@code data[e]}; the results in order. */
    private static List<Future<TrainingResult>> runAsProcesses(ExecutorService pool, DataSet... data) {
        InProcessCluster cluster = new InProcessCluster(3);
        List<Future<TrainingResult>> results = new ArrayList<>();
        for (int e = 0; e < 3; e++) {
            int endpoint = e;
            results.add(pool.submit(() -> trainer(data[endpoint]).cluster(new Joined(cluster, endpoint)).build()
                    .fit(2)));
        }
        return results;
    }

    @Test
    void processesShouldComputeWhatOneJvmComputes() throws Exception {
        DataSet data = TestModels.data(64, 1);
        TrainingResult inProcess = trainer(data).build().fit(2);
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            List<Future<TrainingResult>> results = runAsProcesses(pool, data, data, data);
            TrainingResult rank0 = results.get(0).get();
            assertEquals(8, rank0.steps().size());
            assertEquals(inProcess.replicaChecksums(), rank0.replicaChecksums());
            for (int e = 1; e < 3; e++) {
                TrainingResult other = results.get(e).get();
                assertEquals(e, other.endpoint());
                assertEquals(8, other.stepCount());
                assertEquals(List.of(), other.steps());
                assertEquals(rank0.replicaChecksums(), other.replicaChecksums());
                for (int endpoint = 0; endpoint < 3; endpoint++) {
                    org.junit.jupiter.api.Assertions.assertArrayEquals(rank0.traffic().row(endpoint),
                            other.traffic().row(endpoint));
                }
                assertEquals(rank0.wallNanos(), other.wallNanos());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void rankZeroAloneShouldSaveTheTrainedModelWithItsUpdater(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        DataSet data = TestModels.data(64, 1);
        InProcessCluster cluster = new InProcessCluster(3);
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            List<Future<Boolean>> saved = new ArrayList<>();
            for (int e = 0; e < 3; e++) {
                int endpoint = e;
                saved.add(pool.submit(() -> {
                    DistributedTrainer t = trainer(data).cluster(new Joined(cluster, endpoint)).build();
                    assertEquals("saveModel saves the trained model: call fit first", assertThrows(
                            IllegalStateException.class, () -> t.saveModel(dir.resolve("early.zip"))).getMessage());
                    t.fit(1);
                    return t.saveModel(dir.resolve("model-" + endpoint + ".zip"));
                }));
            }
            assertEquals(List.of(true, false, false), List.of(saved.get(0).get(), saved.get(1).get(),
                    saved.get(2).get()));
            var model = org.deeplearning4j.util.ModelSerializer.restoreMultiLayerNetwork(
                    dir.resolve("model-0.zip").toFile(), true);
            DistributedTrainer again = trainer(data).build();
            again.fit(1);
            assertEquals(again.trainedModel().params(), model.params());
            assertEquals(((org.deeplearning4j.nn.multilayer.MultiLayerNetwork) again.trainedModel()).getUpdater()
                    .getStateViewArray(), model.getUpdater().getStateViewArray());
            assertEquals(List.of("model-0.zip"), java.util.Arrays.stream(dir.toFile().list()).sorted().toList());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void ranksWithOtherStepCountsShouldBeRefusedNamingBoth() throws Exception {
        DataSet data = TestModels.data(64, 1);
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            List<Future<TrainingResult>> results = runAsProcesses(pool, data, TestModels.data(48, 1), data);
            Exception e = assertThrows(Exception.class, () -> results.get(0).get());
            assertEquals("rank 0 stopped: failed: the ranks disagree on the data: rank 0 has 4 steps per epoch (64"
                    + " examples, batch 8 × 2 ranks), rank 1 has 3 (48 examples)", e.getCause().getMessage());
            for (int i = 1; i < 3; i++) {
                int endpoint = i;
                assertThrows(Exception.class, () -> results.get(endpoint).get());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aRankReadingOtherDataShouldBeRefused() throws Exception {
        DataSet data = TestModels.data(64, 1);
        DataSet other = TestModels.data(64, 2);
        long own = MemorySource.of(data).plan(2, 8).fingerprint();
        long theirs = MemorySource.of(other).plan(2, 8).fingerprint();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            List<Future<TrainingResult>> results = runAsProcesses(pool, data, other, data);
            Exception e = assertThrows(Exception.class, () -> results.get(0).get());
            assertEquals(String.format("rank 0 stopped: failed: rank 1 reads other data than rank 0 (64 examples"
                    + " each; fingerprint 0x%x vs 0x%x)", theirs, own), e.getCause().getMessage());
            assertTrue(own != theirs);
        } finally {
            pool.shutdownNow();
        }
    }
}
